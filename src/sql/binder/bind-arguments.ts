import { LogicalValues } from '../../planner/index.js';
import type { ArgumentsPlan } from '../utility-command.js';
import type { Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindExpr } from './bind-expr.js';
import { resolveUnknown } from './coerce.js';

/** EXECUTE's and CALL's argument expressions as a one-row plan the session evaluates. */
export function bindArguments(ctx: BindContext, args: readonly Raw[]): ArgumentsPlan {
  const exprs = args.map((a) => resolveUnknown(ctx, bindExpr(ctx, a, { scope: { columns: [] }, clause: 'EXECUTE parameter' })));
  const plan = LogicalValues.create({ rows: [exprs], columns: exprs.map((e, i) => ({ name: `arg${i + 1}`, type: e.type })) });
  return { logical: plan, types: exprs.map((e) => e.type) };
}
