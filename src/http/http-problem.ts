import { FloeError, isFloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';

/** An API error as JSON: `{ "error": { "sqlstate", "message", "detail"?, "hint"? } }`, with an HTTP status. */
export interface HttpProblem {
  readonly status: number;
  readonly body: { readonly error: { readonly sqlstate: string; readonly message: string; readonly detail?: string; readonly hint?: string } };
}

/** HTTP statuses of the SQLSTATEs the API raises; any other class of client error is 400, anything else 500. */
const STATUS_BY_SQLSTATE: Readonly<Record<string, number>> = {
  [SqlState.invalidAuthorizationSpecification]: 401,
  [SqlState.invalidPassword]: 401,
  [SqlState.insufficientPrivilege]: 403,
  [SqlState.undefinedTable]: 404,
  [SqlState.undefinedObject]: 404,
};

/** Client-error classes (PostgreSQL's): data exceptions, syntax and access, invalid state, and the like. */
const CLIENT_ERROR_CLASSES = new Set(['22', '23', '28', '40', '42', '44', '55', '0A']);

export function problemOf(e: unknown): HttpProblem {
  const err = isFloeError(e) ? e : new FloeError(SqlState.internalError, e instanceof Error && e.message !== '' ? e.message : 'internal error');
  const status = STATUS_BY_SQLSTATE[err.sqlstate] ?? (CLIENT_ERROR_CLASSES.has(err.sqlstate.slice(0, 2)) ? 400 : 500);
  return {
    status,
    body: {
      error: {
        sqlstate: err.sqlstate, message: err.message,
        ...(err.detail === undefined ? {} : { detail: err.detail }),
        ...(err.hint === undefined ? {} : { hint: err.hint }),
      },
    },
  };
}
