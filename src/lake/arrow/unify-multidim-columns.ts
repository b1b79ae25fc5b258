import { Field, makeData } from 'apache-arrow';
import type { Data, DataType, RecordBatch, Struct } from 'apache-arrow';
import { batchFromData, buildColumnData } from './batch-builder.js';
import { isMultidimArrowType, multidimArrowType } from './multidim-array.js';
import { takeData } from './take-rows.js';

/**
 * Batches written as one file share one schema: an array column that is a multi-dimensional
 * Struct{dims, items} in any batch (multidim-array.ts) becomes one in every batch, its
 * one-dimensional List rows given dims [n] (or [] for '{}').
 */
export function unifyMultidimColumns(batches: readonly RecordBatch[]): readonly RecordBatch[] {
  const multi = new Set<number>();
  // Judged by each column's data: a batch's schema may have been copied from another batch.
  for (const b of batches) b.data.children.forEach((d, i) => { if (isMultidimArrowType(d.type)) multi.add(i); });
  const mismatched = (b: RecordBatch): boolean => b.schema.fields.some((f, i) => f.type !== b.data.children[i]!.type
    && (isMultidimArrowType(f.type) || isMultidimArrowType(b.data.children[i]!.type)));
  if (multi.size === 0 && !batches.some(mismatched)) return batches;
  const unified = batches.map((b) => {
    const todo = [...multi].filter((i) => !isMultidimArrowType(b.data.children[i]!.type));
    if (todo.length === 0 && !mismatched(b)) return b;
    const fields = b.schema.fields.slice();
    const children = b.data.children.slice() as Data[];
    for (const i of todo) {
      let list = children[i]!;
      if (list.offset !== 0) list = takeData(list, Int32Array.from({ length: list.length }, (_, k) => k));
      const offs = list.valueOffsets as ArrayLike<number | bigint>;
      const dims = Array.from({ length: list.length }, (_, r) => {
        const n = Number(offs[r + 1]!) - Number(offs[r]!);
        return n > 0 ? [n] : [];
      });
      const type = multidimArrowType(list.type);
      const dimsData = buildColumnData({ kind: 'array', element: { kind: 'int4' } }, dims, fields[i]!.name, true);
      children[i] = makeData({ type, length: list.length, nullCount: list.nullCount, nullBitmap: list.nullBitmap, children: [dimsData, list] });
    }
    return batchFromData(fields, children, b.numRows);
  });
  // One Struct type per column across the batches (files name list children differently), so the
  // IPC writer sees one schema: a batch whose schema differs would end its stream.
  const canonical = new Map<number, DataType>();
  for (const b of unified) b.data.children.forEach((d, i) => { if (isMultidimArrowType(d.type) && !canonical.has(i)) canonical.set(i, d.type); });
  const first = unified[0]!;
  const fields = first.schema.fields.map((f, i) => {
    const type = canonical.get(i) ?? first.data.children[i]!.type;
    return type === f.type ? f : new Field(f.name, type, f.nullable, f.metadata);
  });
  return unified.map((b) => batchFromData(fields, b.data.children.map((d, i) => {
    const type = canonical.get(i);
    return type === undefined || d.type === type ? d : makeData({ type: type as Struct, offset: d.offset, length: d.length, nullCount: d.nullCount, nullBitmap: d.nullBitmap, children: d.children });
  }), b.numRows));
}
