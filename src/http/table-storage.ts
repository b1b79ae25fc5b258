import type { DataFileInfo } from '../lake/index.js';
import type { StoreTotals } from './table-summary-shape.js';

export type TableStorage = Readonly<Record<DataFileInfo['store'], StoreTotals>>;

/** What a table's live files hold, per store (t$files, summed). */
export function tableStorage(files: readonly DataFileInfo[]): TableStorage {
  const totals = { change: { files: 0, bytes: 0, rows: 0 }, base: { files: 0, bytes: 0, rows: 0 } };
  for (const f of files) {
    const t = totals[f.store];
    t.files++;
    t.bytes += f.sizeBytes;
    t.rows += f.rowCount - f.deletedRows;
  }
  return totals;
}
