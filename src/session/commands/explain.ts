import {
  askLakeToPlanScanIn, type ExecContext, executePlan, type LakeScanPlan, type OperatorMetrics, type PhysicalPlan,
  planInputs,
} from '../../exec/index.js';
import type { StatementResult } from '../../common/session-handler.js';
import { explainTree } from '../../planner/index.js';
import type { ExplainNode, ScanReport } from '../../planner/index.js';
import type { UtilityCommand } from '../../sql/index.js';
import { explainResult } from '../explain-result.js';
import { memoryRows } from '../result-columns.js';
import type { SessionContext } from '../session-context.js';
import type { UtilityHandlers } from './utility-handler.js';
import { runDml } from '../run-statement.js';

export const explainCommands: Pick<UtilityHandlers, 'explain'> = {
  explain: (ctx, c, signal, params) => explain(ctx, c, signal, params),
};

/**
 * EXPLAIN: the plan with what the lake's planScan reports for each scan (tasks,
 * pruning). ANALYZE also runs it (writes included, as PostgreSQL does): a query
 * prints each operator's rows and inclusive time from the executor's metrics
 * (src/planner/explain/explain-plan.ts documents the line format); DML prints
 * the totals. TIMING OFF and SUMMARY OFF work as in PostgreSQL.
 */
async function explain(ctx: SessionContext, c: Extract<UtilityCommand, { kind: 'explain' }>, signal: AbortSignal, params: readonly unknown[]): Promise<StatementResult> {
  const st = c.statement;
  if (st.kind !== 'query' && st.kind !== 'dml') {
    return explainResult({ title: 'Utility Statement', details: [], children: [] }, c.options.format, undefined, (cols, rows) => memoryRows(cols, rows, 'EXPLAIN'));
  }
  const opts = c.options;
  const plan = ctx.physicalPlan(st);
  const scans = new Map<LakeScanPlan, ScanReport>();
  const visit = async (p: PhysicalPlan): Promise<void> => {
    if (p.kind === 'lakeScan') {
      const sp = await askLakeToPlanScanIn(p, ctx.execContext([], signal, ctx.transaction.current?.lake));
      // Parameter filters have no value to push here: their pushdown shows as nothing.
      const bound = p.filters.filter((f) => f.param === undefined);
      const pushdown = p.filters.map((f) => (f.param === undefined ? sp.pushdown[bound.indexOf(f)] : undefined));
      scans.set(p, { snapshotId: sp.snapshotId, tasks: sp.tasks.length, pushdown, stats: sp.stats });
    }
    for (const child of planInputs(p)) await visit(child);
  };
  await visit(plan);
  if (!opts.analyze) return explainResult(explainTree(plan, scans), opts.format, undefined, (cols, rows) => memoryRows(cols, rows, 'EXPLAIN'));
  const started = process.hrtime.bigint();
  let rows = 0;
  let tree: ExplainNode;
  if (st.kind === 'query') {
    const metrics = new Map<PhysicalPlan, OperatorMetrics>();
    const run: ExecContext = { ...ctx.execContext(params, signal, ctx.transaction.current?.lake), metrics };
    for await (const b of executePlan(plan, run)) rows += b.numRows;
    tree = explainTree(plan, scans, { metrics, timing: opts.timing });
  } else {
    const r = await runDml(ctx, st, params, signal);
    if (r.kind === 'rows') for await (const b of r.batches) rows += b.numRows;
    else rows = Number(/(\d+)$/.exec(r.kind === 'command' ? r.tag : '')?.[1] ?? 0);
    tree = explainTree(plan, scans);
  }
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  return explainResult(tree, opts.format, opts.summary ? { rows, elapsedMs: elapsed } : undefined, (cols, r) => memoryRows(cols, r, 'EXPLAIN'));
}
