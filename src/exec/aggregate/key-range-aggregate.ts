import { addScanTaskCounters } from '../../lake/index.js';
import type { ScanTask, ScanTaskCounters } from '../../lake/index.js';
import type { SqlType } from '../../common/sql-type.js';
import { columnSource, decodeColumns, encodeColumnar, lazyBatch } from '../arrow/columnar-batch.js';
import { packBatches, unpackBatches } from '../arrow/batch-transfer.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { HashAggregatePlan, KeyRangeSplit, ScanFilterSpec } from '../plan/physical-plan.js';
import type { KeyRangeAggregateResult, ScanFragment } from '../pool/scan-pool.js';
import type { RunState } from '../run-state.js';
import { AggregateTable } from './aggregate-table.js';
import { planLakeScan, runtimeFilterHook, taskRows, withRuntimeFilters } from '../operators/lake-scan-operator.js';
import { checkAbort, emitBatches, recordMetric, recordScanCounters, recordRowsOut, selectRows } from '../operators/operator-support.js';
import { fragmentRunState, shipmentFragment, sinkScanTasks } from './partial-aggregate.js';
import { compileExpr, truthySelection } from '../expr/compile-expr.js';
import type { AggregateShipment, CompiledShipment } from './partial-aggregate.js';

/**
 * The scan filters of `parts` ranges of the split key over [min, max], each range as
 * wide as the others (within one). The first range has no lower bound and the last no
 * upper one, so rows outside the statistics' [min, max] (changes written since they
 * were read) still fall in a range; consecutive ranges share a bound, so none is
 * missed or counted twice.
 */
export function keyRangeFilters(split: KeyRangeSplit, type: SqlType, parts: number): ScanFilterSpec[][] {
  const lo = Math.ceil(split.min);
  const span = Math.floor(split.max) - lo + 1;
  const n = Math.max(1, Math.min(parts, Number.isFinite(span) ? span : 1));
  const bound = (i: number): number | bigint => {
    const b = lo + Math.floor((span * i) / n);
    return type.kind === 'int8' ? BigInt(b) : b;
  };
  return Array.from({ length: n }, (_, i) => [
    ...(i > 0 ? [{ column: split.column, op: '>=' as const, value: bound(i) }] : []),
    ...(i < n - 1 ? [{ column: split.column, op: '<' as const, value: bound(i + 1) }] : []),
  ]);
}

/**
 * Runs the shipment's aggregate split by ranges of the plan's key, one range per
 * worker: each reads every task for its range's rows and finishes its groups, so this
 * thread only passes the rows on — where merging a partial per task would rebuild
 * as many groups as the scan has keys here (4.7M partial groups into 1.5M for 6M rows).
 * Undefined (nothing done) when the pool cannot take it.
 */
export async function runKeyRangeAggregate(
  plan: HashAggregatePlan, shipment: AggregateShipment, run: RunState,
): Promise<{ batches: ColumnarBatch[]; bytes: number; groups: number } | undefined> {
  const split = plan.keyRangeSplit;
  const pool = run.ctx.pool;
  if (split === undefined || !pool?.aggregateRange || run.ctx.scanRunner) return undefined;
  const at = shipment.scan.projection.indexOf(split.column);
  if (at < 0) return undefined;
  const aggregateRange = pool.aggregateRange.bind(pool);
  const tasks = await planLakeScan(shipment.scan, run);
  const ranges = keyRangeFilters(split, shipment.scan.columns[at]!.type, pool.size);
  const slots = run.runtimeFilters?.get(shipment.scan);
  const rtf = slots ? runtimeFilterHook(shipment.scan, run, slots) : undefined;
  const fragment: ScanFragment = { ...shipmentFragment(shipment, run), finish: plan.columns, ...(plan.having ? { having: plan.having } : {}) };
  const counters: ScanTaskCounters = { rowGroupsRead: 0, rowGroupsSkippedByStats: 0 };
  let rowsScanned = 0;
  const rowsOut = shipment.nodes.map(() => 0);
  const batchesOut = shipment.nodes.map(() => 0);
  const results = await Promise.all(ranges.map(async (filters): Promise<KeyRangeAggregateResult> => {
    const ranged = tasks.map((t): ScanTask => ({ ...t, filters: [...t.filters, ...filters] }));
    // Runtime filters installed by a join above, read as the range launches.
    const r = await aggregateRange(ranged, run.signal, rtf ? withRuntimeFilters(fragment, rtf.filters()) : fragment);
    checkAbort(run);
    rowsScanned += r.rowsScanned;
    addScanTaskCounters(counters, r.counters);
    rtf?.removedElsewhere(r.runtimeFilterRowsRemoved ?? 0);
    r.rowsOut.forEach((n, i) => { rowsOut[i]! += n; batchesOut[i]! += r.batchesOut[i]!; });
    return r;
  }));
  recordMetric(shipment.scan, run, 'rowsScanned', rowsScanned);
  recordScanCounters(shipment.scan, run, counters);
  shipment.nodes.forEach((n, i) => recordRowsOut(n, run, rowsOut[i]!, batchesOut[i]!));
  recordMetric(plan, run, 'keyRanges', ranges.length);
  rtf?.done();
  const names = plan.columns.map((c) => c.name);
  const types = plan.columns.map((c) => c.type);
  const batches: ColumnarBatch[] = [];
  let bytes = 0;
  let groups = 0;
  for (const r of results) {
    bytes += r.packed.byteLength;
    groups += r.groups;
    for (const b of unpackBatches(r.packed, 0)) {
      const decoded = decodeColumns(b, names, types);
      batches.push(...emitBatches(types.map((_, i) => columnSource(decoded, i)), decoded.numRows));
    }
  }
  return { batches, bytes, groups };
}

/**
 * A key range's aggregate in a worker: reads `tasks` (which carry the range's
 * filters) into one table and finishes its groups — no other range holds rows of
 * them — those that pass the fragment's `having` — as its `finish` columns, packed into
 * one buffer (batch-transfer.ts).
 */
export async function aggregateKeyRange(
  tasks: readonly ScanTask[], fragment: ScanFragment, compiled: CompiledShipment, signal?: AbortSignal,
): Promise<KeyRangeAggregateResult> {
  const table = new AggregateTable(compiled.aggregation, { expectedRows: taskRows(tasks) });
  try {
    const counts = await sinkScanTasks(tasks, fragment, compiled, (b, run) => table.sink(b, run), signal);
    const { columns, numRows } = table.finish(false);
    let kept = lazyBatch(numRows, columns);
    if (fragment.having !== undefined && numRows > 0) {
      const keep = truthySelection(await compileExpr(fragment.having).evaluate(kept, fragmentRunState(fragment, signal)), numRows);
      if (keep.length !== numRows) kept = selectRows(kept, keep);
    }
    const packed = packBatches(kept.numRows === 0 ? [] : [encodeColumnar(fragment.finish!, kept)], 0);
    return { ...counts, packed, groups: numRows };
  } finally {
    table.release();
  }
}
