import { isValidDateDays, isValidTimestampMicros } from '../../common/calendar.js';
import { readFileSync } from 'node:fs';
import { Type } from 'apache-arrow';
import type { DataType, Table, Vector } from 'apache-arrow';
import { parseTable } from 'arrow-js-ffi';
import * as pq from 'parquet-wasm';
import { FloeError, isFloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { formatType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { castValue, parseValue, vectorToValues } from '../../exec/index.js';
import type { TextIoSettings } from '../../exec/index.js';
import type { TableMetadata } from '../../lake/index.js';
import type { BatchWriter } from './batch-writer.js';

/** Batch size for decoding: parquet-wasm's default of 1024 rows is many times slower. */
const DECODE_BATCH_ROWS = 131072;

export interface ParquetLoadOptions {
  readonly settings: TextIoSettings;
  /** Called after each row group with the fraction of row groups done. */
  readonly onFraction?: (fraction: number) => void;
}

/**
 * Reads a Parquet file one row group at a time and feeds the writer. Columns are
 * matched by name; table columns missing from the file are NULL; file columns the
 * table lacks are an error (they would otherwise be dropped silently).
 */
export async function loadParquet(path: string, table: TableMetadata, writer: BatchWriter, opts: ParquetLoadOptions): Promise<void> {
  // parquet-wasm's reader wants the whole file in memory.
  const bytes = readFileSync(path);
  let rowGroups: number;
  try {
    const file = await pq.ParquetFile.fromFile(new Blob([bytes]));
    rowGroups = file.metadata().numRowGroups();
    file.free();
  } catch (e) {
    throw new FloeError(SqlState.dataException, `could not read Parquet file "${path}": ${(e as Error).message ?? String(e)}`, { cause: e });
  }
  let rowBase = 0;
  for (let g = 0; g < rowGroups; g++) {
    const arrow = readRowGroup(bytes, path, g);
    const names = arrow.schema.fields.map((f) => f.name);
    for (const n of names) {
      if (!table.columns.some((c) => c.name === n)) {
        throw new FloeError(SqlState.undefinedColumn, `column "${n}" of relation "${table.name}" does not exist`, { detail: `Parquet file ${path}` });
      }
    }
    for (const batch of arrow.batches) {
      const cols = table.columns.map((c) => {
        const vec = batch.getChild(c.name);
        return vec === null ? null : columnValues(vec, c.name, c.type, path, rowBase, opts.settings);
      });
      const row = new Array<unknown>(cols.length);
      for (let r = 0; r < batch.numRows; r++) {
        for (let i = 0; i < cols.length; i++) row[i] = cols[i] === null ? null : cols[i]![r];
        const at = rowBase + r + 1;
        await writer.push(row, () => `row ${at} of ${path}`);
      }
      rowBase += batch.numRows;
    }
    opts.onFraction?.((g + 1) / rowGroups);
  }
}

function readRowGroup(bytes: Uint8Array, path: string, group: number): Table {
  let wasmTable: pq.Table;
  try {
    wasmTable = pq.readParquet(bytes, { batchSize: DECODE_BATCH_ROWS, rowGroups: [group] });
  } catch (e) {
    throw new FloeError(SqlState.dataException, `could not read Parquet file "${path}": ${(e as Error).message ?? String(e)}`, { cause: e });
  }
  // Copied out of WASM memory at once and freed, so the next row group does not grow it.
  const ffi = wasmTable.intoFFI();
  try {
    return parseTable(pq.wasmMemory().buffer, ffi.arrayAddrs(), ffi.schemaAddr(), true);
  } finally {
    ffi.drop();
  }
}

/** The SqlType a Parquet/Arrow column reads as before conversion to the table's type, or undefined when unsupported. */
function sourceType(t: DataType): SqlType | undefined {
  switch (t.typeId) {
    case Type.Bool: return { kind: 'bool' };
    case Type.Int: {
      const { bitWidth, isSigned } = t as unknown as { bitWidth: number; isSigned: boolean };
      if (bitWidth <= 16 && isSigned) return { kind: 'int2' };
      if (bitWidth <= 16 || (bitWidth === 32 && isSigned)) return { kind: 'int4' };
      return { kind: 'int8' };
    }
    case Type.Float: return (t as unknown as { precision: number }).precision === 2 ? { kind: 'float8' } : { kind: 'float4' };
    case Type.Decimal: return { kind: 'numeric' };
    case Type.Utf8: case Type.LargeUtf8: return { kind: 'text' };
    case Type.Binary: case Type.LargeBinary: return { kind: 'bytea' };
    case Type.Date: return { kind: 'date' };
    case Type.Timestamp: return (t as unknown as { timezone: string | null }).timezone ? { kind: 'timestamptz' } : { kind: 'timestamp' };
    case Type.Time: return { kind: 'time' };
    default: return undefined;
  }
}

/** Multiplier from an Arrow time unit (0 s, 1 ms, 2 µs, 3 ns) to microseconds; ns divides. */
function toMicros(v: bigint, unit: number): bigint {
  switch (unit) {
    case 0: return v * 1_000_000n;
    case 1: return v * 1000n;
    case 3: return v / 1000n;
    default: return v;
  }
}

/** Parquet dates and timestamps can lie outside PostgreSQL's range; those are refused (22008) as date_recv/timestamp_recv refuse them. */
function checkDatetimeRange(values: unknown[], target: SqlType, column: string, path: string, rowBase: number): unknown[] {
  if (target.kind !== 'date' && target.kind !== 'timestamp' && target.kind !== 'timestamptz') return values;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null) continue;
    // ±infinity (non-finite days, the int64 extremes) stay as they are.
    const ok = target.kind === 'date'
      ? !Number.isFinite(v as number) || isValidDateDays(v as number)
      : v === 2n ** 63n - 1n || v === -(2n ** 63n) || isValidTimestampMicros(v as bigint);
    if (!ok) {
      throw new FloeError(SqlState.datetimeFieldOverflow, `column "${column}": ${target.kind === 'date' ? 'date' : 'timestamp'} out of range`, {
        detail: `row ${rowBase + i + 1} of ${path}`,
      });
    }
  }
  return values;
}

