import { Table, tableToIPC } from 'apache-arrow';
import type { RecordBatch, Vector } from 'apache-arrow';
import { move } from 'piscina';
import { isFloeError } from '../../common/floe-error.js';
import { executeScanTask } from '../../lake/index.js';
import type { ScanTask } from '../../lake/index.js';
import { encodeBatch } from '../arrow/columnar-batch.js';
import { vectorToValues } from '../arrow/vector-values.js';
import { compileExpr, truthySelection } from '../expr/compile-expr.js';
import type { CompiledExpr } from '../expr/compile-expr.js';
import '../functions/builtins.js';
import { createRunState } from '../run-state.js';
import type { ScanFragment } from './scan-pool.js';

export interface ScanWorkerInput {
  readonly task: ScanTask;
  readonly fragment?: ScanFragment;
}

/** Compiled residuals, kept per worker: the same query's tasks reuse them. */
const compiled = new Map<string, CompiledExpr>();

function residualOf(f: ScanFragment): CompiledExpr {
  const key = JSON.stringify(f.residual, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
  let c = compiled.get(key);
  if (!c) {
    if (compiled.size > 256) compiled.clear();
    c = compileExpr(f.residual);
    compiled.set(key, c);
  }
  return c;
}

async function applyFragment(batches: RecordBatch[], f: ScanFragment): Promise<RecordBatch[]> {
  const pred = residualOf(f);
  const run = createRunState({ params: f.params, settings: new Map(f.settings), transactionStartMicros: f.transactionStartMicros });
  const out: RecordBatch[] = [];
  for (const b of batches) {
    const cols = f.columns.map((c, i) => vectorToValues((b.getChild(f.projection[i]!) ?? b.getChildAt(i)) as Vector, c.type));
    const keep = truthySelection(await pred.evaluate({ numRows: b.numRows, columns: cols }, run), b.numRows);
    if (keep.length === 0) continue;
    const picked = keep.length === b.numRows ? cols : cols.map((c) => Array.from(keep, (i) => c[i]));
    out.push(encodeBatch(f.columns, picked, keep.length));
  }
  return out;
}

/**
 * Runs in a pool worker: executes one lake scan task (and, with a fragment,
 * filters its rows) and returns the batches as a single Arrow IPC stream whose
 * buffer is transferred, not copied.
 */
export async function runScanTask(input: ScanTask | ScanWorkerInput): Promise<ScanWorkerResult> {
  const { task, fragment } = 'task' in input ? input : { task: input, fragment: undefined };
  try {
    let batches: RecordBatch[] = [];
    for await (const b of executeScanTask(task)) batches.push(b);
    if (fragment) batches = await applyFragment(batches, fragment);
    if (batches.length === 0) return null;
    // Only a top-level moved value is transferred; nested ones would be cloned.
    return move(tableToIPC(new Table(batches), 'stream')) as Uint8Array;
  } catch (e) {
    // Errors cross threads as plain objects; keep the SQLSTATE so the main thread can rebuild a FloeError.
    if (isFloeError(e)) return { error: { sqlstate: e.sqlstate, message: e.message, detail: e.detail, hint: e.hint } };
    throw e;
  }
}

export type ScanWorkerResult =
  | Uint8Array
  | null
  | { readonly error: { sqlstate: string; message: string; detail?: string; hint?: string } };
