import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { CteScanPlan, MaterializedCte } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';
import { buildOperator } from './build-operator.js';
import type { Operator } from './operator.js';
import { estimateBytes, meteredOperator } from './operator-support.js';

/**
 * The WITH query's rows, computed by the first of its scans to run and kept
 * for the others (charged to the query's memory): as PostgreSQL, a WITH query
 * read twice runs once, so both readers see the same rows — random() included —
 * and an aggregating WITH query read twice is aggregated once, not once per reader.
 */
export function materialize(cte: MaterializedCte, run: RunState): Promise<readonly ColumnarBatch[]> {
  let rows = run.ctes.get(cte);
  if (rows === undefined) {
    rows = (async () => {
      const out: ColumnarBatch[] = [];
      for await (const b of buildOperator(cte.plan).execute(run)) {
        run.memory.reserve(estimateBytes(b), `WITH query "${cte.name}"`);
        out.push(b);
      }
      return out;
    })();
    run.ctes.set(cte, rows);
  }
  return rows;
}

export function createCteScanOperator(plan: CteScanPlan): Operator {
  return meteredOperator(plan, (run) => cteRows(plan, run));
}

/** The CTE's rows, materialized by its first reader of the run. */
async function* cteRows(plan: CteScanPlan, run: RunState): AsyncGenerator<ColumnarBatch> {
  yield* await materialize(plan.cte, run);
}
