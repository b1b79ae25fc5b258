import type { BoundStatement } from '../bound-statement.js';
import type { BindContext, BoundQuery } from './bind-context.js';
import { Exprs } from '../../exec/index.js';
import { LogicalProject } from '../../planner/index.js';

/** Hidden helper columns (composite fields) never reach the client. */
function withoutHiddenColumns(q: BoundQuery): BoundQuery {
  if (!q.columns.some((c) => c.hidden)) return q;
  const keep = q.columns.filter((c) => !c.hidden);
  const plan = LogicalProject.create({
    input: q.plan, exprs: keep.map((c) => Exprs.column(c.index, c.type, c.name)), columns: keep.map((c) => ({ name: c.name, type: c.type })),
  });
  return { plan, columns: keep.map((c, i) => ({ ...c, index: i })) };
}

/** A bound query as the statement the session plans and runs. */
export function finishQuery(ctx: BindContext, q0: BoundQuery): Extract<BoundStatement, { kind: 'query' }> {
  const q = withoutHiddenColumns(q0);
  return {
    kind: 'query', logical: q.plan,
    columns: q.columns.map((c) => ({ name: c.name, type: c.type, tableOid: c.tableOid, columnNumber: c.columnNumber })),
    paramTypes: ctx.finalParamTypes(),
  };
}
