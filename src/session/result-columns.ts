import type { RecordBatch } from 'apache-arrow';
import { typeLength, typeModifier, typeOid, valueTypeOid } from '../common/sql-type.js';
import type { SqlType } from '../common/sql-type.js';
import { columnValues } from '../exec/index.js';
import type { ResultColumn } from '../sql/index.js';
import type { ColumnDescription, RowBatch, StatementResult } from '../common/session-handler.js';

export function describeColumns(columns: readonly ResultColumn[]): ColumnDescription[] {
  return columns.map((c) => {
    const oid = typeOid(c.type);
    const codecOid = valueTypeOid(c.type);
    return {
      name: c.name, tableOid: c.tableOid, columnNumber: c.columnNumber,
      typeOid: oid, typeSize: typeLength(c.type), typeModifier: typeModifier(c.type), ...(codecOid === oid ? {} : { codecOid }),
    };
  });
}

export function textColumn(name: string): ColumnDescription {
  const t: SqlType = { kind: 'text' };
  return { name, tableOid: 0, columnNumber: 0, typeOid: typeOid(t), typeSize: -1, typeModifier: -1 };
}

/** An Arrow batch from the executor as the wire's RowBatch of canonical values. */
export function toRowBatch(batch: RecordBatch, types: readonly SqlType[]): RowBatch {
  const columns = types.map((t, i) => {
    const values = columnValues(batch.data.children[i]!, t);
    return { get: (row: number) => values[row] ?? null };
  });
  return { numRows: batch.numRows, columns };
}

/** Rows of canonical values held in memory (SHOW, FETCH buffers, EXPLAIN) as one RowBatch. */
export function rowsBatch(rows: readonly (readonly unknown[])[], width: number): RowBatch {
  return {
    numRows: rows.length,
    columns: Array.from({ length: width }, (_, c) => ({ get: (r: number) => rows[r]![c] ?? null })),
  };
}

/** A result's batches when its rows are all in `batch`: the batch, or none when it has no rows. */
export async function* batchUnlessEmpty(batch: RowBatch): AsyncGenerator<RowBatch> {
  if (batch.numRows > 0) yield batch;
}

/** A result of rows held in memory (SHOW, FETCH, EXPLAIN): its tag is SHOW or EXPLAIN alone, else the tag and the row count. */
export function memoryRows(columns: ColumnDescription[], rows: readonly (readonly unknown[])[], tag: string): StatementResult {
  const batch = rowsBatch(rows, columns.length);
  return {
    kind: 'rows', columns,
    batches: batchUnlessEmpty(batch),
    commandTag: (n) => (tag === 'SHOW' || tag === 'EXPLAIN' ? tag : `${tag} ${n}`),
  };
}
