import { FloeError } from '../common/floe-error.js';

/** What CancelRequest makes a running statement fail with. */
export function statementCanceled(): FloeError {
  return new FloeError('57014', 'canceling statement due to user request');
}
