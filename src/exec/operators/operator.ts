import type { RecordBatch } from 'apache-arrow';
import type { OutputColumn, PhysicalPlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';

/**
 * A physical operator: validated at construction, stateless afterwards.
 * `execute` returns a lazy stream; all run state lives in that stream's closure.
 */
export interface Operator {
  readonly plan: PhysicalPlan;
  readonly columns: readonly OutputColumn[];
  execute(run: RunState): AsyncIterable<RecordBatch>;
}
