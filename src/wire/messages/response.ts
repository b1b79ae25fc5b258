import type { TransactionStatus } from '../session-handler.js';

/** ErrorResponse / NoticeResponse field codes, as in PostgreSQL's protocol docs. */
export interface ResponseFields {
  /** Localized severity (S) and the non-localized one (V); Floe sends English for both. */
  readonly severity: string;
  readonly sqlstate: string;
  readonly message: string;
  readonly detail?: string;
  readonly hint?: string;
  readonly position?: number;
  readonly schema?: string;
  readonly table?: string;
  readonly column?: string;
  readonly dataType?: string;
  readonly constraint?: string;
}

export interface ErrorResponse {
  readonly kind: 'ErrorResponse';
  readonly fields: ResponseFields;
}

export interface NoticeResponse {
  readonly kind: 'NoticeResponse';
  readonly fields: ResponseFields;
}

export interface ReadyForQuery {
  readonly kind: 'ReadyForQuery';
  readonly status: TransactionStatus;
}

export interface ParameterStatus {
  readonly kind: 'ParameterStatus';
  readonly name: string;
  readonly value: string;
}

/** 'A': a NOTIFY on a channel this session listens to. */
export interface NotificationResponse {
  readonly kind: 'NotificationResponse';
  readonly processId: number;
  readonly channel: string;
  readonly payload: string;
}

export interface Terminate {
  readonly kind: 'Terminate';
}
