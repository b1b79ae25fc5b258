import { bindStatement } from '../../sql/index.js';
import { commandTag, type UtilityHandlers } from './utility-handler.js';
import { evalArgs } from '../internal-statements.js';
import { runParsed } from '../run-statement.js';

/** SQL's PREPARE, EXECUTE and DEALLOCATE (prepared-statements.ts keeps them). */
export const preparedCommands: Pick<UtilityHandlers, 'prepare' | 'execute' | 'deallocate'> = {
  async prepare(ctx, c) {
    ctx.prepared.checkFree(c.name);
    bindStatement(c.statement, ctx.bindEnv(c.paramTypes));
    ctx.prepared.add(c.name, { stmt: c.statement, paramTypes: c.paramTypes });
    return commandTag('PREPARE');
  },

  async execute(ctx, c, signal) {
    const p = ctx.prepared.get(c.name);
    const args = await evalArgs(ctx, ctx.physicalPlan(c.args), c.args.types, signal);
    return runParsed(ctx, p.stmt, args, p.paramTypes.length > 0 ? p.paramTypes : c.args.types, signal);
  },

  async deallocate(ctx, c) {
    ctx.prepared.deallocate(c.name);
    return commandTag(c.name === null ? 'DEALLOCATE ALL' : 'DEALLOCATE');
  },
};
