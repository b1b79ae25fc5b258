import type { SqlType } from '../../common/sql-type.js';
import { vectorToValues } from '../../exec/index.js';
import { executeScanTask, ROW_ID_COLUMN } from '../../lake/index.js';
import type { LakeTransaction, TableMetadata, Warehouse } from '../../lake/index.js';
import { keyString } from './value-identity.js';

const ROW_ID_TYPE: SqlType = { kind: 'int8' };

/** The rows of `columns` a read inside `txn` sees (its own writes included), with equality filters on columns. */
async function* scanRows(
  warehouse: Warehouse, txn: LakeTransaction, table: TableMetadata, columns: readonly string[], equal: readonly { column: string; value: unknown }[],
): AsyncGenerator<unknown[]> {
  const plan = await warehouse.planScan({
    table, txn, projection: columns, filters: equal.map((e) => ({ column: e.column, op: '=' as const, value: e.value })),
  });
  const types = columns.map((name) => (name === ROW_ID_COLUMN ? ROW_ID_TYPE : table.columns.find((c) => c.name === name)!.type));
  for (const task of plan.tasks) {
    for await (const b of executeScanTask(task)) {
      const cols = types.map((t, i) => vectorToValues(b.getChildAt(i)!, t));
      for (let r = 0; r < b.numRows; r++) yield cols.map((c) => c[r] ?? null);
    }
  }
}

async function readRows(
  warehouse: Warehouse, txn: LakeTransaction, table: TableMetadata, columns: readonly string[], equal: readonly { column: string; value: unknown }[],
): Promise<unknown[][]> {
  const rows: unknown[][] = [];
  for await (const r of scanRows(warehouse, txn, table, columns, equal)) rows.push(r);
  return rows;
}

/** The whole row of a key as the transaction sees it, or undefined (an unchanged TOASTed value's current value comes from here). */
export async function readRowByKey(warehouse: Warehouse, txn: LakeTransaction, table: TableMetadata, key: readonly unknown[]): Promise<unknown[] | undefined> {
  const names = table.columns.map((c) => c.name);
  const keyIdx = table.primaryKey.map((k) => names.indexOf(k));
  const rows = await readRows(warehouse, txn, table, names, table.primaryKey.map((column, i) => ({ column, value: key[i] })));
  const want = keyString(key);
  // Filters may be inexact: keep the row whose key is the one asked for.
  return rows.find((r) => keyString(keyIdx.map((i) => r[i])) === want);
}

/** Every key of the table as the transaction sees it (TRUNCATE deletes them). */
export async function readAllKeys(warehouse: Warehouse, txn: LakeTransaction, table: TableMetadata): Promise<unknown[][]> {
  return readRows(warehouse, txn, table, table.primaryKey, []);
}

/** A table without a key, row by row as the transaction sees it: each whole row (table column order) with its row id. */
export async function* readRowsWithIds(warehouse: Warehouse, txn: LakeTransaction, table: TableMetadata): AsyncGenerator<{ rowId: bigint; row: unknown[] }> {
  for await (const r of scanRows(warehouse, txn, table, [...table.columns.map((c) => c.name), ROW_ID_COLUMN], [])) {
    yield { rowId: r.pop() as bigint, row: r };
  }
}

/** Every row id of a table without a key as the transaction sees it (TRUNCATE deletes them). */
export async function readAllRowIds(warehouse: Warehouse, txn: LakeTransaction, table: TableMetadata): Promise<bigint[]> {
  return (await readRows(warehouse, txn, table, [ROW_ID_COLUMN], [])).map((r) => r[0] as bigint);
}
