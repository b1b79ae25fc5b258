import { ROW_ID_COLUMN } from '../../../src/lake/index.js';
import type { LakeTransaction, TableMetadata, Warehouse } from '../../../src/lake/index.js';
import { columnsOf, readRows } from './read-table.js';
import type { Row } from './read-table.js';

/** An append table (no primary key) of (id int4, v text). */
export async function createAppendTable(wh: Warehouse, name: string, properties: Record<string, string> = {}): Promise<TableMetadata> {
  return wh.createTable({
    namespace: 'public', name, properties,
    columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
}

/** One committed INSERT of these ids (v = `v<id>`). */
export async function insertIds(wh: Warehouse, t: TableMetadata, ids: readonly number[]): Promise<void> {
  const txn = await wh.begin();
  await txn.insert(t, 'main', columnsOf(t, ids.map((id) => ({ id, v: `v${id}` }))));
  await txn.commit();
}

/** Rows with their row ids, as a transaction (or the head) sees them. */
export async function rowsWithIds(wh: Warehouse, t: TableMetadata, txn?: LakeTransaction): Promise<(Row & { _row_id: bigint })[]> {
  return await readRows(wh, { table: t, projection: ['id', 'v', ROW_ID_COLUMN], ...(txn === undefined ? {} : { txn }) }) as (Row & { _row_id: bigint })[];
}

/** Rows as (id, v), sorted by id. */
export async function liveRows(wh: Warehouse, t: TableMetadata): Promise<{ id: number; v: string | null }[]> {
  const rows = await readRows(wh, { table: t, projection: ['id', 'v'] });
  return (rows as { id: number; v: string | null }[]).sort((a, b) => a.id - b.id || String(a.v).localeCompare(String(b.v)));
}

/** DELETE … WHERE pred, as the executor does it: read row ids in the transaction, delete them (read-modify-write). */
export async function deleteWhere(wh: Warehouse, t: TableMetadata, txn: LakeTransaction, pred: (id: number) => boolean): Promise<number> {
  txn.markReadModifyWrite(t, 'main');
  const ids = (await rowsWithIds(wh, t, txn)).filter((r) => pred(r['id'] as number)).map((r) => r._row_id);
  await txn.deleteRows(t, 'main', ids);
  return ids.length;
}

/** UPDATE … SET v = `value` WHERE pred: the rows' ids deleted, their new images inserted. */
export async function updateWhere(wh: Warehouse, t: TableMetadata, txn: LakeTransaction, pred: (id: number) => boolean, value: string): Promise<number> {
  txn.markReadModifyWrite(t, 'main');
  const hit = (await rowsWithIds(wh, t, txn)).filter((r) => pred(r['id'] as number));
  await txn.deleteRows(t, 'main', hit.map((r) => r._row_id));
  await txn.insert(t, 'main', columnsOf(t, hit.map((r) => ({ id: r['id'], v: value }))));
  return hit.length;
}
