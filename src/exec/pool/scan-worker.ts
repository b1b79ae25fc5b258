import { RecordBatch, Schema } from 'apache-arrow';
import { move } from 'piscina';
import { isFloeError } from '../../common/floe-error.js';
import { executeScanTask, executeScanTaskSelected } from '../../lake/index.js';
import type { ScanTaskCounters, SelectedBatch } from '../../lake/index.js';
import type { ScanTask } from '../../lake/index.js';
import { encodeColumnar } from '../arrow/columnar-batch.js';
import { compileExpr, truthySelection } from '../expr/compile-expr.js';
import type { CompiledExpr } from '../expr/compile-expr.js';
import '../functions/builtins.js';
import { compileAggregation } from '../aggregate/compile-aggregation.js';
import { aggregateScanTask } from '../aggregate/partial-aggregate.js';
import type { CompiledShipment } from '../aggregate/partial-aggregate.js';
import { compileScanPipeline, decodeScanBatch, runtimeFilterNarrower } from '../operators/lake-scan-operator.js';
import { selectRows } from '../operators/operator-support.js';
import { RUNTIME_FILTER_REMOVED_KEY, runtimeFilterSelection } from '../operators/runtime-filter.js';
import { createRunState } from '../run-state.js';
import { packBatches } from '../arrow/batch-transfer.js';
import { COUNTERS_BYTES } from './scan-pool.js';
import { writeCountersHeader } from './scan-counters-header.js';
import type { KeyRangeAggregateResult, PartialAggregateResult, ScanFragment } from './scan-pool.js';
import { aggregateKeyRange } from '../aggregate/key-range-aggregate.js';

export type ScanWorkerInput =
  | { readonly task: ScanTask; readonly fragment?: ScanFragment }
  /** A key range's aggregate over these tasks (ScanPool.aggregateRange). */
  | { readonly tasks: readonly ScanTask[]; readonly fragment: ScanFragment };

const planText = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

/** Compiled residuals, kept per worker: the same query's tasks reuse them. */
const compiled = new Map<string, CompiledExpr>();

/** Compiled partial-aggregate shipments, likewise. */
const shipments = new Map<string, CompiledShipment>();

function shipmentOf(f: ScanFragment): CompiledShipment {
  const key = planText([f.columns, f.residual ?? null, f.pipeline ?? [], f.aggregate]);
  let c = shipments.get(key);
  if (!c) {
    if (shipments.size > 64) shipments.clear();
    c = { pipeline: compileScanPipeline(f), aggregation: compileAggregation(f.aggregate!) };
    shipments.set(key, c);
  }
  return c;
}

function residualOf(f: ScanFragment): CompiledExpr {
  const key = planText(f.residual);
  let c = compiled.get(key);
  if (!c) {
    if (compiled.size > 256) compiled.clear();
    c = compileExpr(f.residual!);
    compiled.set(key, c);
  }
  return c;
}

async function applyFragment(batches: readonly SelectedBatch[], f: ScanFragment, stats: { removed: number }): Promise<RecordBatch[]> {
  const pred = f.residual ? residualOf(f) : undefined;
  const filters = f.runtimeFilters ?? [];
  const run = createRunState({
    params: f.params, settings: new Map(f.settings), transactionStartMicros: f.transactionStartMicros,
    user: f.user, database: f.database, searchPath: f.searchPath,
  });
  const out: RecordBatch[] = [];
  for (const { batch, rows } of batches) {
    // The scan's kept rows stay a selection: the runtime filters and the residual narrow
    // it, and each surviving column is copied once when encoded.
    let b = decodeScanBatch(batch, f, rows);
    if (filters.length > 0) {
      const sel = runtimeFilterSelection(b, filters, stats);
      if (sel !== undefined) {
        if (sel.length === 0) continue;
        b = selectRows(b, sel);
      }
    }
    if (pred) {
      const keep = truthySelection(await pred.evaluate(b, run), b.numRows);
      if (keep.length === 0) continue;
      if (keep.length !== b.numRows) b = selectRows(b, keep);
    }
    out.push(encodeColumnar(f.columns, b));
  }
  if (filters.length === 0) return out;
  // The removed count rides in the schema metadata (the pool's result header is
  // fixed): every batch carries it, and an empty batch when no row is left.
  if (out.length === 0) out.push(encodeColumnar(f.columns, { numRows: 0, columns: f.columns.map(() => []) }));
  const schema = new Schema(out[0]!.schema.fields, new Map([...out[0]!.schema.metadata, [RUNTIME_FILTER_REMOVED_KEY, String(stats.removed)]]));
  return out.map((b) => new RecordBatch(schema, b.data));
}

/**
 * Runs in a pool worker: executes one lake scan task (and, with a fragment,
 * filters its rows, or aggregates them into a partial aggregate that is
 * returned structured-cloned) and returns the batches packed into one buffer
 * (batch-transfer.ts) that is transferred, not copied.
 */
export async function runScanTask(input: ScanTask | ScanWorkerInput): Promise<ScanWorkerResult> {
  if ('tasks' in input) return answered(() => aggregateKeyRange(input.tasks, input.fragment, shipmentOf(input.fragment)));
  const { task, fragment } = 'task' in input ? input : { task: input, fragment: undefined };
  return answered(() => scanOrAggregate(task, fragment));
}

async function scanOrAggregate(task: ScanTask, fragment: ScanFragment | undefined): Promise<ScanWorkerResult> {
  if (fragment?.aggregate) return await aggregateScanTask(task, fragment, shipmentOf(fragment));
  let batches: RecordBatch[] = [];
  const counters: ScanTaskCounters = { rowGroupsRead: 0, rowGroupsSkippedByStats: 0 };
  if (fragment) {
    const selected: SelectedBatch[] = [];
    const stats = { removed: 0 };
    for await (const b of executeScanTaskSelected(task, counters, runtimeFilterNarrower(fragment, stats))) selected.push(b);
    batches = await applyFragment(selected, fragment, stats);
  } else {
    for await (const b of executeScanTask(task, counters)) batches.push(b);
  }
  const out = packBatches(batches, COUNTERS_BYTES);
  writeCountersHeader(out, counters);
  return move(out) as Uint8Array;
}

async function answered(work: () => Promise<ScanWorkerResult>): Promise<ScanWorkerResult> {
  try {
    return await work();
  } catch (e) {
    // Errors cross threads as plain objects; keep the SQLSTATE so the main thread can rebuild a FloeError.
    if (isFloeError(e)) return { error: { sqlstate: e.sqlstate, message: e.message, detail: e.detail, hint: e.hint } };
    throw e;
  }
}

export type ScanWorkerResult =
  | Uint8Array
  | PartialAggregateResult
  | KeyRangeAggregateResult
  | null
  | { readonly error: { sqlstate: string; message: string; detail?: string; hint?: string } };
