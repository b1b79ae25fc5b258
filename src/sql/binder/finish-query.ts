import { optimizeLogicalPlan } from '../../planner/optimizer.js';
import { toPhysicalPlan } from '../../planner/physical/to-physical-plan.js';
import type { BoundStatement } from '../bound-statement.js';
import type { BindContext, BoundQuery } from './bind-context.js';

/** Optimizes and physically plans a bound query into the statement the session runs. */
export function finishQuery(ctx: BindContext, q: BoundQuery): Extract<BoundStatement, { kind: 'query' }> {
  const plan = toPhysicalPlan(optimizeLogicalPlan(q.plan).plan);
  return {
    kind: 'query', plan,
    columns: q.columns.map((c) => ({ name: c.name, type: c.type, tableOid: c.tableOid, columnNumber: c.columnNumber })),
    paramTypes: ctx.finalParamTypes(),
  };
}
