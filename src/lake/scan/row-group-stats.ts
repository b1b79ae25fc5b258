import type { SqlType } from '../../common/sql-type.js';
import { statsMayMatch } from '../stats/column-stats.js';
import type { StatPredicate } from '../stats/column-stats.js';
import { cachedFooterRowGroups, readFooterRowGroups } from '../format/parquet-footer.js';
import type { FooterRowGroup } from '../format/parquet-footer.js';
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
 * The row groups' column statistics as canonical values, from a Parquet file's
 * footer, without decoding any data. Only the exact, order-preserving encodings
 * are decoded: INT32 for int2/int4/date and INT64 for int8/time/timestamp(tz);
 * other columns get no bounds. Returns undefined when the footer cannot be read.
 */
export function readRowGroupStats(bytes: Uint8Array, types: ReadonlyMap<string, SqlType>): RowGroupStats[] | undefined {
  return statsOf(readFooterRowGroups(bytes), types);
}

/** Decoded statistics by file and column types (the parsed footers are cached beneath, in parquet-footer). */
const statsCache = new Map<string, RowGroupStats[] | undefined>();
const STATS_CACHE_FILES = 256;

/** readRowGroupStats, remembered per file and column types. */
export function cachedRowGroupStats(path: string, footer: Uint8Array, types: ReadonlyMap<string, SqlType>): RowGroupStats[] | undefined {
  const key = `${path}\0${footer.length}\0${JSON.stringify([...types])}`;
  if (statsCache.has(key)) return statsCache.get(key);
  const stats = statsOf(cachedFooterRowGroups(path, footer), types);
  if (statsCache.size >= STATS_CACHE_FILES) statsCache.delete(statsCache.keys().next().value!);
  statsCache.set(key, stats);
  return stats;
}

function statsOf(groups: readonly FooterRowGroup[] | undefined, types: ReadonlyMap<string, SqlType>): RowGroupStats[] | undefined {
  return groups?.map((g) => {
    const columns = new Map<string, ChunkStats>();
    for (const [name, c] of g.chunks) {
      const t = types.get(name);
      const decode = (v: Uint8Array | undefined): unknown => (v === undefined || t === undefined ? undefined : decodeBound(v, c.physical, t));
      columns.set(name, { min: decode(c.min), max: decode(c.max), nullCount: c.nullCount });
    }
    return { numRows: g.numRows, columns };
  });
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
      case 'int8': case 'time': case 'timestamp': case 'timestamptz': case 'timetz': return view.getBigInt64(0, true);
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
