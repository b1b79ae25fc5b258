import type { TopNPlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { evalCount } from './limit-operator.js';
import { inputBatches, emitBatches, metered } from './operator-support.js';
import { compileSortKeys } from './sort-keys.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';

/**
 * ORDER BY … LIMIT: keeps at most about 2×(limit+offset) candidate rows,
 * pruning by sort whenever the buffer fills, so memory stays bounded by the limit.
 */
export function createTopNOperator(plan: TopNPlan, input: Operator): Operator {
  const keys = compileSortKeys(plan.keys);
  return {
    plan,
    columns: plan.columns,
    execute(run) {
      return metered(plan, run, async function* (): AsyncGenerator<ColumnarBatch> {
        const limit = await evalCount(plan.limit, run, 'LIMIT');
        const offset = (await evalCount(plan.offset, run, 'OFFSET')) ?? 0;
        const keep = limit === undefined ? Infinity : limit + offset;
        if (keep === 0) return;
        let rows: unknown[][] = plan.columns.map(() => []);
        let keyRows: unknown[][] = plan.keys.map(() => []);
        let n = 0;
        let seq: number[] = [];
        let nextSeq = 0;
        const prune = (target: number) => {
          const idx = Array.from({ length: n }, (_, i) => i);
          const cmp = keys.comparator(keyRows);
          // Ties keep arrival order, as a stable sort of the whole input would.
          idx.sort((a, b) => cmp(a, b) || seq[a]! - seq[b]!);
          const kept = idx.slice(0, Math.min(target, n));
          rows = rows.map((c) => kept.map((i) => c[i]));
          keyRows = keyRows.map((c) => kept.map((i) => c[i]));
          seq = kept.map((i) => seq[i]!);
          n = kept.length;
        };
        for await (const b of inputBatches(input, run)) {
          const k = await keys.evaluate(b, run);
          for (let i = 0; i < b.numRows; i++) {
            for (let c = 0; c < rows.length; c++) rows[c]!.push(b.columns[c]![i]);
            for (let c = 0; c < keyRows.length; c++) keyRows[c]!.push(k[c]![i]);
            seq.push(nextSeq++);
            n++;
          }
          if (keep !== Infinity && n > Math.max(2 * keep, 1024)) prune(keep);
        }
        prune(keep);
        const out = rows.map((c) => c.slice(offset));
        yield* emitBatches(out, Math.max(0, n - offset));
      });
    },
  };
}
