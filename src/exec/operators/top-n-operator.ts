import type { TopNPlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { evalCount } from './limit-operator.js';
import { emitValues, inputBatches, meteredOperator } from './operator-support.js';
import { compileSortKeys } from './sort-keys.js';
import type { CompiledSortKeys } from './sort-keys.js';
import { columnSource } from '../arrow/columnar-batch.js';
import { decodeColumn, selectColumn } from '../arrow/column-source.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';

/**
 * ORDER BY … LIMIT: keeps at most about 2×(limit+offset) candidate rows (and
 * the batches they are in), pruning by sort whenever the buffer fills, so
 * memory stays bounded by the limit. A candidate is its sort keys and where its row is; once the buffer
 * holds a full set, a row that does not beat the worst of it is passed over
 * on its keys alone, and only the rows finally kept are decoded.
 */
export function createTopNOperator(plan: TopNPlan, input: Operator): Operator {
  const keys = compileSortKeys(plan.keys);
  return meteredOperator(plan, (run) => topBatches(plan, input, keys, run));
}

/** The first limit+offset rows in key order, less the offset. */
async function* topBatches(plan: TopNPlan, input: Operator, keys: CompiledSortKeys, run: RunState): AsyncGenerator<ColumnarBatch> {
  const limit = await evalCount(plan.limit, run, 'LIMIT');
  const offset = (await evalCount(plan.offset, run, 'OFFSET')) ?? 0;
  const keep = limit === undefined ? Infinity : limit + offset;
  if (keep === 0) return;
  // Per candidate: its key values, its batch (by arrival number), its row there and its arrival order.
  let keyRows: unknown[][] = plan.keys.map(() => []);
  let batchOf: number[] = [];
  let rowOf: number[] = [];
  let seq: number[] = [];
  let n = 0;
  let nextSeq = 0;
  const batches = new Map<number, ColumnarBatch>();
  /** The last candidate of a full set after a prune: later rows must beat it (ties keep arrival order). */
  let worst = -1;
  const prune = (target: number) => {
    const idx = Array.from({ length: n }, (_, i) => i);
    const cmp = keys.comparator(keyRows);
    // Ties keep arrival order, as a stable sort of the whole input would.
    idx.sort((a, b) => cmp(a, b) || seq[a]! - seq[b]!);
    const kept = idx.slice(0, Math.min(target, n));
    keyRows = keyRows.map((c) => kept.map((i) => c[i]));
    batchOf = kept.map((i) => batchOf[i]!);
    rowOf = kept.map((i) => rowOf[i]!);
    seq = kept.map((i) => seq[i]!);
    n = kept.length;
    worst = n === target ? n - 1 : -1;
    const live = new Set(batchOf);
    for (const b of batches.keys()) if (!live.has(b)) batches.delete(b);
  };
  let arrived = 0;
  const room = Math.max(2 * keep, 1024);
  for await (const b of inputBatches(input, run)) {
    const k = await keys.evaluate(b, run);
    const bi = arrived++;
    // A batch is offered a buffer's worth at a time, so a large one (an aggregate's 11k groups in one
    // batch) is pruned early and its later rows are passed over on their keys, not all sorted.
    const step = keep === Infinity ? b.numRows : room;
    for (let from = 0; from < b.numRows; from += step) {
      const added = offerRows(keys, k, from, Math.min(b.numRows, from + step), bi, { keyRows, batchOf, rowOf, seq, worst }, nextSeq);
      if (added > 0) { n += added; batches.set(bi, b); }
      if (keep !== Infinity && n > room) prune(keep);
    }
    nextSeq += b.numRows;
  }
  prune(keep);
  const rows = Math.max(0, n - offset);
  const out: unknown[][] = plan.columns.map(() => new Array<unknown>(rows));
  // Each batch's kept rows, decoded together: a column nobody sorted on is decoded only for them.
  const at = new Map<number, number[]>();
  for (let j = offset; j < n; j++) {
    const list = at.get(batchOf[j]!);
    if (list === undefined) at.set(batchOf[j]!, [j]); else list.push(j);
  }
  for (const [bi, positions] of at) {
    const b = batches.get(bi)!;
    const sel = Int32Array.from(positions, (j) => rowOf[j]!);
    for (let c = 0; c < out.length; c++) {
      const values = decodeColumn(selectColumn(columnSource(b, c), sel));
      for (let p = 0; p < positions.length; p++) out[c]![positions[p]! - offset] = values[p];
    }
  }
  yield* emitValues(out, rows);
}

/** Where the candidates are kept (arrays appended to) and the worst kept one (-1: none yet). */
interface Candidates {
  readonly keyRows: unknown[][];
  readonly batchOf: number[];
  readonly rowOf: number[];
  readonly seq: number[];
  readonly worst: number;
}

/**
 * Appends the rows [from, to) of one batch that beat the worst kept candidate (all of
 * them before a prune), numbered in arrival order from `firstSeq` (the batch's row 0);
 * returns how many.
 * A plain function, not inline in the operator's generator: V8 does not optimize a
 * loop inside a running generator, and the operator's generator runs once a query.
 */
function offerRows(keys: CompiledSortKeys, k: readonly (readonly unknown[])[], from: number, to: number, bi: number, c: Candidates, firstSeq: number): number {
  const { keyRows, batchOf, rowOf, seq, worst } = c;
  let added = 0;
  for (let i = from; i < to; i++) {
    if (worst >= 0 && keys.compareRows(k, i, keyRows, worst) >= 0) continue;
    for (let col = 0; col < keyRows.length; col++) keyRows[col]!.push(k[col]![i]);
    batchOf.push(bi);
    rowOf.push(i);
    seq.push(firstSeq + i);
    added++;
  }
  return added;
}
