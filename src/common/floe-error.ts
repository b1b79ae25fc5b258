/**
 * The one error type every layer throws. Only src/wire turns it into an
 * ErrorResponse; everything below speaks SQLSTATE so the wire never guesses.
 */
export type Severity = 'ERROR' | 'FATAL' | 'PANIC' | 'WARNING' | 'NOTICE';

export interface FloeErrorFields {
  readonly detail?: string;
  readonly hint?: string;
  /** 1-based character position in the statement text, as PostgreSQL reports it. */
  readonly position?: number;
  readonly severity?: Severity;
  readonly cause?: unknown;
  /** The objects the error is about (ErrorResponse fields s, t, c, d, n), as PostgreSQL names them for constraint violations. */
  readonly objects?: ErrorObjects;
}

export interface ErrorObjects {
  readonly schema?: string;
  readonly table?: string;
  readonly column?: string;
  readonly dataType?: string;
  readonly constraint?: string;
}

export class FloeError extends Error {
  readonly sqlstate: string;
  readonly severity: Severity;
  readonly detail: string | undefined;
  readonly hint: string | undefined;
  readonly position: number | undefined;
  readonly objects: ErrorObjects | undefined;

  constructor(sqlstate: string, message: string, fields: FloeErrorFields = {}) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'FloeError';
    this.sqlstate = sqlstate;
    this.severity = fields.severity ?? 'ERROR';
    this.detail = fields.detail;
    this.hint = fields.hint;
    this.position = fields.position;
    this.objects = fields.objects;
  }

  /** A copy carrying a statement position, for errors raised before the position was known. */
  withPosition(position: number): FloeError {
    return new FloeError(this.sqlstate, this.message, {
      detail: this.detail, hint: this.hint, position, severity: this.severity, cause: this.cause, objects: this.objects,
    });
  }
}

export function isFloeError(e: unknown): e is FloeError {
  return e instanceof FloeError;
}
