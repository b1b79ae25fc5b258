import { join, resolve } from 'node:path';
import { Table, tableToIPC } from 'apache-arrow';
import { sqlTypeOfField } from '../../../src/lake/arrow/arrow-type.js';
import { buildBatch } from '../../../src/lake/arrow/batch-builder.js';
import { columnReader } from '../../../src/lake/arrow/column-reader.js';
import { SqliteCatalog } from '../../../src/lake/catalog/sqlite/sqlite-catalog.js';
import type { NewFileRecord } from '../../../src/lake/catalog/catalog.js';
import { readDataFile } from '../../../src/lake/format/data-file-reader.js';
import { fileColumns } from '../../../src/lake/format/data-file-writer.js';
import { formatLogLocator, isLogPath, logWriterDir } from '../../../src/lake/log/log-locator.js';
import { openStorage } from '../../../src/lake/storage/open-storage.js';
import { OP_COLUMN } from '../../../src/lake/table/table-layout.js';
import type { TableMetadata, Warehouse } from '../../../src/lake/index.js';
import type { Row } from '../helpers/read-table.js';

let nextSegment = 0;

/**
 * Turns every live Parquet change file of the table into a log file, as the log store
 * writes them: the rows rebuilt with buildBatch over the change file's physical columns,
 * one Arrow IPC stream each, laid one after another in a fresh segment of
 * `log/test-writer/` behind some filler bytes (so no offset is 0), and each file row
 * swapped in place for a row whose path is the stream's locator (same seq, offset,
 * statistics, key bitmap and snapshot). What any snapshot reads must not change.
 * Returns how many files it turned.
 */
export async function changeFilesToLogFiles(dir: string, table: TableMetadata): Promise<number> {
  const catalog = new SqliteCatalog(join(dir, 'catalog.db'));
  const storage = openStorage({ kind: 'local', root: resolve(dir) });
  try {
    const removed = new Set(catalog.fileRemovals(table.id).map((r) => r.fileId));
    const files = catalog.allFiles(table.id).filter((f) => f.store === 'change' && f.path !== '' && !isLogPath(f.path) && !removed.has(f.fileId));
    if (files.length === 0) return 0;
    const segmentKey = `${logWriterDir('test-writer')}/${String(nextSegment++ * 1_000_000).padStart(20, '0')}.wal`;
    const parts: Uint8Array[] = [filler(13)];
    let at = 13;
    const swaps: { fileId: number; record: NewFileRecord; addedIn: bigint }[] = [];
    const cols = fileColumns(table.columns, table.primaryKey, 'change');
    for (const f of files) {
      const values: unknown[][] = cols.map(() => []);
      for (const b of await readDataFile(storage, f.path, table.columns, [OP_COLUMN])) {
        b.schema.fields.forEach((field, i) => {
          const r = columnReader(b.getChildAt(i)!, field.name === OP_COLUMN ? { kind: 'text' } : sqlTypeOfField(field));
          for (let row = 0; row < b.numRows; row++) values[i]!.push(r.get(row));
        });
      }
      const ipc = tableToIPC(new Table([buildBatch(cols, values)]), 'stream');
      parts.push(ipc, filler(7));
      const path = formatLogLocator({ segmentKey, offset: at, length: ipc.length });
      at += ipc.length + 7;
      const { fileId: _id, tableId: _t, addedIn, ...rest } = f;
      swaps.push({ fileId: f.fileId, record: { ...rest, path, sizeBytes: ipc.length }, addedIn });
    }
    await storage.put(segmentKey, Buffer.concat(parts));
    for (const s of swaps) {
      if (catalog.replaceFilesInPlace(table.id, [s.fileId], s.record, s.addedIn) === undefined) throw new Error(`file ${s.fileId} could not be swapped`);
    }
    return swaps.length;
  } finally {
    catalog.close();
  }
}

function filler(n: number): Uint8Array {
  return new Uint8Array(n).fill(0xab);
}

/** The rows of readChanges' batches as plain objects, by column name. */
export function changeRows(batches: Awaited<ReturnType<Warehouse['readChanges']>>): Row[] {
  const rows: Row[] = [];
  for (const { batch: b } of batches) {
    const readers = b.schema.fields.map((f, i) => ({ name: f.name, r: columnReader(b.getChildAt(i)!, sqlTypeOfField(f)) }));
    for (let i = 0; i < b.numRows; i++) {
      const row: Row = {};
      for (const { name, r } of readers) row[name] = r.get(i);
      rows.push(row);
    }
  }
  return rows;
}
