import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { commandTag, type UtilityHandlers } from './utility-handler.js';

/** DISCARD, and the statements Floe accepts and has nothing to do for (noop: a tag and any notices). */
export const sessionCommands: Pick<UtilityHandlers, 'discard' | 'noop'> = {
  async discard(ctx, c) {
    if (c.target === 'all') {
      const t = ctx.transaction.current;
      if (t && !t.implicit) throw new FloeError(SqlState.activeSqlTransaction, 'DISCARD ALL cannot run inside a transaction block');
      ctx.prepared.clear();
      await ctx.cursors.closeAll(true);
      // DISCARD ALL is SET SESSION AUTHORIZATION DEFAULT and RESET ALL, among others.
      ctx.identity.setSessionAuthorization(null);
      ctx.settings.resetAll();
    }
    if (c.target === 'all' || c.target === 'temp') await ctx.temp.close();
    return commandTag(`DISCARD ${c.target.toUpperCase()}`);
  },

  async noop(ctx, c) {
    for (const n of c.notices ?? []) ctx.notice('NOTICE', SqlState.successfulCompletion, n);
    return commandTag(c.tag);
  },
};
