import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { withConstraintMode } from '../../lake/index.js';
import { constraintsToSet } from '../constraints-to-set.js';
import type { SessionContext } from '../session-context.js';
import { isolationText } from '../transaction-isolation.js';
import { TransactionState, type Txn } from '../transaction-state.js';
import { commandTag, type UtilityHandlers } from './utility-handler.js';

type TransactionKinds = 'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo' | 'lockTable' | 'setConstraints';

/**
 * BEGIN, COMMIT, ROLLBACK, savepoints, LOCK TABLE and SET CONSTRAINTS. Ending a block
 * also puts back its settings, closes its cursors and settles its temporary tables.
 */
export const transactionCommands: Pick<UtilityHandlers, TransactionKinds> = {
  async begin(ctx, c) {
    const tx = ctx.transaction;
    let t = tx.current;
    if (t?.implicit) t.implicit = false;
    else if (t) ctx.notice('WARNING', SqlState.activeSqlTransaction, 'there is already a transaction in progress');
    else t = tx.current = TransactionState.create(false, ctx.settings.get('default_transaction_isolation'));
    if (c.modes.isolation !== undefined && t.lake === undefined) t.isolation = isolationText(c.modes.isolation);
    ctx.settings.values.set('transaction_isolation', t.isolation);
    return commandTag(c.start === true ? 'START TRANSACTION' : 'BEGIN');
  },

  async commit(ctx) {
    const t = takeBlock(ctx);
    if (!t) return commandTag('COMMIT');
    ctx.settings.restore(t, !t.failed);
    await ctx.cursors.closeAll(false);
    if (t.failed) {
      ctx.server.transactionEnded(false);
      if (t.lake?.state === 'open') await t.lake.abort().catch(() => undefined);
      await ctx.temp.endTransaction(false);
      return commandTag('ROLLBACK');
    }
    try {
      if (t.lake) await ctx.commitLake(t.lake);
    } catch (e) {
      ctx.server.transactionEnded(false);
      throw e;
    } finally {
      await ctx.temp.endTransaction(t.lake === undefined || t.lake.state === 'committed');
    }
    // NOTIFYs go out, and transaction-level advisory locks are released, only once the commit holds.
    ctx.server.transactionEnded(true);
    return commandTag('COMMIT');
  },

  async rollback(ctx) {
    const t = takeBlock(ctx);
    if (!t) return commandTag('ROLLBACK');
    ctx.settings.restore(t, false);
    ctx.server.transactionEnded(false);
    await ctx.cursors.closeAll(false);
    if (t.lake?.state === 'open') await t.lake.abort();
    await ctx.temp.endTransaction(false);
    return commandTag('ROLLBACK');
  },

  async savepoint(ctx, c) {
    ctx.transaction.savepoint(c.name);
    return commandTag('SAVEPOINT');
  },

  async release(ctx, c) {
    ctx.transaction.release(c.name);
    return commandTag('RELEASE');
  },

  async rollbackTo(ctx, c) {
    await ctx.transaction.rollbackTo(c.name);
    return commandTag('ROLLBACK');
  },

  async lockTable(ctx) {
    const t = ctx.transaction.current;
    if (!t || t.implicit) throw new FloeError(SqlState.noActiveSqlTransaction, 'LOCK TABLE can only be used in transaction blocks');
    return commandTag('LOCK TABLE');
  },

  async setConstraints(ctx, c) {
    const t = ctx.transaction.current;
    // PostgreSQL warns outside a block (an implicit one of a multi-statement string counts as one) and still checks the names.
    if (t === undefined) ctx.notice('WARNING', SqlState.noActiveSqlTransaction, 'SET CONSTRAINTS can only be used in transaction blocks');
    const temp = ctx.temp.tempNamespace;
    const target = c.names === 'all' ? 'all' as const
      : constraintsToSet(ctx.deps.warehouse, c.names.map((n) => (n.schema === 'pg_temp' && temp !== undefined ? { ...n, schema: temp } : n)),
        [...(temp === undefined ? [] : [temp]), ...ctx.searchPath()]);
    if (t !== undefined) {
      t.constraintModes = withConstraintMode(t.constraintModes, target, c.deferred ? 'deferred' : 'immediate');
      if (t.lake?.state === 'open') await t.lake.setConstraintModes(t.constraintModes);
    }
    return commandTag('SET CONSTRAINTS');
  },
};

/** COMMIT and ROLLBACK take the open block off the session (it ends whatever follows), or warn that there is none, as PostgreSQL does. */
function takeBlock(ctx: SessionContext): Txn | undefined {
  const t = ctx.transaction.current;
  if (!t) {
    ctx.notice('WARNING', SqlState.noActiveSqlTransaction, 'there is no transaction in progress');
    return undefined;
  }
  ctx.transaction.current = undefined;
  return t;
}

/** Ends a query string's implicit transaction when the string is done: commit on success, else roll back. */
export async function endImplicitTransaction(ctx: SessionContext, ok: boolean): Promise<void> {
  const t = ctx.transaction.current;
  if (!t?.implicit) return;
  ctx.transaction.current = undefined;
  const commit = ok && !t.failed;
  ctx.settings.restore(t, commit);
  await ctx.cursors.closeAll(false);
  try {
    if (t.lake && t.lake.state === 'open') {
      if (commit) await ctx.commitLake(t.lake);
      else await t.lake.abort().catch(() => undefined);
    }
  } catch (e) {
    ctx.server.transactionEnded(false);
    throw e;
  } finally {
    await ctx.temp.endTransaction(commit);
  }
  ctx.server.transactionEnded(commit);
}
