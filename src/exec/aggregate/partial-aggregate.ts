import { addScanTaskCounters, executeScanTaskSelected } from '../../lake/index.js';
import type { ScanTask, ScanTaskCounters } from '../../lake/index.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import { shippable } from '../expr/expr.js';
import type { Expr } from '../expr/expr.js';
import type { HashAggregatePlan, LakeScanPlan, PhysicalPlan } from '../plan/physical-plan.js';
import type { PartialAggregate, PartialAggregateResult, ScanFragment, ScanPipelineStep } from '../pool/scan-pool.js';
import { createRunState } from '../run-state.js';
import type { RunState } from '../run-state.js';
import { AggregateTable } from './aggregate-table.js';
import type { AggregateSpec, CompiledAggregation } from './compile-aggregation.js';
import {
  applyScanPipeline, decodeScanBatch, planLakeScan, runtimeFilterNarrower, SAME_THREAD_MAX_ROWS, taskRows,
} from '../operators/lake-scan-operator.js';
import type { CompiledScanPipeline } from '../operators/lake-scan-operator.js';
import { runtimeFilterHook, withRuntimeFilters } from '../operators/lake-scan-operator.js';
import { runtimeFilterSelection } from '../operators/runtime-filter.js';
import { checkAbort, recordMetric, recordScanCounters, recordRowsOut, selectRows } from '../operators/operator-support.js';

/**
 * A task's partial with at least this many groups, holding more than this share
 * of the rows it aggregated, turns the query's remaining tasks to sending rows.
 */
const ROWS_INSTEAD_MIN_GROUPS = 256;
const ROWS_INSTEAD_GROUP_SHARE = 0.25;
/**
 * The share for typed partials (every aggregate columnar), which clone as a few buffers
 * and merge at one step per group: sending rows pays only when nearly every row is its
 * own group. Measured 2026-11-30 (SF 1, gateway CPU over four to six runs, back to back):
 * a GROUP BY on a table's order key (78% of a task's rows are groups) used 12–13% less CPU sending
 * rows; GROUP BYs where 30–35% of the rows are groups used 17–19% more.
 */
const ROWS_INSTEAD_TYPED_GROUP_SHARE = 0.6;

/** What ships with each scan task when a hash aggregate's input can run in the workers (plain data). */
export interface AggregateShipment {
  readonly scan: LakeScanPlan;
  /** The scan, then each Filter/Project above it (their metrics are recorded from the workers' counts). */
  readonly nodes: readonly PhysicalPlan[];
  readonly pipeline: readonly ScanPipelineStep[];
  readonly residual?: Expr;
  readonly aggregate: AggregateSpec;
}

/**
 * The shipment for `plan` when its input is a lake scan, possibly under
 * Filter/Project nodes, and every expression can be evaluated by a worker
 * alone; undefined when anything does not ship (grouping sets, DISTINCT or
 * ORDER BY inside an aggregate, subqueries, outer references, a scan limit).
 */
export function aggregateShipment(plan: HashAggregatePlan): AggregateShipment | undefined {
  if (plan.groupingSets !== undefined) return undefined;
  if (plan.aggregates.some((a) => a.distinct || (a.orderBy !== undefined && a.orderBy.length > 0))) return undefined;
  const exprs: Expr[] = [...plan.groupBy];
  for (const a of plan.aggregates) { exprs.push(...a.args); if (a.filter) exprs.push(a.filter); }
  const pipeline: ScanPipelineStep[] = [];
  const nodes: PhysicalPlan[] = [];
  let node: PhysicalPlan = plan.input;
  while (node.kind === 'filter' || node.kind === 'project') {
    nodes.unshift(node);
    if (node.kind === 'filter') { pipeline.unshift({ kind: 'filter', predicate: node.predicate }); exprs.push(node.predicate); }
    else { pipeline.unshift({ kind: 'project', exprs: node.exprs }); exprs.push(...node.exprs); }
    node = node.input;
  }
  if (node.kind !== 'lakeScan' || node.limit !== undefined) return undefined;
  if (node.residual) exprs.push(node.residual);
  if (!exprs.every(shippable)) return undefined;
  nodes.unshift(node);
  return { scan: node, nodes, pipeline, residual: node.residual, aggregate: { groupBy: plan.groupBy, aggregates: plan.aggregates, ...(plan.dependentKeys ? { dependentKeys: plan.dependentKeys } : {}) } };
}

/** A shipment's expressions and aggregates, compiled. */
export interface CompiledShipment {
  readonly pipeline: CompiledScanPipeline;
  readonly aggregation: CompiledAggregation;
}

