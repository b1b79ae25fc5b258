import type { SqlType } from '../../common/sql-type.js';
import { statsMayMatch } from '../stats/column-stats.js';
import type { StatPredicate } from '../stats/column-stats.js';
import { physicalName } from '../table/table-layout.js';
import type { ColumnMetadata } from '../table/table-metadata.js';
import type { ScanFilter } from './scan-types.js';

/** Min/max/null count of one column chunk, as canonical values (src/common/sql-type.ts); bounds absent when unknown. */
export interface ChunkStats {
  readonly min: unknown;
  readonly max: unknown;
  readonly nullCount: number | undefined;
}

export interface RowGroupStats {
  readonly numRows: number;
  /** By physical column name (the top-level schema path). */
  readonly columns: ReadonlyMap<string, ChunkStats>;
}

/**
 * Reads the row groups' column statistics from a Parquet file's footer (Thrift
 * compact protocol), without decoding any data. parquet-wasm exposes row-group
 * metadata but no statistics (shared/NOTES.md); the writer stores them in the
 * footer all the same. Only the exact, order-preserving encodings are decoded:
 * INT32 for int2/int4/date and INT64 for int8/time/timestamp(tz); other columns
 * get no bounds. Returns undefined when the footer cannot be read.
 */
export function readRowGroupStats(bytes: Uint8Array, types: ReadonlyMap<string, SqlType>): RowGroupStats[] | undefined {
  const n = bytes.length;
  if (n < 12 || tail(bytes, n - 4) !== 'PAR1') return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = view.getUint32(n - 8, true);
  if (len + 8 > n) return undefined;
  try {
    const r = new CompactReader(bytes, view, n - 8 - len);
    return fileMetaData(r, types);
  } catch {
    return undefined;
  }
}

/** Parsed footers by file and column types: data files never change once written. */
const statsCache = new Map<string, RowGroupStats[] | undefined>();
const STATS_CACHE_FILES = 256;

/**
 * readRowGroupStats, remembered per file: a worker runs several tasks over row-group
 * ranges of the same base file, and parsing a large footer (92 row groups × 17
 * columns for a lineitem file at SF 1) took longer than the filter it serves.
 */
export function cachedRowGroupStats(path: string, footer: Uint8Array, types: ReadonlyMap<string, SqlType>): RowGroupStats[] | undefined {
  const key = `${path}\0${footer.length}\0${JSON.stringify([...types])}`;
  if (statsCache.has(key)) return statsCache.get(key);
  const stats = readRowGroupStats(footer, types);
  if (statsCache.size >= STATS_CACHE_FILES) statsCache.delete(statsCache.keys().next().value!);
  statsCache.set(key, stats);
  return stats;
}

function tail(b: Uint8Array, at: number): string {
  return String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);
}

// Thrift compact type ids.
const T_STOP = 0, T_TRUE = 1, T_FALSE = 2, T_BYTE = 3, T_I16 = 4, T_I32 = 5, T_I64 = 6, T_DOUBLE = 7, T_BINARY = 8, T_LIST = 9, T_SET = 10, T_MAP = 11, T_STRUCT = 12;

