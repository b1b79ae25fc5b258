import { isFloeError } from '../common/floe-error.js';
import { problemOf } from './http-problem.js';

/**
 * The Iceberg REST catalog's error body (the spec's ErrorModel): `{ "error": { message, type,
 * code } }`, where `type` names the exception a Java client raises and `code` repeats the
 * HTTP status. Clients decide by status and type, so both follow the spec's table.
 */
export interface IcebergErrorBody {
  readonly error: { readonly message: string; readonly type: string; readonly code: number };
}

/** An error a catalog route raises with the spec's status and exception type. */
export class IcebergRestError extends Error {
  constructor(readonly status: number, readonly type: string, message: string) {
    super(message);
    this.name = 'IcebergRestError';
  }
}

const TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'BadRequestException',
  401: 'NotAuthorizedException',
  403: 'ForbiddenException',
  404: 'NoSuchTableException',
  405: 'UnsupportedOperationException',
  406: 'UnsupportedOperationException',
};

/** Any error of a catalog request as the spec's status and body; Floe's own errors keep their status mapping (http-problem.ts). */
export function icebergErrorOf(e: unknown, fastifyStatus?: number): { status: number; body: IcebergErrorBody } {
  if (e instanceof IcebergRestError) return { status: e.status, body: { error: { message: e.message, type: e.type, code: e.status } } };
  const status = !isFloeError(e) && fastifyStatus !== undefined && fastifyStatus < 500 ? fastifyStatus : problemOf(e).status;
  const message = status >= 500 && !isFloeError(e) ? 'internal error' : e instanceof Error ? e.message : String(e);
  const type = TYPE_BY_STATUS[status] ?? (status >= 500 ? 'ServiceFailureException' : 'BadRequestException');
  return { status, body: { error: { message, type, code: status } } };
}
