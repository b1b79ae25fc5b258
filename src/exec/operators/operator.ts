import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { OutputColumn, PhysicalPlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';

/**
 * A physical operator: validated at construction, stateless afterwards.
 * `execute` returns a lazy stream; all run state lives in that stream's closure.
 * Operators hand each other ColumnarBatches, not Arrow record batches: a column
 * still standing for some rows of Arrow data (a join's or a filter's selection)
 * or holding computed values crosses to the next operator as it is, and is
 * gathered or encoded only where it is read as Arrow (the result, a spill, a
 * worker) — executePlan encodes what the plan returns.
 */
export interface Operator {
  readonly plan: PhysicalPlan;
  readonly columns: readonly OutputColumn[];
  execute(run: RunState): AsyncIterable<ColumnarBatch>;
}
