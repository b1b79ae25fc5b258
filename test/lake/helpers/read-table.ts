import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse } from '../../../src/lake/index.js';
import type { ScanRequest, TableMetadata, Warehouse } from '../../../src/lake/index.js';
import { sqlTypeOfField } from '../../../src/lake/arrow/arrow-type.js';
import { columnReader } from '../../../src/lake/arrow/column-reader.js';
import { executeScanTask } from '../../../src/lake/index.js';

export type Row = Record<string, unknown>;

/** Every row a scan returns, as plain objects sorted by the JSON of their values. */
export async function readRows(wh: Warehouse, req: ScanRequest, opts: { cacheRowGroups?: boolean } = {}): Promise<Row[]> {
  const plan = await wh.planScan(req);
  const rows: Row[] = [];
  for (const task of plan.tasks) {
    // as the gateway runs a point read: base row groups through the row-group cache
    for await (const b of executeScanTask(opts.cacheRowGroups === true ? { ...task, cacheRowGroups: true } : task)) {
      const readers = b.schema.fields.map((f, i) => ({ name: f.name, r: columnReader(b.getChildAt(i)!, sqlTypeOfField(f)) }));
      for (let i = 0; i < b.numRows; i++) {
        const row: Row = {};
        for (const { name, r } of readers) row[name] = r.get(i);
        rows.push(row);
      }
    }
  }
  return rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function key(r: Row): string {
  return JSON.stringify(Object.values(r), (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

/** rows(table) in column-array form for insert/upsert. */
export function columnsOf(table: TableMetadata, rows: readonly Row[]): unknown[][] {
  return table.columns.map((c) => rows.map((r) => (r[c.name] === undefined ? null : r[c.name])));
}

export async function tempWarehouse(opts: { staleTransactionMs?: number; log?: false } = {}): Promise<{ wh: Warehouse; dir: string; cleanup: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'floe-lake-'));
  const wh = await openWarehouse({ path: dir, ...opts });
  return {
    wh, dir,
    cleanup: async () => {
      await wh.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
