import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SessionContext } from '../session-context.js';
import { isolationLevel } from '../transaction-isolation.js';

/**
 * CREATE_REPLICATION_SLOT … (SNAPSHOT 'use'): the session's transaction block, before its
 * first query, reads as of the slot's consistent point, so a subscriber's initial copy and
 * the stream that follows neither overlap nor leave a gap.
 */
export async function readAsOfSlot(ctx: SessionContext, snapshotId: bigint): Promise<void> {
  const t = ctx.transaction.current;
  const what = "CREATE_REPLICATION_SLOT ... (SNAPSHOT 'use')";
  if (t === undefined || t.implicit) throw new FloeError(SqlState.internalError, `${what} must be called inside a transaction`);
  if (isolationLevel(t.isolation) !== 'repeatable read') throw new FloeError(SqlState.internalError, `${what} must be called in REPEATABLE READ isolation mode transaction`);
  if (t.lake !== undefined) throw new FloeError(SqlState.internalError, `${what} must be called before any query`);
  t.lake = await ctx.deps.warehouse.begin({ isolation: isolationLevel(t.isolation), constraintModes: t.constraintModes });
  t.lake.readAtOrBefore(snapshotId);
}