/**
 * One scan task's partial aggregate: reads the task, runs the residual and the
 * Filter/Project steps, and sinks the rows into a fresh table. Runs in a pool
 * worker (scan-worker.ts) or, for a tiny scan, in the calling thread.
 */
export async function aggregateScanTask(task: ScanTask, fragment: ScanFragment, compiled: CompiledShipment, signal?: AbortSignal): Promise<PartialAggregateResult> {
  const table = new AggregateTable(compiled.aggregation, { expectedRows: taskRows([task]) });
  try {
    const counts = await sinkScanTasks([task], fragment, compiled, (b, run) => table.sink(b, run), signal);
    return { partial: table.partial(), ...counts };
  } finally {
    table.release();
  }
}

/** What a worker counted while reading tasks into an aggregate, for EXPLAIN ANALYZE. */
export type ScanAggregateCounts = Omit<PartialAggregateResult, 'partial'>;

/**
 * Reads `tasks` one after another, runs the runtime filters, the residual and the
 * Filter/Project steps over their rows, and hands what is left to `sink`.
 */
export async function sinkScanTasks(
  tasks: readonly ScanTask[], fragment: ScanFragment, compiled: CompiledShipment,
  sink: (b: ColumnarBatch, run: RunState) => Promise<unknown>, signal?: AbortSignal,
): Promise<ScanAggregateCounts> {
  const run = fragmentRunState(fragment, signal);
  let rowsScanned = 0;
  const rowsOut = new Array<number>(compiled.pipeline.steps.length + 1).fill(0);
  const batchesOut = rowsOut.map(() => 0);
  const count = (stage: number, n: number) => { rowsOut[stage]! += n; batchesOut[stage]!++; };
  const counters: ScanTaskCounters = { rowGroupsRead: 0, rowGroupsSkippedByStats: 0 };
  const rtfStats = { removed: 0 };
  for (const task of tasks) {
    for await (const { batch, rows } of executeScanTaskSelected(task, counters, runtimeFilterNarrower(fragment, rtfStats))) {
      checkAbort(run);
      const n = rows?.length ?? batch.numRows;
      if (n === 0) continue;
      rowsScanned += n;
      // The lake's kept rows stay a selection: aggregates read them without a copy of each column.
      let decoded = decodeScanBatch(batch, fragment, rows);
      if (fragment.runtimeFilters) {
        const sel = runtimeFilterSelection(decoded, fragment.runtimeFilters, rtfStats);
        if (sel !== undefined) {
          if (sel.length === 0) continue;
          decoded = selectRows(decoded, sel);
        }
      }
      const b = await applyScanPipeline(decoded, compiled.pipeline, run, count);
      if (b && b.numRows > 0) await sink(b, run);
    }
  }
  return { rowsScanned, rowsOut, batchesOut, counters, runtimeFilterRowsRemoved: rtfStats.removed };
}

/** The run state a worker evaluates a fragment's expressions in: the query's parameters, settings and identity. */
export function fragmentRunState(fragment: ScanFragment, signal?: AbortSignal): RunState {
  return createRunState({
    params: fragment.params, settings: new Map(fragment.settings), transactionStartMicros: fragment.transactionStartMicros, signal,
    user: fragment.user, database: fragment.database, searchPath: fragment.searchPath, memoryLimitBytes: fragment.memoryLimitBytes,
  });
}

/** What travels with each of a shipment's worker tasks. */
export function shipmentFragment(shipment: AggregateShipment, run: RunState): ScanFragment {
  return {
    columns: shipment.scan.columns, projection: shipment.scan.projection, residual: shipment.residual,
    pipeline: shipment.pipeline, aggregate: shipment.aggregate, params: run.params,
    settings: [...run.evalCtx.settings], transactionStartMicros: run.evalCtx.transactionStartMicros,
    user: run.evalCtx.user, database: run.evalCtx.database, searchPath: run.evalCtx.searchPath,
    memoryLimitBytes: run.memory.limitBytes,
  };
}

/**
 * Runs the shipment's scan with a partial aggregate per task — on the pool,
 * several tasks at a time, or in this thread for a tiny single-task scan — and
 * hands each partial to `merge` as it arrives. Returns false (having done
 * nothing) when the plan cannot ship here.
 */
