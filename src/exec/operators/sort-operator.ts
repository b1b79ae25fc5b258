import type { RecordBatch } from 'apache-arrow';
import type { SortPlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { collectInput, emitBatches, metered } from './operator-support.js';
import { compileSortKeys } from './sort-keys.js';

/**
 * ORDER BY: sink every input row (accounted against the query's memory limit),
 * then sort row indexes once (stable, so equal keys keep input order) and emit.
 */
export function createSortOperator(plan: SortPlan, input: Operator): Operator {
  const keys = compileSortKeys(plan.keys);
  return {
    plan,
    columns: plan.columns,
    execute(run) {
      return metered(plan, run, async function* (): AsyncGenerator<RecordBatch> {
        const all = await collectInput(input, run, 'sort');
        try {
          const keyCols = await keys.evaluate({ numRows: all.numRows, columns: all.columns }, run);
          const idx = Array.from({ length: all.numRows }, (_, i) => i);
          idx.sort(keys.comparator(keyCols));
          const cols = all.columns.map((c) => idx.map((i) => c[i]));
          yield* emitBatches(plan.columns, cols, all.numRows);
        } finally {
          run.memory.release(all.bytes);
        }
      });
    },
  };
}
