import { optimizeLogicalPlan } from '../../planner/optimizer.js';
import { toPhysicalPlan } from '../../planner/physical/to-physical-plan.js';
import type { LogicalPlan } from '../../planner/logical/logical-plan.js';
import type { BoundStatement } from '../bound-statement.js';
import type { ResultColumn } from '../result-column.js';
import type { BindContext } from './bind-context.js';

export function finishDml(ctx: BindContext, plan: LogicalPlan, columns: readonly ResultColumn[], commandTag: (n: number) => string): BoundStatement {
  const physical = toPhysicalPlan(optimizeLogicalPlan(plan).plan);
  return { kind: 'dml', plan: physical, columns, commandTag, paramTypes: ctx.finalParamTypes() };
}
