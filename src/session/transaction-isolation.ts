import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import type { TxnIsolation } from '../lake/index.js';

/**
 * A transaction's isolation level from its text (BEGIN ISOLATION LEVEL …, SET
 * TRANSACTION …, default_transaction_isolation). READ UNCOMMITTED runs as READ
 * COMMITTED, as in PostgreSQL; REPEATABLE READ and SERIALIZABLE both run as snapshot
 * isolation (one snapshot per table for the transaction's life, 40001 on a concurrent
 * write of the same key). SERIALIZABLE adds no read-set tracking: write skew between
 * two transactions that write different keys is not prevented.
 */
export function isolationLevel(text: string | undefined): TxnIsolation {
  switch ((text ?? 'read committed').trim().toLowerCase().replace(/\s+/g, ' ').replace(/^'|'$/g, '')) {
    case 'read committed': case 'read uncommitted': case 'default': case '': return 'read committed';
    case 'repeatable read': return 'repeatable read';
    case 'serializable': return 'serializable';
    default:
      throw new FloeError(SqlState.invalidParameterValue, `invalid value for parameter "transaction_isolation": "${text}"`, {
        hint: 'Available values: serializable, repeatable read, read committed, read uncommitted.',
      });
  }
}

/** What SHOW transaction_isolation says for a level that was asked for (PostgreSQL reports the name asked, read uncommitted included). */
export function isolationText(text: string | undefined): string {
  isolationLevel(text);
  return (text ?? 'read committed').trim().toLowerCase().replace(/\s+/g, ' ');
}
