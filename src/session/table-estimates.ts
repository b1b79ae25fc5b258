import type { SqlType } from '../common/sql-type.js';
import type { DataFileInfo } from '../lake/index.js';
import { finiteNumberOf } from '../planner/index.js';

/** Column kinds whose statistics are numbers on one line, so a range's share of them means something. */
const ORDERED_NUMERIC = new Set<SqlType['kind']>(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'date', 'time', 'timestamp', 'timestamptz', 'timetz']);


/** Live rows of a table's files (deletion vectors subtracted). */
export function liveRows(files: readonly DataFileInfo[]): number {
  return files.reduce((n, f) => n + f.rowCount - f.deletedRows, 0);
}

/**
 * [min, max] of each ordered numeric column over the files' statistics; a column
 * some file has no finite statistics for is left out (its span is unknown).
 */
export function columnRanges(files: readonly DataFileInfo[], columns: readonly { name: string; type: SqlType }[]): Record<string, readonly [number, number]> {
  const out: Record<string, readonly [number, number]> = {};
  for (const c of columns) {
    if (!ORDERED_NUMERIC.has(c.type.kind)) continue;
    let lo = Infinity;
    let hi = -Infinity;
    let known = files.length > 0;
    for (const f of files) {
      const s = f.columnStats[c.name];
      if (s !== undefined && s.nullCount === f.rowCount) continue;
      const min = finiteNumberOf(s?.min);
      const max = finiteNumberOf(s?.max);
      if (min === undefined || max === undefined) { known = false; break; }
      if (min < lo) lo = min;
      if (max > hi) hi = max;
    }
    if (known && lo <= hi) out[c.name] = [lo, hi];
  }
  return out;
}
