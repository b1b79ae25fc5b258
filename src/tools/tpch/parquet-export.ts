import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DateDay, Decimal, Field, Int32, RecordBatch, Schema, Struct, Table, Utf8, makeData, tableToIPC, vectorFromArray,
} from 'apache-arrow';
import type { Data, DataType } from 'apache-arrow';
import * as pq from 'parquet-wasm';
import type { SqlType } from '../../common/sql-type.js';
import type { TpchBatch } from './tpch-generator.js';
import { tpchTable } from './tpch-schema.js';

/** numeric's canonical text → the 128-bit little-endian unscaled integer at `scale`, written into four uint32 words. */
function writeDecimal(words: Uint32Array, at: number, text: string, scale: number): void {
  const neg = text.startsWith('-');
  const [int = '0', frac = ''] = (neg ? text.slice(1) : text).split('.');
  let v = BigInt(int + frac.padEnd(scale, '0').slice(0, scale));
  if (neg) v = -v;
  const u = BigInt.asUintN(128, v);
  for (let w = 0; w < 4; w++) words[at * 4 + w] = Number((u >> BigInt(32 * w)) & 0xffffffffn);
}

function columnData(values: readonly unknown[], t: SqlType): Data<DataType> {
  const length = values.length;
  switch (t.kind) {
    case 'int4':
      return makeData({ type: new Int32(), length, nullCount: 0, data: Int32Array.from(values as number[]) });
    case 'date':
      return makeData({ type: new DateDay(), length, nullCount: 0, data: Int32Array.from(values as number[]) });
    case 'numeric': {
      const scale = t.scale ?? 0;
      const words = new Uint32Array(length * 4);
      for (let i = 0; i < length; i++) writeDecimal(words, i, values[i] as string, scale);
      return makeData({ type: new Decimal(scale, t.precision ?? 38, 128), length, nullCount: 0, data: words });
    }
    case 'bpchar':
      // DuckDB has no blank-padded type: it gets the value without the padding, as char(N) compares.
      return vectorFromArray((values as string[]).map((s) => s.trimEnd()), new Utf8()).data[0]!;
    default:
      return vectorFromArray(values as string[], new Utf8()).data[0]!;
  }
}

function arrowType(t: SqlType): DataType {
  switch (t.kind) {
    case 'int4': return new Int32();
    case 'date': return new DateDay();
    case 'numeric': return new Decimal(t.scale ?? 0, t.precision ?? 38, 128);
    default: return new Utf8();
  }
}

/** The batch as an Arrow record batch with DuckDB-friendly types (int32, decimal(15,2), date32, utf8). */
export function tpchRecordBatch(batch: TpchBatch): RecordBatch {
  const cols = tpchTable(batch.table).columns;
  const schema = new Schema(cols.map((c) => new Field(c.name, arrowType(c.type), false)));
  const children = cols.map((c, i) => columnData(batch.columns[i]!, c.type));
  const data = makeData({ type: new Struct(schema.fields), length: batch.rowCount, nullCount: 0, children });
  return new RecordBatch(schema, data);
}

/**
 * Writes TPC-H batches as Parquet (zstd), one file per batch: `<dir>/<table>/part-NNNNN.parquet`,
 * so DuckDB reads each table with a glob.
 */
export class ParquetExport {
  private readonly counters = new Map<string, number>();

  constructor(readonly dir: string) {}

  write(batch: TpchBatch): void {
    const n = this.counters.get(batch.table) ?? 0;
    this.counters.set(batch.table, n + 1);
    const tableDir = join(this.dir, batch.table);
    mkdirSync(tableDir, { recursive: true });
    const ipc = tableToIPC(new Table([tpchRecordBatch(batch)]), 'stream');
    const wasmTable = pq.Table.fromIPCStream(ipc);
    const props = new pq.WriterPropertiesBuilder().setCompression(pq.Compression.ZSTD).setMaxRowGroupSize(131072).build();
    writeFileSync(join(tableDir, `part-${String(n).padStart(5, '0')}.parquet`), pq.writeParquet(wasmTable, props));
  }

  /** The glob DuckDB reads a table from. */
  globOf(table: string): string {
    return join(this.dir, table, '*.parquet');
  }
}