function columnValues(vec: Vector, column: string, target: SqlType, path: string, rowBase: number, settings: TextIoSettings): unknown[] {
  const at = vec.type as DataType;
  const src = sourceType(at);
  if (src === undefined) {
    throw new FloeError(SqlState.datatypeMismatch, `column "${column}" is of type ${formatType(target)} but Parquet column has type ${String(at)}`, {
      detail: `Parquet file ${path}`, hint: 'Supported Parquet types: boolean, integers, floats, decimals, strings, binary, dates, times and timestamps.',
    });
  }
  let values = vectorToValues(vec, src.kind === 'timestamp' || src.kind === 'timestamptz' || src.kind === 'time' ? { kind: 'int8' } : src);
  if (src.kind === 'timestamp' || src.kind === 'timestamptz' || src.kind === 'time') {
    const unit = (at as unknown as { unit: number }).unit;
    values = values.map((v) => (v === null ? null : toMicros(v as bigint, unit)));
  }
  if (src.kind === target.kind && src.kind !== 'numeric') return checkDatetimeRange(values, target, column, path, rowBase);
  const fromText = src.kind === 'text' && !['text', 'varchar', 'bpchar', 'name', 'char'].includes(target.kind);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null) continue;
    try {
      // A load assigns, as INSERT does: an overlong string is refused (22001), not truncated.
      values[i] = fromText ? parseValue(v as string, target, settings) : castValue(v, src, target, settings, false);
    } catch (e) {
      const state = isFloeError(e) ? e.sqlstate : SqlState.datatypeMismatch;
      throw new FloeError(state, `column "${column}": cannot load Parquet ${formatType(src)} value into ${formatType(target)}: ${(e as Error).message}`, {
        detail: `row ${rowBase + i + 1} of ${path}`, cause: e,
      });
    }
  }
  return values;
}
