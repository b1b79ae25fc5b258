import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { Type } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { arrowFormOf } from '../arrow/columnar-batch.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';
import { int32Column } from '../operators/int32-column.js';
import type { CompiledAggregation } from './compile-aggregation.js';
import type { KeyColumn } from './group-keys.js';
import { TextKeyIds } from './text-key-ids.js';

/** Per text key: the byte-level ids of every row of the data its last batches selected from, and how much they asked of it. */
interface BaseIds {
  base: Data | undefined;
  ids: Int32Array | undefined;
  asking: Data | undefined;
  asked: number;
}

/**
 * Reads a batch's hashed keys in the cheapest form each allows: text columns
 * still in Arrow UTF-8 as byte-level ids (`byteKeys`), NULL-free int4 columns
 * as their Int32Array, anything else evaluated to values.
 */
export class KeyReader {
  readonly #c: CompiledAggregation;
  /** Per key, its byte-level ids when it is read as bytes. */
  readonly texts: readonly (TextKeyIds | undefined)[];
  readonly #baseIds: BaseIds[];

  constructor(c: CompiledAggregation, { byteKeys }: { byteKeys: boolean }) {
    this.#c = c;
    this.texts = c.keyTextColumns.map((col, k) => (byteKeys && col >= 0 ? new TextKeyIds({ trimBlanks: c.keyTypes[k]!.kind === 'bpchar' }) : undefined));
    this.#baseIds = c.keyTextColumns.map(() => ({ base: undefined, ids: undefined, asking: undefined, asked: 0 }));
  }

  async read(b: ColumnarBatch, run: RunState): Promise<KeyColumn[]> {
    const c = this.#c;
    const out: KeyColumn[] = [];
    for (let k = 0; k < c.keyExprs.length; k++) {
      const ids = this.#textKeyIds(b, k);
      if (ids !== undefined) { out.push({ kind: 'textIds', ids }); continue; }
      const ints = c.keyIntColumns[k]! >= 0 ? int32Column(b, c.keyIntColumns[k]!) : undefined;
      out.push(ints !== undefined ? { kind: 'int32', ints } : { kind: 'values', values: await c.keyExprs[k]!.evaluate(b, run) });
    }
    return out;
  }

  /** Key k's byte-level ids for batch b, when it is a text key whose column is still Arrow UTF-8 data. */
  #textKeyIds(b: ColumnarBatch, k: number): Int32Array | undefined {
    const ids = this.texts[k];
    if (ids === undefined) return undefined;
    const form = arrowFormOf(b, this.#c.keyTextColumns[k]!);
    if (form === undefined || form.base.typeId !== Type.Utf8) return undefined;
    if (form.kind === 'arrow') return ids.idsOf(form.base, undefined);
    const { base: data, rows } = form;
    // Rows of a join's build side (n_name from nation, 30k parts probed by 119k rows):
    // once the rows asked of one data add up to its length, each of its rows is hashed
    // once, for this batch and the next ones over it, and the rows read their ids.
    const cache = this.#baseIds[k]!;
    if (cache.base !== data) {
      if (cache.asking !== data) { cache.asking = data; cache.asked = 0; }
      cache.asked += rows.length;
      if (cache.asked < data.length) return ids.idsOf(data, rows);
      cache.base = data;
      cache.ids = ids.idsOf(data, undefined);
    }
    const baseIds = cache.ids!;
    const out = new Int32Array(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = baseIds[rows[i]!]!;
    return out;
  }

  /** Row `row`'s value of key column `col` (key k), whatever form it was read in. */
  valueAt(col: KeyColumn, k: number, row: number): unknown {
    switch (col.kind) {
      case 'values': return col.values[row];
      case 'int32': return col.ints[row];
      case 'float64': return col.floats[row];
      case 'textIds': return this.texts[k]!.values[col.ids[row]!];
    }
  }
}

/** A translation from byte-level ids (-1: not yet met) grown to cover `size` of them. */
export function grownTranslation(tr: Int32Array, size: number): Int32Array {
  if (tr.length >= size) return tr;
  const grown = new Int32Array(Math.max(size, tr.length * 2, 16)).fill(-1);
  grown.set(tr);
  return grown;
}

/** For routes that read keys only as values: a column that came in another form is a bug. */
export function keyValues(col: KeyColumn): readonly unknown[] {
  if (col.kind !== 'values') throw new FloeError(SqlState.internalError, `group key read as ${col.kind} where values were expected`);
  return col.values;
}
