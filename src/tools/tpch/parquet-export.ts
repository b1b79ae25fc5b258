import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DateDay, Decimal, Field, Int32, RecordBatch, Schema, Struct, Table, Utf8, makeData, tableToIPC,
} from 'apache-arrow';
import type { Data, DataType } from 'apache-arrow';
import * as pq from 'parquet-wasm';
import type { SqlType } from '../../common/sql-type.js';
import type { TpchBatch } from './tpch-generator.js';
import { tpchTable } from './tpch-schema.js';

const TWO32 = 4294967296;

/**
 * numeric's canonical text → the 128-bit little-endian unscaled integer at `scale`, written
 * into four uint32 words: one char loop in plain numbers for the generator's values (at
 * most 15 digits), BigInt only past 2^53. Extra fraction digits are truncated, which
 * never happens for generated values (they carry exactly `scale` digits).
 */
export function writeDecimal(words: Uint32Array, at: number, text: string, scale: number): void {
  const n = text.length;
  const neg = n > 0 && text.charCodeAt(0) === 45;
  let v = 0;
  let frac = -1;
  let fast = true;
  for (let i = neg ? 1 : 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 && frac < 0) { frac = 0; continue; }
    if (c < 48 || c > 57) { fast = false; break; }
    if (frac >= 0) {
      if (frac === scale) continue;
      frac++;
    }
    v = v * 10 + (c - 48);
  }
  for (let f = Math.max(frac, 0); f < scale; f++) v *= 10;
  if (fast && v <= Number.MAX_SAFE_INTEGER) {
    const u = neg ? -v : v;
    words[at * 4] = u >>> 0;
    words[at * 4 + 1] = Math.floor(u / TWO32) >>> 0;
    const hi = u < 0 ? 0xffffffff : 0;
    words[at * 4 + 2] = hi;
    words[at * 4 + 3] = hi;
    return;
  }
  const [int = '0', fracText = ''] = (neg ? text.slice(1) : text).split('.');
  let b = BigInt(int + fracText.padEnd(scale, '0').slice(0, scale));
  if (neg) b = -b;
  const u = BigInt.asUintN(128, b);
  for (let w = 0; w < 4; w++) words[at * 4 + w] = Number((u >> BigInt(32 * w)) & 0xffffffffn);
}

/** Utf8 Data straight into one byte buffer (ASCII inline, Buffer.write otherwise); `trimEnd` drops trailing blanks. */
function utf8Data(values: readonly unknown[], trimEnd: boolean): Data<DataType> {
  const length = values.length;
  const offsets = new Int32Array(length + 1);
  let cap = 0;
  for (let i = 0; i < length; i++) cap += (values[i] as string).length;
  let bytes = Buffer.allocUnsafe(Math.max(16, cap));
  let pos = 0;
  for (let i = 0; i < length; i++) {
    const s = values[i] as string;
    let end = s.length;
    if (trimEnd) while (end > 0 && s.charCodeAt(end - 1) === 32) end--;
    let j = 0;
    for (; j < end; j++) {
      const c = s.charCodeAt(j);
      if (c >= 0x80) break;
      bytes[pos + j] = c;
    }
    if (j < end) {
      const rest = s.slice(j, end);
      const need = pos + j + Buffer.byteLength(rest);
      if (need > bytes.length) {
        const grown = Buffer.allocUnsafe(Math.max(need, bytes.length * 2));
        bytes.copy(grown, 0, 0, pos + j);
        bytes = grown;
      }
      pos += j + bytes.write(rest, pos + j);
    } else {
      pos += end;
    }
    offsets[i + 1] = pos;
  }
  return makeData({ type: new Utf8(), length, nullCount: 0, valueOffsets: offsets, data: bytes.subarray(0, pos) });
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
      return utf8Data(values, true);
    default:
      return utf8Data(values, false);
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
    const rb = tpchRecordBatch(batch);
    const ipc = tableToIPC(new Table([rb]), 'stream');
    const wasmTable = pq.Table.fromIPCStream(ipc);
    // Dictionary pages only for strings, as Floe's own files: on numbers they cost encode
    // time (about 2.5× the whole file's) and buy nothing.
    let b = new pq.WriterPropertiesBuilder().setCompression(pq.Compression.ZSTD).setMaxRowGroupSize(131072).setDictionaryEnabled(false);
    for (const f of rb.schema.fields) if (f.type instanceof Utf8) b = b.setColumnDictionaryEnabled(f.name, true);
    const props = b.build();
    writeFileSync(join(tableDir, `part-${String(n).padStart(5, '0')}.parquet`), pq.writeParquet(wasmTable, props));
  }

  /** The glob DuckDB reads a table from. */
  globOf(table: string): string {
    return join(this.dir, table, '*.parquet');
  }
}
