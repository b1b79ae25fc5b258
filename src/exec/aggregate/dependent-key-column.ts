import { ArrowColumn, ArrowRowsColumn, decodeColumn, valuesColumn } from '../arrow/column-source.js';
import type { ArrowForm, ColumnSource } from '../arrow/column-source.js';
import { concatData } from '../arrow/concat-data.js';
import type { Data } from 'apache-arrow';

/**
 * A dependent GROUP BY key's value for each group (HashAggregatePlan.dependentKeys),
 * in group order, taken from the row where each group began. Arrow data stays
 * Arrow data, as the rows of it the groups need, and is decoded only when
 * someone reads it: a GROUP BY a customer key carries five customer columns for 38,964 groups,
 * of which a LIMIT shows 20. Rows of a join's build side all share its data,
 * and handing them on as one selection of it copies nothing.
 */
export class DependentKeyColumn {
  readonly #chunks: ColumnSource[] = [];
  /** The Arrow data the chunks select from, each charged once. */
  readonly #held = new Set<Data>();

  /** Appends the next groups' values; returns the bytes newly held. */
  append(column: ColumnSource): number {
    if (column.length === 0) return 0;
    this.#chunks.push(column);
    if (column.kind !== 'values') {
      const data = column.base;
      if (this.#held.has(data)) return 4 * column.length;
      this.#held.add(data);
      return 4 * column.length + data.byteLength;
    }
    const values = column.values;
    let bytes = 0;
    for (let i = 0; i < values.length; i++) { const v = values[i]; bytes += typeof v === 'string' ? 16 + v.length * 2 : 16; }
    return bytes;
  }

  /** Every group's value, decoded (for a partial sent to another thread). */
  values(): unknown[] {
    const out: unknown[] = [];
    for (const chunk of this.#chunks) {
      const values = decodeColumn(chunk);
      for (let i = 0; i < values.length; i++) out.push(values[i]);
    }
    return out;
  }

  /** Every group's value as one column: Arrow data while every chunk is, one selection of it while they share their data. */
  column(): ColumnSource {
    const chunks = this.#chunks;
    if (chunks.length === 0) return valuesColumn([]);
    if (chunks.length === 1) return chunks[0]!;
    const arrow: ArrowForm[] = [];
    for (const c of chunks) if (c.kind !== 'values') arrow.push(c);
    if (arrow.length < chunks.length) return valuesColumn(this.values());
    const shared = sharedRows(arrow);
    if (shared !== undefined) return shared;
    const data = concatData(arrow.map((c) => c.data));
    return data === undefined ? valuesColumn(this.values()) : new ArrowColumn(data, arrow[0]!.type);
  }
}

/** Chunks that are all rows of one Arrow data, as one selection of it; undefined otherwise. */
function sharedRows(chunks: readonly ArrowForm[]): ArrowRowsColumn | undefined {
  const base = chunks[0]!.base;
  const parts: Int32Array[] = [];
  let n = 0;
  for (const c of chunks) {
    if (c.kind !== 'arrowRows' || c.base !== base) return undefined;
    parts.push(c.rows);
    n += c.rows.length;
  }
  const rows = new Int32Array(n);
  let at = 0;
  for (const part of parts) { rows.set(part, at); at += part.length; }
  return new ArrowRowsColumn(base, chunks[0]!.type, rows);
}
