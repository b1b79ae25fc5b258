import type { LogicalPlan } from '../../planner/index.js';
import type { BoundStatement } from '../bound-statement.js';
import type { ResultColumn } from '../result-column.js';
import type { BindContext } from './bind-context.js';

export function finishDml(ctx: BindContext, plan: LogicalPlan, columns: readonly ResultColumn[], commandTag: (n: number) => string): BoundStatement {
  return { kind: 'dml', logical: plan, columns, commandTag, paramTypes: ctx.finalParamTypes() };
}
