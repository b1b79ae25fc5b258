import { setImmediate } from 'node:timers/promises';
import { abortError } from '../abort-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { columnSource, lazyBatch } from '../arrow/columnar-batch.js';
import { ArrowColumn, selectColumn, sliceColumn, valuesColumn } from '../arrow/column-source.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { ArrowForm, ColumnSource } from '../arrow/column-source.js';
import { concatData } from '../arrow/concat-data.js';
import type { OperatorMetrics } from '../exec-context.js';
import type { ScanTaskCounters } from '../../lake/index.js';
import type { OutputColumn, PhysicalPlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';
import type { Operator } from './operator.js';

/** Rows per output batch. */
export const BATCH_ROWS = 8192;

/**
 * Longest stretch (ms) a run computes before letting I/O in — a CancelRequest, other
 * sessions. A short query that arrives while a long one runs (a dashboard's read beside a
 * view's refresh) waits this long at each of its own I/O waits; a yield costs microseconds.
 */
const YIELD_EVERY_MS = 5;

/** Lets the event loop run when this query has held it for a while, then checks for cancellation. */
export async function breathe(run: RunState): Promise<void> {
  const now = performance.now();
  if (now - run.lastYield.at >= YIELD_EVERY_MS) {
    await setImmediate();
    run.lastYield.at = performance.now();
  }
  checkAbort(run);
}

export function checkAbort(run: RunState): void {
  if (run.signal?.aborted) throw abortError(run.signal);
}

function metricsFor(plan: PhysicalPlan, run: RunState): OperatorMetrics | undefined {
  const m = run.ctx.metrics;
  if (!m) return undefined;
  let e = m.get(plan);
  if (!e) {
    e = { rowsOut: 0, batchesOut: 0, elapsedNs: 0n, extra: {} };
    m.set(plan, e);
  }
  return e;
}

/** Extra per-operator counters for EXPLAIN ANALYZE (files scanned, groups, …). */
export function recordMetric(plan: PhysicalPlan, run: RunState, name: string, value: number | string): void {
  const m = metricsFor(plan, run);
  if (!m) return;
  const prev = m.extra[name];
  m.extra[name] = typeof value === 'number' && typeof prev === 'number' ? prev + value : value;
}

/** A lake scan's task counters (row groups read and skipped, merges), for EXPLAIN ANALYZE. */
export function recordScanCounters(plan: PhysicalPlan, run: RunState, counters: ScanTaskCounters): void {
  recordMetric(plan, run, 'rowGroupsRead', counters.rowGroupsRead);
  recordMetric(plan, run, 'rowGroupsSkippedByStats', counters.rowGroupsSkippedByStats);
  if (counters.rowGroupCacheHits !== undefined) recordMetric(plan, run, 'rowGroupCacheHits', counters.rowGroupCacheHits);
  if (counters.merges !== undefined) recordMetric(plan, run, 'merges', counters.merges);
  if (counters.mergesKept !== undefined) recordMetric(plan, run, 'mergesKept', counters.mergesKept);
}

/**
 * Output rows of a plan node whose work ran elsewhere (a scan, filter or
 * project folded into a worker's partial aggregate), for EXPLAIN ANALYZE.
 */
export function recordRowsOut(plan: PhysicalPlan, run: RunState, rows: number, batches: number): void {
  const m = metricsFor(plan, run);
  if (!m) return;
  m.rowsOut += rows;
  m.batchesOut += batches;
}

/** An operator whose every run is one metered stream, `source(run)`: most operators are this and a constructor's checks. */
export function meteredOperator(plan: PhysicalPlan, source: (run: RunState) => AsyncGenerator<ColumnarBatch>): Operator {
  return { plan, columns: plan.columns, execute: (run) => metered(plan, run, () => source(run)) };
}

/**
 * Wraps an operator's batch generator with baseline metrics (rows out, batches,
 * inclusive elapsed time) and cancellation checks between batches.
 */
export function metered(plan: PhysicalPlan, run: RunState, source: () => AsyncGenerator<ColumnarBatch>): AsyncIterable<ColumnarBatch> {
  return {
    [Symbol.asyncIterator]() {
      const m = metricsFor(plan, run);
      const it = source();
      return {
        async next() {
          try {
            await breathe(run);
          } catch (e) {
            // A consumer whose next() rejects never calls return(): close the operator here so its
            // finally blocks (spill files, worker tasks) run now.
            await it.return(undefined).catch(() => undefined);
            throw e;
          }
          const t0 = m ? process.hrtime.bigint() : 0n;
          try {
            const r = await it.next();
            if (m && !r.done) {
              if (m.batchesOut === 0) m.extra.firstBatchNs = Number(m.elapsedNs + (process.hrtime.bigint() - t0));
              m.rowsOut += r.value.numRows;
              m.batchesOut++;
            }
            return r;
          } finally {
            if (m) m.elapsedNs += process.hrtime.bigint() - t0;
          }
        },
        async return(value?: unknown) {
          await it.return(undefined);
          return { done: true as const, value: value as ColumnarBatch };
        },
      };
    },
  };
}

export function typesOf(columns: readonly OutputColumn[]): SqlType[] {
  return columns.map((c) => c.type);
}

/** The non-empty batches of a child operator, letting other work in between. */
export async function* inputBatches(input: Operator, run: RunState): AsyncGenerator<ColumnarBatch> {
  for await (const b of input.execute(run)) {
    await breathe(run);
    if (b.numRows === 0) continue;
    yield b;
  }
}

/** Splits columns into output batches of at most BATCH_ROWS rows. */
export function* emitBatches(values: readonly ColumnSource[], numRows: number): Generator<ColumnarBatch> {
  if (numRows <= BATCH_ROWS) {
    if (numRows > 0) yield lazyBatch(numRows, values);
    return;
  }
  for (let start = 0; start < numRows; start += BATCH_ROWS) {
    const end = Math.min(numRows, start + BATCH_ROWS);
    yield lazyBatch(end - start, values.map((v) => sliceColumn(v, start, end)));
  }
}

/** emitBatches over decoded columns. */
export function emitValues(columns: readonly (readonly unknown[])[], numRows: number): Generator<ColumnarBatch> {
  return emitBatches(columns.map(valuesColumn), numRows);
}

export function selectRows(batch: ColumnarBatch, sel: ArrayLike<number>): ColumnarBatch {
  const sources: ColumnSource[] = [];
  for (let c = 0; c < batch.columns.length; c++) sources.push(selectColumn(columnSource(batch, c), sel));
  return lazyBatch(sel.length, sources);
}

/** Materializes a whole input into column arrays (for pipeline breakers). */
export async function collectInput(input: Operator, run: RunState, what: string): Promise<{ columns: readonly (readonly unknown[])[]; numRows: number; bytes: number }> {
  const batches: ColumnarBatch[] = [];
  let n = 0;
  let bytes = 0;
  for await (const b of inputBatches(input, run)) {
    batches.push(b);
    n += b.numRows;
    const est = estimateBytes(b);
    bytes += est;
    run.memory.reserve(est, what);
  }
  const sources = input.columns.map((_, c) => concatColumn(batches, c));
  return { columns: lazyBatch(n, sources).columns, numRows: n, bytes };
}

/**
 * Column `c` of several batches as one: Arrow data when no batch has decoded it
 * (one copy of its buffers, decoded only if read), else values copied one by one.
 */
export function concatColumn(batches: readonly ColumnarBatch[], c: number): ColumnSource {
  const parts: ArrowForm[] = [];
  for (const b of batches) {
    const p = columnSource(b, c);
    if (p.kind === 'values') break;
    parts.push(p);
  }
  if (parts.length > 0 && parts.length === batches.length) {
    const data = concatData(parts.map((p) => p.data));
    if (data) return new ArrowColumn(data, parts[0]!.type);
  }
  const out: unknown[] = [];
  for (const b of batches) {
    const src = b.columns[c]!;
    for (let i = 0; i < b.numRows; i++) out.push(src[i]);
  }
  return valuesColumn(out);
}

/** Coarse size of a batch once decoded: 16 bytes per value plus string payloads. */
export function estimateBytes(b: ColumnarBatch): number {
  let bytes = 0;
  for (let c = 0; c < b.columns.length; c++) {
    const col = columnSource(b, c);
    if (col.kind !== 'values') {
      // Not decoded: its string bytes stand in for the strings it would become (a share of
      // them for rows still selected from larger data, which is not gathered to be measured).
      const data = col.base;
      const share = col.rows === undefined || data.length === 0 ? 1 : col.rows.length / data.length;
      // A list (array) column has offsets but its values in a child: only strings and binaries count here.
      const payload = data.valueOffsets ? (data.values as Uint8Array | undefined)?.byteLength ?? 0 : 0;
      bytes += b.numRows * 16 + Math.ceil(payload * 2 * share);
      continue;
    }
    const values = col.values;
    bytes += values.length * 16;
    const sample = values.length > 0 ? values[0] : undefined;
    if (typeof sample === 'string') {
      for (let i = 0; i < values.length; i++) { const v = values[i]; if (typeof v === 'string') bytes += v.length * 2; }
    }
  }
  return bytes + 64;
}

export function rowAt(cols: readonly (readonly unknown[])[], i: number): unknown[] {
  return cols.map((c) => c[i]);
}
