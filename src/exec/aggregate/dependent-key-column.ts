import { ArrowColumn, decodeColumn } from '../arrow/columnar-batch.js';
import type { ColumnSource } from '../arrow/columnar-batch.js';
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
  append(values: ColumnSource): number {
    if (values.length === 0) return 0;
    this.#chunks.push(values);
    if (values instanceof ArrowColumn) {
      const data = values.pending()?.base ?? values.data;
      if (this.#held.has(data)) return 4 * values.length;
      this.#held.add(data);
      return 4 * values.length + data.byteLength;
    }
    let bytes = 0;
    for (let i = 0; i < values.length; i++) { const v = values[i]; bytes += typeof v === 'string' ? 16 + v.length * 2 : 16; }
    return bytes;
  }

  /** Every group's value, decoded (for a partial sent to another thread). */
  values(): unknown[] {
    const out: unknown[] = [];
    for (const chunk of this.#chunks) {
      const values = chunk instanceof ArrowColumn ? decodeColumn(chunk) : chunk;
      for (let i = 0; i < values.length; i++) out.push(values[i]);
    }
    return out;
  }

  /** Every group's value as one column: Arrow data while every chunk is, one selection of it while they share their data. */
  column(): ColumnSource {
    const chunks = this.#chunks;
    if (chunks.length === 0) return [];
    if (chunks.length === 1) return chunks[0]!;
    if (!chunks.every((c) => c instanceof ArrowColumn)) return this.values();
    const arrow = chunks as ArrowColumn[];
    const base = arrow[0]!.pending()?.base;
    if (base !== undefined && arrow.every((c) => c.pending()?.base === base)) {
      const rows = new Int32Array(arrow.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const c of arrow) { const part = c.pending()!.rows; rows.set(part, at); at += part.length; }
      return new ArrowColumn(base, arrow[0]!.type, rows);
    }
    const data = concatData(arrow.map((c) => c.data));
    return data === undefined ? this.values() : new ArrowColumn(data, arrow[0]!.type);
  }
}
