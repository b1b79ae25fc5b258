import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import { executeScanTask } from '../../lake/index.js';
import type { RowNarrower, ScanTask, ScanTaskCounters } from '../../lake/index.js';
import { askLakeToPlanScan } from './ask-lake-to-plan-scan.js';
import { keyLookupLabel } from './key-lookup.js';
import { decodeColumns, encodeColumnar, lazyBatch } from '../arrow/columnar-batch.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import { compileExpr, truthySelection } from '../expr/compile-expr.js';
import type { CompiledExpr } from '../expr/compile-expr.js';
import { compileProjection } from '../expr/compile-projection.js';
import type { CompiledProjection } from '../expr/compile-projection.js';
import type { LakeScanPlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';
import type { Operator } from './operator.js';
import type { ScanFragment } from '../pool/scan-pool.js';
import { Exprs } from '../expr/expr.js';
import type { Expr } from '../expr/expr.js';
import { shippable } from '../expr/expr.js';
import { checkAbort, meteredOperator, recordMetric, recordScanCounters, selectRows } from './operator-support.js';
import { coversRange, installedFilters, RUNTIME_FILTER_REMOVED_KEY, runtimeFilterLabel, runtimeFilterSelection } from './runtime-filter.js';
import type { RuntimeFilter, RuntimeFilterSlot } from './runtime-filter.js';

/**
 * Scans a lake table: asks the lake to plan the scan (pruning, pushdown) at
 * execution time, runs its tasks — on the worker pool when the context has one,
 * several at a time, else in this thread — and applies the residual filter and
 * limit to what comes back.
 */
export function createLakeScanOperator(plan: LakeScanPlan): Operator {
  if (plan.projection.length !== plan.columns.length) {
    throw new FloeError(SqlState.internalError, `lakeScan projects ${plan.projection.length} columns but lists ${plan.columns.length}`);
  }
  // Conjuncts a worker can evaluate travel with the tasks; the rest (those with subqueries:
  // `balance > (SELECT avg …)`) run here, on the rows the workers kept.
  const { travels, stays } = splitResidual(plan.residual);
  const travelling = travels ? compileExpr(travels) : undefined;
  const staying = stays ? compileExpr(stays) : undefined;
  const residual: SplitResidual = { travels, travelling, staying };
  const types = plan.columns.map((c) => c.type);
  return meteredOperator(plan, (run) => scanBatches(plan, residual, types, run));
}

/** A scan's residual: the conjuncts that may run in a worker, compiled, and those that stay in this thread. */
interface SplitResidual {
  readonly travels: Expr | undefined;
  readonly travelling: CompiledExpr | undefined;
  readonly staying: CompiledExpr | undefined;
}

async function* scanBatches(plan: LakeScanPlan, residual: SplitResidual, types: readonly SqlType[], run: RunState): AsyncGenerator<ColumnarBatch> {
  const { travels, travelling, staying } = residual;
  const planned = await planLakeScan(plan, run);
  // A point read runs here, its base row groups through the process's row-group cache;
  // a key lookup's, and those of a scan planned to keep them, go through the cache of the thread that runs it.
  const cached = plan.pointRead === true || plan.keepDecoded === true || planned.some((t) => t.keyHashes !== undefined);
  const tasks = cached ? planned.map((t): ScanTask => ({ ...t, cacheRowGroups: true })) : planned;
  let left = plan.limit ?? Infinity;
  if (left <= 0) return;
  // Workers filter their own tasks' rows when the residual can travel, and
  // apply the runtime join filters a hash join above installed for this scan.
  const slots = run.runtimeFilters?.get(plan);
  const fragment: ScanFragment | undefined = (travels || slots) && run.ctx.pool && !run.ctx.scanRunner
    ? {
        columns: plan.columns, projection: plan.projection, ...(travels ? { residual: travels } : {}), params: run.params,
        settings: [...run.evalCtx.settings], transactionStartMicros: run.evalCtx.transactionStartMicros,
        user: run.evalCtx.user, database: run.evalCtx.database, searchPath: run.evalCtx.searchPath,
      }
    : undefined;
  const rtf = slots ? runtimeFilterHook(plan, run, slots) : undefined;
  let shipped = false;
  const counters: ScanTaskCounters = { rowGroupsRead: 0, rowGroupsSkippedByStats: 0 };
  try {
    for await (const { batch, filtered } of runTasks(tasks, run, fragment, counters, rtf, plan.pointRead)) {
      shipped ||= filtered;
      checkAbort(run);
      if (batch.numRows === 0) continue;
      recordMetric(plan, run, 'rowsScanned', batch.numRows);
      let b: ColumnarBatch = decodeColumns(batch, plan.projection, types);
      for (const part of filtered ? [staying] : [travelling, staying]) {
        if (part === undefined || b.numRows === 0) continue;
        const keep = truthySelection(await part.evaluate(b, run), b.numRows);
        if (keep.length !== b.numRows) b = selectRows(b, keep);
      }
      if (b.numRows === 0) continue;
      if (b.numRows > left) b = selectRows(b, Int32Array.from({ length: left }, (_, i) => i));
      left -= b.numRows;
      yield b;
      if (left <= 0) return;
    }
  } finally {
    recordScanCounters(plan, run, counters);
    rtf?.done();
  }
  if (shipped) recordMetric(plan, run, 'residualInWorkers', 1);
}

/**
 * Asks the lake to plan `plan`'s scan at execution time (pruning, pushdown) and
 * records the planning counters for EXPLAIN ANALYZE on the scan's node.
 */
export async function planLakeScan(plan: LakeScanPlan, run: RunState): Promise<readonly ScanTask[]> {
  const scanPlan = await askLakeToPlanScan(plan, run);
  const lookup = run.keyLookups?.get(plan);
  if (lookup !== undefined) recordMetric(plan, run, 'keyLookup', keyLookupLabel(lookup) ?? 'not applied (the scan started before the build)');
  recordMetric(plan, run, 'tasks', scanPlan.tasks.length);
  recordMetric(plan, run, 'filesTotal', scanPlan.stats.filesTotal);
  recordMetric(plan, run, 'filesPruned', scanPlan.stats.filesPruned);
  recordMetric(plan, run, 'partitionsPruned', scanPlan.stats.partitionsPruned);
  recordMetric(plan, run, 'nodesPruned', scanPlan.stats.nodesPruned);
  recordMetric(plan, run, 'changeFiles', scanPlan.stats.changeFiles);
  recordMetric(plan, run, 'baseFiles', scanPlan.stats.baseFiles);
  recordMetric(plan, run, 'partitionsTotal', scanPlan.stats.partitionsTotal);
  recordMetric(plan, run, 'rowGroupsPrunedByKey', scanPlan.stats.rowGroupsPruned);
  return scanPlan.tasks;
}

/** Stored rows a set of tasks reads (base plus change files). */
export function taskRows(tasks: readonly ScanTask[]): number {
  return tasks.reduce((n, t) => n + t.baseFiles.reduce((m, f) => m + f.rowCount, 0) + t.changeFiles.reduce((m, f) => m + f.rowCount, 0), 0);
}

/** A ScanFragment's expressions, compiled once per query (or per worker and query shape). */
export interface CompiledScanPipeline {
  readonly residual: CompiledExpr | undefined;
  readonly steps: readonly (
    | { readonly kind: 'filter'; readonly predicate: CompiledExpr }
    | { readonly kind: 'project'; readonly projection: CompiledProjection }
  )[];
}

export function compileScanPipeline(f: Pick<ScanFragment, 'residual' | 'pipeline'>): CompiledScanPipeline {
  return {
    residual: f.residual ? compileExpr(f.residual) : undefined,
    steps: (f.pipeline ?? []).map((s) => (s.kind === 'filter' ? { kind: 'filter', predicate: compileExpr(s.predicate) } : { kind: 'project', projection: compileProjection(s.exprs) })),
  };
}

/** Decodes a scan task's batch into the fragment's columns (by projected name, else position). */
export function decodeScanBatch(batch: RecordBatch, f: Pick<ScanFragment, 'columns' | 'projection'>, rows?: Int32Array): ColumnarBatch {
  return decodeColumns(batch, f.projection, f.columns.map((c) => c.type), rows);
}

/**
 * The lake's RowNarrower for a fragment's runtime filters (undefined without any):
 * the rows they drop are dropped as the scan decodes, so they are neither copied out
 * of the decoder nor merged. The consumer still applies the filters to what comes
 * back (a change row may bring back a key), counting into the same `stats`.
 */
export function runtimeFilterNarrower(f: Pick<ScanFragment, 'columns' | 'projection' | 'runtimeFilters'>, stats: { removed: number }): RowNarrower | undefined {
  const filters = f.runtimeFilters;
  if (filters === undefined || filters.length === 0) return undefined;
  const narrow = (batch: RecordBatch, rows: Int32Array | undefined): Int32Array | undefined => {
    const sel = runtimeFilterSelection(decodeScanBatch(batch, f, rows), filters, stats);
    if (sel === undefined || rows === undefined) return sel ?? rows;
    const out = new Int32Array(sel.length);
    for (let j = 0; j < sel.length; j++) out[j] = rows[sel[j]!]!;
    return out;
  };
  // The filters read only their own columns (decodeScanBatch decodes a column when it is read).
  return Object.assign(narrow, { columns: [...new Set(filters.map((rf) => f.projection[rf.column]!))] });
}

/**
 * Runs the residual filter and the Filter/Project steps over one decoded scan
 * batch; undefined when no row is left. `count(stage, rows)` hears the rows
 * that leave each stage (0 = the scan, then each step) when any are left.
 */
export async function applyScanPipeline(
  b: ColumnarBatch, p: CompiledScanPipeline, run: RunState, count?: (stage: number, rows: number) => void,
): Promise<ColumnarBatch | undefined> {
  if (p.residual) {
    const keep = truthySelection(await p.residual.evaluate(b, run), b.numRows);
    if (keep.length === 0) return undefined;
    if (keep.length !== b.numRows) b = selectRows(b, keep);
  }
  count?.(0, b.numRows);
  for (let i = 0; i < p.steps.length; i++) {
    const s = p.steps[i]!;
    if (s.kind === 'filter') {
      const keep = truthySelection(await s.predicate.evaluate(b, run), b.numRows);
      if (keep.length === 0) return undefined;
      if (keep.length !== b.numRows) b = selectRows(b, keep);
    } else {
      b = lazyBatch(b.numRows, await s.projection.evaluate(b, run));
    }
    count?.(i + 1, b.numRows);
  }
  return b;
}

/** Single-task scans up to this many stored rows run in the calling thread even when a pool is available. */
export const SAME_THREAD_MAX_ROWS = 4096;

/** Runs scan tasks with bounded concurrency and yields their batches as they complete. */
export async function* runTasks(
  tasks: readonly ScanTask[], run: RunState, fragment?: ScanFragment, counters?: ScanTaskCounters, rtf?: RuntimeFilterHook, pointRead?: boolean,
): AsyncGenerator<{ batch: RecordBatch; filtered: boolean }> {
  const ctx = run.ctx;
  const signal = run.signal ?? new AbortController().signal;
  // A tiny scan costs less in this thread than a round trip through a worker, and its row
  // groups are kept decoded (the row-group cache): reading a small hot table again (a
  // materialized view a dashboard reads, a dimension table each refresh term joins) waits on
  // no I/O, in which other work would run first. Its filters are applied to the cached rows;
  // what statistics could prune is pruned already, as a file this small is one row group and
  // planScan prunes files by the same statistics.
  const small = tasks.length === 1 && taskRows(tasks) <= SAME_THREAD_MAX_ROWS;
  const usePool = ctx.pool !== undefined && !ctx.scanRunner && pointRead !== true && !small;
  const inThread = (t: ScanTask): ScanTask => (small && t.cacheRowGroups !== true ? { ...t, cacheRowGroups: true } : t);
  // "filtered": the worker already applied the residual (runtime filters only ever remove rows on top).
  const filtered = usePool && fragment?.residual !== undefined;
  const poolRun = (t: unknown, s: AbortSignal): AsyncIterable<RecordBatch> => {
    // Filters are read as each task launches: one installed meanwhile helps the tasks still to come.
    const f = rtf && fragment ? withRuntimeFilters(fragment, rtf.filters()) : fragment;
    const it = ctx.pool!.run(t, s, f, counters);
    return f?.runtimeFilters ? rtf!.observe(it) : it;
  };
  const runner = ctx.scanRunner
    ?? (usePool ? poolRun : (t: unknown) => (rtf ? rtf.filterHere(executeScanTask(inThread(t as ScanTask), counters)) : executeScanTask(inThread(t as ScanTask), counters)));
  const concurrency = ctx.scanRunner || usePool ? Math.max(1, ctx.pool?.size ?? 2) : 1;
  if (concurrency === 1) {
    for (const t of tasks) {
      checkAbort(run);
      for await (const batch of runner(t, signal)) yield { batch, filtered };
    }
    return;
  }
  // Each in-flight task drains into its own buffer; finished buffers are yielded in completion order.
  const queue: RecordBatch[][] = [];
  let next = 0;
  let active = 0;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const notify = () => { const w = wake; wake = undefined; w?.(); };
  const launch = () => {
    while (active < concurrency && next < tasks.length && failure === undefined) {
      const t = tasks[next++]!;
      active++;
      (async () => {
        const out: RecordBatch[] = [];
        for await (const b of runner(t, signal)) out.push(b);
        return out;
      })().then((out) => { queue.push(out); }, (e) => { failure ??= e; }).finally(() => { active--; notify(); });
    }
  };
  launch();
  while (true) {
    if (failure !== undefined) throw failure;
    if (queue.length > 0) {
      const out = queue.shift()!;
      launch();
      for (const batch of out) yield { batch, filtered };
      continue;
    }
    if (active === 0 && next >= tasks.length) return;
    await new Promise<void>((r) => { wake = r; });
  }
}

/** A residual's conjuncts as those a worker can evaluate and those only this thread can (either undefined when none). */
function splitResidual(residual: Expr | undefined): { travels: Expr | undefined; stays: Expr | undefined } {
  if (residual === undefined) return { travels: undefined, stays: undefined };
  const conjuncts = residual.kind === 'and' ? residual.args : [residual];
  const and = (xs: readonly Expr[]): Expr | undefined => (xs.length === 0 ? undefined : xs.length === 1 ? xs[0] : Exprs.and(...xs));
  return { travels: and(conjuncts.filter(shippable)), stays: and(conjuncts.filter((c) => !shippable(c))) };
}

/** A scan's runtime filter slots, and the rows its workers report removing (EXPLAIN ANALYZE). */
export interface RuntimeFilterHook {
  readonly slots: readonly RuntimeFilterSlot[];
  /** The installed filters worth applying: not those whose keys cover their column's range (coversRange). */
  filters(): RuntimeFilter[];
  /** Passes a worker task's batches through, counting the removed rows it reports. */
  observe(batches: AsyncIterable<RecordBatch>): AsyncIterable<RecordBatch>;
  /** Applies the installed filters in this thread (a tiny scan not worth a worker). */
  filterHere(batches: AsyncIterable<RecordBatch>): AsyncIterable<RecordBatch>;
  /** Rows a worker's partial aggregate reported removing. */
  removedElsewhere(n: number): void;
  /** Records the metrics on the scan's node. */
  done(): void;
}

export function runtimeFilterHook(plan: LakeScanPlan, run: RunState, slots: readonly RuntimeFilterSlot[]): RuntimeFilterHook {
  let removed = 0;
  let used = false;
  /** Per filter id, whether it covers its column's range (decided once: a scan launches many tasks). */
  const covering = new Map<string, boolean>();
  const covers = (f: RuntimeFilter): boolean => {
    let c = covering.get(f.id);
    if (c === undefined) {
      const col = plan.columns[f.column];
      c = col !== undefined && coversRange(f, col.type, plan.columnRanges?.[plan.projection[f.column]!]);
      covering.set(f.id, c);
    }
    return c;
  };
  const countRemoved = (n: number): void => { removed += n; };
  const hook: RuntimeFilterHook = {
    slots,
    filters() {
      return installedFilters(slots).filter((f) => !covers(f));
    },
    observe(batches) {
      used = true;
      return { [Symbol.asyncIterator]: () => withWorkerRemovals(batches, countRemoved) };
    },
    filterHere(batches) {
      used = true;
      return { [Symbol.asyncIterator]: () => filteredHere(batches, plan, hook, countRemoved) };
    },
    removedElsewhere(n) {
      used = true;
      removed += n;
    },
    done() {
      const label = runtimeFilterLabel(slots, (f) => covering.get(f.id) === true);
      if (label === undefined) return;
      recordMetric(plan, run, 'runtimeFilter', used || covering.size > 0 ? label : `${label}, not applied`);
      recordMetric(plan, run, 'runtimeFilterRowsRemoved', removed);
    },
  };
  return hook;
}

/** A worker task's batches, passed through; `removedRows` hears the count of rows its runtime filters dropped. */
async function* withWorkerRemovals(batches: AsyncIterable<RecordBatch>, removedRows: (n: number) => void): AsyncGenerator<RecordBatch> {
  let first = true;
  for await (const b of batches) {
    // Every batch of a task shares the schema that carries the task's count.
    if (first) { removedRows(Number(b.schema.metadata.get(RUNTIME_FILTER_REMOVED_KEY) ?? 0)); first = false; }
    yield b;
  }
}

/** A tiny scan's batches with the installed runtime filters applied in this thread; `removedRows` hears how many rows they dropped. */
async function* filteredHere(
  batches: AsyncIterable<RecordBatch>, plan: LakeScanPlan, hook: RuntimeFilterHook, removedRows: (n: number) => void,
): AsyncGenerator<RecordBatch> {
  const types = plan.columns.map((c) => c.type);
  const stats = { removed: 0 };
  try {
    for await (const batch of batches) {
      const filters = hook.filters();
      if (filters.length === 0 || batch.numRows === 0) { yield batch; continue; }
      const b = decodeColumns(batch, plan.projection, types);
      const sel = runtimeFilterSelection(b, filters, stats);
      if (sel === undefined) yield batch;
      else if (sel.length > 0) yield encodeColumnar(plan.columns, selectRows(b, sel));
    }
  } finally {
    removedRows(stats.removed);
  }
}

/** The fragment with the runtime filters that ship with a task (none: unchanged). */
export function withRuntimeFilters(f: ScanFragment, filters: readonly RuntimeFilter[]): ScanFragment {
  return filters.length === 0 ? f : { ...f, runtimeFilters: filters };
}
