import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { executePlan } from '../../exec/index.js';
import { commandTag, type UtilityHandlers } from './utility-handler.js';

/** DECLARE … CURSOR, FETCH / MOVE and CLOSE (cursors.ts keeps them). */
export const cursorCommands: Pick<UtilityHandlers, 'declareCursor' | 'fetch' | 'closeCursor'> = {
  async declareCursor(ctx, c) {
    if (!ctx.transaction.current && !c.hold) throw new FloeError(SqlState.noActiveSqlTransaction, 'DECLARE CURSOR can only be used in transaction blocks');
    ctx.cursors.declare(c.name, c.query.columns, () => executePlan(ctx.physicalPlan(c.query), ctx.execContext([], new AbortController().signal, ctx.transaction.current?.lake)), c.hold);
    return commandTag('DECLARE CURSOR');
  },

  async fetch(ctx, c) {
    return ctx.cursors.fetch(c);
  },

  async closeCursor(ctx, c) {
    await ctx.cursors.close(c.name);
    return commandTag(c.name === null ? 'CLOSE CURSOR ALL' : 'CLOSE CURSOR');
  },
};
