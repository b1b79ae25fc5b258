import { Field, Int32, List, Struct, Type } from 'apache-arrow';
import type { DataType } from 'apache-arrow';

/**
 * Multi-dimensional arrays in Arrow. A canonical array value is a JS array; one of
 * several dimensions is nested JS arrays (rectangular, lower bounds 1, as PostgreSQL's
 * text form spells it). One-dimensional arrays, the common case, stay Arrow List(T).
 * A batch (or data file) whose array column holds a multi-dimensional value stores that
 * column as Struct{dims: List(Int32), items: List(T)} instead: dims per value (empty dims
 * for '{}'), items flattened in row-major order. Readers pick by the Arrow type they find,
 * so files of either form mix in one table.
 */
export const MULTIDIM_DIMS_FIELD = 'dims';
export const MULTIDIM_ITEMS_FIELD = 'items';

export function isMultidimensional(v: unknown): v is unknown[][] {
  return Array.isArray(v) && v.length > 0 && Array.isArray(v[0]);
}

export function hasMultidimensional(values: readonly unknown[]): boolean {
  for (const v of values) if (isMultidimensional(v)) return true;
  return false;
}

/** The dimension lengths and the row-major elements of a (possibly nested) array. */
export function flattenArray(v: readonly unknown[]): { dims: number[]; items: unknown[] } {
  const dims: number[] = [];
  for (let x: unknown = v; Array.isArray(x) && x.length > 0; x = x[0]) dims.push(x.length);
  return { dims, items: dims.length > 1 ? (v.flat(dims.length - 1) as unknown[]) : (v as unknown[]) };
}

/** The nested array of `items` laid out by `dims`. */
export function nestArray(dims: readonly number[], items: readonly unknown[]): unknown[] {
  if (dims.length <= 1) return items.slice();
  const build = (d: number, start: number): unknown[] => {
    const n = dims[d]!;
    if (d === dims.length - 1) return items.slice(start, start + n);
    const stride = dims.slice(d + 1).reduce((a, b) => a * b, 1);
    const out: unknown[] = [];
    for (let i = 0; i < n; i++) out.push(build(d + 1, start + i * stride));
    return out;
  };
  return build(0, 0);
}

/** The Struct type a multi-dimensional array column takes, given its List(T) type. */
export function multidimArrowType(listType: DataType): Struct {
  return new Struct([
    new Field(MULTIDIM_DIMS_FIELD, new List(new Field('element', new Int32(), true)), false),
    new Field(MULTIDIM_ITEMS_FIELD, listType, false),
  ]);
}

export function isMultidimArrowType(t: DataType): boolean {
  const children = (t as unknown as { children?: Field[] }).children;
  return t.typeId === Type.Struct && children?.length === 2 && children[0]!.name === MULTIDIM_DIMS_FIELD && children[1]!.name === MULTIDIM_ITEMS_FIELD;
}