export async function runPartialAggregates(
  plan: HashAggregatePlan, shipment: AggregateShipment, compiled: CompiledShipment, run: RunState,
  merge: (p: PartialAggregate) => void, sink: (b: ColumnarBatch) => Promise<void>,
): Promise<boolean> {
  const pool = run.ctx.pool;
  if (!pool?.aggregate || run.ctx.scanRunner) return false;
  const aggregate = pool.aggregate.bind(pool);
  const tasks = await planLakeScan(shipment.scan, run);
  const fragment = shipmentFragment(shipment, run);
  const signal = run.signal;
  // A tiny scan costs less in this thread than a round trip through a worker.
  const inThread = tasks.length === 1 && taskRows(tasks) <= SAME_THREAD_MAX_ROWS;
  // Runtime join filters installed for the scan by a hash join above, read as each task launches.
  const slots = run.runtimeFilters?.get(shipment.scan);
  const rtf = slots ? runtimeFilterHook(shipment.scan, run, slots) : undefined;
  const withFilters = (f: ScanFragment): ScanFragment => (rtf ? withRuntimeFilters(f, rtf.filters()) : f);
  const runOne = inThread
    ? (t: ScanTask) => aggregateScanTask(t, withFilters(fragment), compiled, signal)
    : (t: ScanTask) => aggregate(t, signal, withFilters(fragment));
  // Tasks that send rows instead still drop runtime-filtered rows in the worker (nothing else runs there).
  const rowsFragment: ScanFragment = { columns: fragment.columns, projection: fragment.projection, params: fragment.params, settings: fragment.settings, transactionStartMicros: fragment.transactionStartMicros };
  let next = 0;
  let failed = false;
  // Set when a partial shows that grouping barely reduces the rows (grouping by an order key: 1.5M groups of 6M rows):
  // cloning and merging as many states as rows costs more than sending the rows, so the
  // tasks not yet started send their scanned rows, and this thread aggregates them.
  let rowsInstead = false;
  const groupShare = compiled.aggregation.aggs.every((ag) => ag.columnar) ? ROWS_INSTEAD_TYPED_GROUP_SHARE : ROWS_INSTEAD_GROUP_SHARE;
  let tasksSentRows = 0;
  // Merges and sinks change one table; a sink awaits between steps, so they take turns.
  let turn: Promise<void> = Promise.resolve();
  const inTurn = (f: () => void | Promise<void>): Promise<void> => (turn = turn.then(f));
  const counters: ScanTaskCounters = { rowGroupsRead: 0, rowGroupsSkippedByStats: 0 };
  let rowsScanned = 0;
  const rowsOut = shipment.nodes.map(() => 0);
  const batchesOut = shipment.nodes.map(() => 0);
  const count = (stage: number, n: number) => { rowsOut[stage]! += n; batchesOut[stage]!++; };
  const sendRows = async (t: ScanTask): Promise<void> => {
    tasksSentRows++;
    const f = withFilters(rowsFragment);
    const batches = pool.run(t, signal, f.runtimeFilters ? f : undefined, counters);
    for await (const batch of rtf && f.runtimeFilters ? rtf.observe(batches) : batches) {
      checkAbort(run);
      if (batch.numRows === 0) continue;
      rowsScanned += batch.numRows;
      const b = await applyScanPipeline(decodeScanBatch(batch, fragment), compiled.pipeline, run, count);
      if (b && b.numRows > 0) await inTurn(() => sink(b));
    }
  };
  const lane = async (): Promise<void> => {
    while (!failed && next < tasks.length) {
      const t = tasks[next++]!;
      try {
        if (rowsInstead) {
          await sendRows(t);
          continue;
        }
        const r = await runOne(t);
        checkAbort(run);
        rowsScanned += r.rowsScanned;
        addScanTaskCounters(counters, r.counters);
        rtf?.removedElsewhere(r.runtimeFilterRowsRemoved ?? 0);
        r.rowsOut.forEach((n, i) => { rowsOut[i]! += n; batchesOut[i]! += r.batchesOut[i]!; });
        await inTurn(() => merge(r.partial));
        const fed = r.rowsOut[r.rowsOut.length - 1] ?? 0;
        if (!inThread && r.partial.numGroups >= ROWS_INSTEAD_MIN_GROUPS && r.partial.numGroups > fed * groupShare) rowsInstead = true;
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  const lanes = inThread ? 1 : Math.min(tasks.length, Math.max(1, pool.size));
  await Promise.all(Array.from({ length: lanes }, lane));
  recordMetric(shipment.scan, run, 'rowsScanned', rowsScanned);
  recordScanCounters(shipment.scan, run, counters);
  shipment.nodes.forEach((n, i) => recordRowsOut(n, run, rowsOut[i]!, batchesOut[i]!));
  if (!inThread) recordMetric(plan, run, 'partialInWorkers', tasks.length - tasksSentRows);
  rtf?.done();
  if (tasksSentRows > 0) recordMetric(plan, run, 'tasksSentRows', tasksSentRows);
  return true;
}

