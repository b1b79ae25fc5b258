import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';

export type LogIoAction = 'write to' | 'fdatasync' | 'create' | 'truncate';

/**
 * The error a failed write or fsync of the commit log becomes, in PostgreSQL's words
 * (`could not write to file "…": …`): 53100 when the disk is full, 58030 otherwise.
 */
export function logIoError(cause: unknown, action: LogIoAction, path: string): FloeError {
  const err = cause as NodeJS.ErrnoException;
  const code = err?.code;
  const reason = code === 'ENOSPC' ? 'No space left on device' : (err?.message ?? String(cause));
  const sqlstate = code === 'ENOSPC' || code === 'EDQUOT' ? SqlState.diskFull : SqlState.ioError;
  return new FloeError(sqlstate, `could not ${action} file "${path}": ${reason}`, {
    detail: 'The commit log accepts no more records after a failed write or fsync: what reached the disk is unknown.',
    cause,
  });
}