class CompactReader {
  pos: number;
  constructor(readonly b: Uint8Array, readonly view: DataView, start: number) { this.pos = start; }
  byte(): number {
    if (this.pos >= this.b.length) throw new Error('footer overrun');
    return this.b[this.pos++]!;
  }
  varint(): bigint {
    let shift = 0n; let out = 0n;
    for (;;) {
      const x = this.byte();
      out |= BigInt(x & 0x7f) << shift;
      if ((x & 0x80) === 0) return out;
      shift += 7n;
    }
  }
  /** A zigzag varint that fits a JS number (field ids, i32, sizes). */
  int(): number {
    let shift = 0; let out = 0;
    for (;;) {
      const x = this.byte();
      out += (x & 0x7f) * 2 ** shift;
      if ((x & 0x80) === 0) break;
      shift += 7;
    }
    return out % 2 === 0 ? out / 2 : -(out + 1) / 2;
  }
  long(): bigint {
    const u = this.varint();
    return (u & 1n) === 0n ? u >> 1n : -((u + 1n) >> 1n);
  }
  /** An unsigned varint as a number (sizes, counts, skipped integers): no BigInt on the hot path. */
  size(): number {
    let shift = 0; let out = 0;
    for (;;) {
      const x = this.byte();
      out += (x & 0x7f) * 2 ** shift;
      if ((x & 0x80) === 0) return out;
      shift += 7;
    }
  }
  binary(): Uint8Array {
    const len = this.size();
    if (this.pos + len > this.b.length) throw new Error('footer overrun');
    const out = this.b.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  /** Iterates a struct's fields: calls `field(id, type)`, which must consume the value or return false to skip it. */
  struct(field: (id: number, type: number) => boolean): void {
    let last = 0;
    for (;;) {
      const h = this.byte();
      const type = h & 0x0f;
      if (type === T_STOP) return;
      const delta = h >> 4;
      const id = delta === 0 ? this.int() : last + delta;
      last = id;
      if (!field(id, type)) this.skip(type);
    }
  }
  list(each: (type: number, i: number) => void): number {
    const h = this.byte();
    let n = h >> 4;
    if (n === 15) n = this.size();
    const type = h & 0x0f;
    for (let i = 0; i < n; i++) each(type, i);
    return n;
  }
  skip(type: number): void {
    switch (type) {
      case T_TRUE: case T_FALSE: return;
      case T_BYTE: this.pos++; return;
      case T_I16: case T_I32: case T_I64: this.size(); return;
      case T_DOUBLE: this.pos += 8; return;
      case T_BINARY: this.binary(); return;
      case T_LIST: case T_SET: this.list((t) => (t === T_TRUE || t === T_FALSE ? this.pos++ : this.skip(t))); return;
      case T_MAP: {
        const n = this.size();
        if (n === 0) return;
        const kv = this.byte();
        for (let i = 0; i < n; i++) { this.skip(kv >> 4); this.skip(kv & 0x0f); }
        return;
      }
      case T_STRUCT: this.struct(() => false); return;
      default: throw new Error(`unknown thrift type ${type}`);
    }
  }
}

function fileMetaData(r: CompactReader, types: ReadonlyMap<string, SqlType>): RowGroupStats[] {
  const groups: RowGroupStats[] = [];
  r.struct((id, type) => {
    if (id !== 4 || type !== T_LIST) return false;
    r.list(() => groups.push(rowGroup(r, types)));
    return true;
  });
  return groups;
}

function rowGroup(r: CompactReader, types: ReadonlyMap<string, SqlType>): RowGroupStats {
  let numRows = 0;
  const columns = new Map<string, ChunkStats>();
  r.struct((id, type) => {
    if (id === 1 && type === T_LIST) {
      r.list(() => {
        r.struct((cid, ctype) => {
          if (cid !== 3 || ctype !== T_STRUCT) return false;
          const m = columnMetaData(r, types);
          if (m !== undefined) columns.set(m.name, m.stats);
          return true;
        });
      });
      return true;
    }
    if (id === 3 && type === T_I64) { numRows = Number(r.long()); return true; }
    return false;
  });
  return { numRows, columns };
}

function columnMetaData(r: CompactReader, types: ReadonlyMap<string, SqlType>): { name: string; stats: ChunkStats } | undefined {
  let physical = -1;
  const path: string[] = [];
  let raw: { min?: Uint8Array; max?: Uint8Array; nullCount?: number } | undefined;
  r.struct((id, type) => {
    if (id === 1 && type === T_I32) { physical = r.int(); return true; }
    if (id === 3 && type === T_LIST) { r.list(() => path.push(Buffer.from(r.binary()).toString('utf8'))); return true; }
    if (id === 12 && type === T_STRUCT) {
      const s: { min?: Uint8Array; max?: Uint8Array; nullCount?: number } = {};
      r.struct((sid, stype) => {
        // 5/6 are max_value/min_value in the column's sort order; 1/2 (deprecated) are signed-byte ordered: not used.
        if (sid === 5 && stype === T_BINARY) { s.max = r.binary(); return true; }
        if (sid === 6 && stype === T_BINARY) { s.min = r.binary(); return true; }
        if (sid === 3 && stype === T_I64) { s.nullCount = Number(r.long()); return true; }
        return false;
      });
      raw = s;
      return true;
    }
    return false;
  });
  if (path.length !== 1) return undefined;
  const name = path[0]!;
  const t = types.get(name);
  const decode = (v: Uint8Array | undefined): unknown => (v === undefined || t === undefined ? undefined : decodeBound(v, physical, t));
  return { name, stats: { min: decode(raw?.min), max: decode(raw?.max), nullCount: raw?.nullCount } };
}

/** A bound in canonical form, or undefined when this type/encoding pair is not decoded. */
function decodeBound(v: Uint8Array, physical: number, t: SqlType): unknown {
  const view = new DataView(v.buffer, v.byteOffset, v.byteLength);
  if (physical === 1 && v.length === 4) {
    const x = view.getInt32(0, true);
    switch (t.kind) {
      case 'int2': case 'int4': return x;
      // ±infinity dates are stored as the INT32 extremes (lake/arrow/batch-builder.ts).
      case 'date': return x === 2147483647 ? Infinity : x === -2147483648 ? -Infinity : x;
      default: return undefined;
    }
  }
  if (physical === 2 && v.length === 8) {
    switch (t.kind) {
      case 'int8': case 'time': case 'timestamp': case 'timestamptz': return view.getBigInt64(0, true);
      default: return undefined;
    }
  }
  return undefined;
}

function predicateOf(f: ScanFilter): StatPredicate | undefined {
  switch (f.op) {
    case 'isNull': case 'isNotNull': return { op: f.op };
    case 'in': return f.values === undefined ? undefined : { op: 'in', values: f.values.filter((v) => v !== null && v !== undefined) };
    default: return f.value === null || f.value === undefined ? undefined : { op: f.op, value: f.value };
  }
}

/** False only when the chunk's statistics prove no row of the group passes the filter. */
function chunkMayMatch(s: ChunkStats | undefined, numRows: number, f: ScanFilter, type: SqlType): boolean {
  if (s === undefined) return true;
  const pred = predicateOf(f);
  if (pred === undefined) {
    // `= NULL` and friends match nothing; filterBatch drops every row anyway.
    return f.op === 'isNull' || f.op === 'isNotNull';
  }
  if (pred.op === 'isNull' || pred.op === 'isNotNull') {
    return s.nullCount === undefined ? true : statsMayMatch({ min: null, max: null, nullCount: s.nullCount }, type, pred, numRows);
  }
  // Every value NULL: no comparison is true.
  if (s.nullCount !== undefined && s.nullCount === numRows && numRows > 0) return false;
  if (s.min === undefined || s.max === undefined || s.nullCount === undefined) return true;
  return statsMayMatch({ min: s.min, max: s.max, nullCount: s.nullCount }, type, pred, numRows);
}

/**
 * The row groups among `candidates` (all when undefined) that the filters cannot
 * rule out by their column statistics, in file order.
 */
export function rowGroupsMatching(
  groups: readonly RowGroupStats[], candidates: readonly number[] | undefined, filters: readonly ScanFilter[], columns: readonly ColumnMetadata[],
): number[] {
  const list = candidates ?? groups.map((_, i) => i);
  if (filters.length === 0) return [...list];
  const cols = filters.map((f) => columns.find((c) => c.name === f.column));
  return list.filter((g) => {
    const rg = groups[g];
    if (rg === undefined) return true;
    return filters.every((f, i) => {
      const c = cols[i];
      return c === undefined || chunkMayMatch(rg.columns.get(physicalName(c.fieldId)), rg.numRows, f, c.type);
    });
  });
}

/** Physical column name → SQL type, for readRowGroupStats. */
export function physicalTypes(columns: readonly ColumnMetadata[]): Map<string, SqlType> {
  return new Map(columns.map((c) => [physicalName(c.fieldId), c.type]));
}
