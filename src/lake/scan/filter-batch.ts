import type { RecordBatch } from 'apache-arrow';
import { columnReader } from '../arrow/column-reader.js';
import { valueOrderOf } from '../stats/value-order.js';
import { physicalName } from '../table/table-layout.js';
import type { ColumnMetadata } from '../table/table-metadata.js';
import type { ScanFilter } from './scan-types.js';
import { takeRows } from './take-rows.js';
import { typedPredicate } from './typed-predicate.js';

/** Filters executeScanTask applies exactly: null tests, and comparisons on ordered types. */
export function isExactFilter(f: ScanFilter, col: ColumnMetadata): boolean {
  if (f.op === 'isNull' || f.op === 'isNotNull') return true;
  return valueOrderOf(col.type) !== undefined;
}

/**
 * Keeps the rows of a merged batch (physical column names) that pass every filter,
 * with SQL semantics: a comparison with NULL on either side is not true. With
 * `minDropShare` > 0 the filter is only an early cut that a later pass repeats:
 * the batch comes back whole unless at least that share of its rows fails.
 */
export function filterBatch(b: RecordBatch, filters: readonly ScanFilter[], columns: readonly ColumnMetadata[], minDropShare = 0): RecordBatch {
  if (filters.length === 0 || b.numRows === 0) return b;
  let keep: Int32Array | undefined;
  for (const f of filters) {
    const col = columns.find((c) => c.name === f.column)!;
    const vector = b.getChild(physicalName(col.fieldId))!;
    const src = keep ?? Int32Array.from({ length: b.numRows }, (_, i) => i);
    const out = new Int32Array(src.length);
    let n = 0;
    const typed = vector.data.length === 1 ? typedPredicate(vector.data[0]!, f, col.type) : undefined;
    if (typed) {
      for (let j = 0; j < src.length; j++) if (typed.test(src[j]!)) out[n++] = src[j]!;
    }
    if (!typed || typed.bad()) {
      // Value by value: the shapes the typed test does not cover, or a value it could not compare exactly.
      const r = columnReader(vector, col.type);
      const test = predicate(f, col);
      n = 0;
      for (let j = 0; j < src.length; j++) if (test(r.get(src[j]!))) out[n++] = src[j]!;
    }
    keep = out.subarray(0, n);
  }
  // An optional filter (one a later pass repeats) keeps the batch whole unless it drops enough to pay for the copy.
  return keep!.length === b.numRows || keep!.length > b.numRows * (1 - minDropShare) ? b : takeRows(b, keep!);
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
