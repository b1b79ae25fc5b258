import { makeVector } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import { takeData } from '../../lake/index.js';
import { dataToValues, vectorToValues } from './vector-values.js';

/**
 * A column of a batch under construction, tagged with how it is held, so code
 * picks a route by `kind`: decoded values, whole Arrow data, or some rows of
 * Arrow data not gathered yet. One object per column per batch, never per row;
 * one class per kind, so a site that reads every kind sees three shapes, not more.
 */
export type ColumnSource = ValuesColumn | ArrowColumn | ArrowRowsColumn;

/** The Arrow kinds: values lie at `rows` of `base` (every row of it when `rows` is undefined). */
export type ArrowForm = ArrowColumn | ArrowRowsColumn;

/** Decoded canonical values. */
export class ValuesColumn {
  readonly kind = 'values';
  constructor(readonly values: readonly unknown[]) {}
  get length(): number { return this.values.length; }
}

/** Arrow data standing for all its rows, with the SqlType its values decode as. */
export class ArrowColumn {
  readonly kind = 'arrow';
  readonly rows = undefined;
  constructor(readonly base: Data, readonly type: SqlType) {}
  get data(): Data { return this.base; }
  get length(): number { return this.base.length; }
}

/**
 * Rows `rows` of Arrow data (as a scan's filter or a join left them): selections
 * compose without copying, and the rows are gathered once, on first read of `data`.
 * `rows` must not change afterwards (`selectColumn` copies what it is given).
 */
export class ArrowRowsColumn {
  readonly kind = 'arrowRows';
  #gathered: Data | undefined;
  constructor(readonly base: Data, readonly type: SqlType, readonly rows: Int32Array) {}
  get data(): Data { return (this.#gathered ??= takeData(this.base, this.rows)); }
  get length(): number { return this.rows.length; }
}

export function valuesColumn(values: readonly unknown[]): ValuesColumn {
  return new ValuesColumn(values);
}

/** Arrow data as a column: all of it, or rows `rows` of it (kept as they are). */
export function arrowColumn(data: Data, type: SqlType, rows?: Int32Array): ArrowForm {
  return rows === undefined ? new ArrowColumn(data, type) : new ArrowRowsColumn(data, type, rows);
}

/** The column's values; rows of Arrow data decode in place, without gathering first. */
export function decodeColumn(c: ColumnSource): readonly unknown[] {
  switch (c.kind) {
    case 'values': return c.values;
    case 'arrow': return vectorToValues(makeVector(c.base), c.type);
    case 'arrowRows': return dataToValues(c.base, c.type, c.rows);
  }
}

/**
 * Rows `sel` of one column, in that order; Arrow data stays Arrow data. The
 * selection is copied: callers pass views of buffers they reuse (a join's pair
 * buffer), and the column must still see the rows it stood for.
 */
export function selectColumn(src: ColumnSource, sel: ArrayLike<number>): ColumnSource {
  switch (src.kind) {
    case 'values': {
      const n = sel.length;
      const values = src.values;
      const out = new Array<unknown>(n);
      for (let k = 0; k < n; k++) out[k] = values[sel[k]!];
      return new ValuesColumn(out);
    }
    case 'arrow':
      // A selection vector may come as a plain array of row numbers; rows are kept as an Int32Array.
      return new ArrowRowsColumn(src.base, src.type, sel instanceof Int32Array ? sel.slice() : Int32Array.from(sel));
    case 'arrowRows': {
      const rows = src.rows;
      const composed = new Int32Array(sel.length);
      for (let k = 0; k < sel.length; k++) composed[k] = rows[sel[k]!]!;
      return new ArrowRowsColumn(src.base, src.type, composed);
    }
  }
}

/** Rows [start, end) of one column. */
export function sliceColumn(src: ColumnSource, start: number, end: number): ColumnSource {
  switch (src.kind) {
    case 'values': return new ValuesColumn(src.values.slice(start, end));
    case 'arrow': return new ArrowColumn(src.base.slice(start, end - start), src.type);
    case 'arrowRows': return new ArrowRowsColumn(src.base, src.type, src.rows.subarray(start, end));
  }
}
