import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';

/** Why a run stops: the signal's own FloeError (a statement timeout, FATAL 57P01 from pg_terminate_backend), else a cancel. */
export function abortError(signal: AbortSignal): FloeError {
  return signal.reason instanceof FloeError ? signal.reason : new FloeError(SqlState.queryCanceled, 'canceling statement due to user request');
}
