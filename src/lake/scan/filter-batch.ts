import { Type } from 'apache-arrow';
import type { RecordBatch } from 'apache-arrow';
import { columnReader } from '../arrow/column-reader.js';
import { valueOrderOf } from '../stats/value-order.js';
import { physicalName } from '../table/table-layout.js';
import type { ColumnMetadata } from '../table/table-metadata.js';
import type { ScanFilter } from './scan-types.js';
import { takeRows } from './take-rows.js';
import { typedSelection } from './typed-selection.js';

/** Filters executeScanTask applies exactly: null tests, and comparisons on ordered types. */
export function isExactFilter(f: ScanFilter, col: Pick<ColumnMetadata, 'type'>): boolean {
  if (f.op === 'isNull' || f.op === 'isNotNull') return true;
  return valueOrderOf(col.type) !== undefined;
}

/**
 * Keeps the rows of a merged batch (physical column names) that pass every filter,
 * with SQL semantics: a comparison with NULL on either side is not true.
 */
export function filterBatch(b: RecordBatch, filters: readonly ScanFilter[], columns: readonly ColumnMetadata[]): RecordBatch {
  const keep = filterSelection(b, filters, columns);
  return keep === undefined ? b : takeRows(b, keep);
}

/**
 * The rows of `b` (among `within`, ascending, when given) passing every filter,
 * ascending; undefined when all pass. Lets a caller defer the copy: a scan's consumer
 * may narrow the rows further first.
 */
export function filterSelection(
  b: RecordBatch, filters: readonly ScanFilter[], columns: readonly ColumnMetadata[], within?: Int32Array,
): Int32Array | undefined {
  if (filters.length === 0 || b.numRows === 0) return within;
  // Undefined while every row is kept: the first column's pass reads rows 0..n-1 directly.
  let keep: Int32Array | undefined = within;
  let n = within?.length ?? b.numRows;
  const passes = [...byColumn(filters)].map(([name, group]) => {
    const col = columns.find((c) => c.name === name)!;
    const vector = b.getChild(physicalName(col.fieldId))!;
    return { group, col, vector, typed: vector.data.length === 1 ? typedSelection(vector.data[0]!, group, col.type) : undefined };
  });
  // Cheapest passes first, so the dearer ones see only the rows left: typed numbers and dates
  // (a few ns a row), then typed text (bytes compared), then value by value.
  const cost = (p: (typeof passes)[number]) => (p.typed === undefined ? 2 : p.vector.type.typeId === Type.Utf8 ? 1 : 0);
  passes.sort((x, y) => cost(x) - cost(y));
  for (const { group, col, vector, typed } of passes) {
    if (n === 0) break;
    const out = new Int32Array(n);
    let kept = typed?.select(keep, n, out);
    if (kept === undefined || typed!.bad()) {
      // Value by value: the shapes the typed selection does not cover, or a value it could not compare exactly.
      const r = columnReader(vector, col.type);
      const tests = group.map((f) => predicate(f, col));
      kept = 0;
      for (let j = 0; j < n; j++) {
        const i = keep === undefined ? j : keep[j]!;
        const v = r.get(i);
        if (tests.every((t) => t(v))) out[kept++] = i;
      }
    }
    keep = out.subarray(0, kept);
    n = kept;
  }
  return n === b.numRows ? undefined : keep;
}

/** The filters grouped by column, in the order columns first appear: one pass per column. */
function byColumn(filters: readonly ScanFilter[]): Map<string, ScanFilter[]> {
  const groups = new Map<string, ScanFilter[]>();
  for (const f of filters) {
    const g = groups.get(f.column);
    if (g) g.push(f); else groups.set(f.column, [f]);
  }
  return groups;
}

function predicate(f: ScanFilter, col: ColumnMetadata): (v: unknown) => boolean {
  if (f.op === 'isNull') return (v) => v === null;
  if (f.op === 'isNotNull') return (v) => v !== null;
  const order = valueOrderOf(col.type)!;
  if (f.op === 'in') {
    const values = (f.values ?? []).filter((x) => x !== null && x !== undefined);
    return (v) => v !== null && values.some((x) => order(v, x) === 0);
  }
  const target = f.value;
  if (target === null || target === undefined) return () => false;
  switch (f.op) {
    case '=': return (v) => v !== null && order(v, target) === 0;
    case '<>': return (v) => v !== null && order(v, target) !== 0;
    case '<': return (v) => v !== null && order(v, target) < 0;
    case '<=': return (v) => v !== null && order(v, target) <= 0;
    case '>': return (v) => v !== null && order(v, target) > 0;
    case '>=': return (v) => v !== null && order(v, target) >= 0;
  }
}
