import type { RecordBatch } from 'apache-arrow';
import { copyBatch, takeBatch } from './take-rows.js';

/** A batch's rows `rows` (ascending), or all of them when undefined. */
export interface SelectedBatch {
  readonly batch: RecordBatch;
  readonly rows: Int32Array | undefined;
}

/**
 * Largest share of a batch's rows gathered into new buffers when the batch must leave
 * memory about to be reused (WASM memory); past it the whole batch is copied and the
 * rows stay a selection. Gathering cost 10–20 ns a row per column against about 1 ns
 * for a block copy (lineitem, 2026-11-29), and a selection is read in place by the
 * operators above the scan, so gathering pays only when most rows are dropped.
 */
export const GATHER_MAX_SHARE = 0.25;

/** `view`'s rows `rows` in buffers of its own: gathered when few, else copied whole and still selected. */
export function copySelected(view: RecordBatch, rows: Int32Array | undefined): SelectedBatch {
  if (rows === undefined || rows.length > view.numRows * GATHER_MAX_SHARE) return { batch: copyBatch(view), rows };
  return { batch: takeBatch(view, rows), rows: undefined };
}
