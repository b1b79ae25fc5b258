import type { SqlType } from '../../common/sql-type.js';
import { decodeStatValue } from '../stats/column-stats.js';
import { valueOrderOf } from '../stats/value-order.js';

/**
 * The values of a key's first column, sorted, to ask whether a file's catalog min/max
 * of that column can hold any of them. Key bitmaps fill up when a statement carries
 * thousands of keys; ranges do not, and bulk loads of ascending keys (serials, dates,
 * generated ids) fall outside every earlier file's range, so the check opens no file.
 */
export class KeyRangeFilter {
  readonly #type: SqlType;
  readonly #sorted: ArrayLike<unknown>;
  readonly #order: ((a: unknown, b: unknown) => number) | undefined;

  private constructor(type: SqlType, sorted: ArrayLike<unknown>, order: ((a: unknown, b: unknown) => number) | undefined) {
    this.#type = type;
    this.#sorted = sorted;
    this.#order = order;
  }

  static of(type: SqlType, values: readonly unknown[]): KeyRangeFilter {
    switch (type.kind) {
      case 'int2': case 'int4': case 'date':
        return new KeyRangeFilter(type, Float64Array.from(values as number[]).sort(), (a, b) => (a as number) - (b as number));
      case 'int8': case 'timestamp': case 'timestamptz': case 'time': case 'timetz':
        return new KeyRangeFilter(type, BigInt64Array.from(values as bigint[]).sort(), (a, b) => ((a as bigint) < (b as bigint) ? -1 : (a as bigint) > (b as bigint) ? 1 : 0));
      default: {
        const order = valueOrderOf(type);
        return new KeyRangeFilter(type, order === undefined ? values : [...values].sort(order), order);
      }
    }
  }

  /** False only when the stats prove no value lies in [min, max]. */
  mayHold(stats: { readonly min: unknown; readonly max: unknown } | undefined): boolean {
    const order = this.#order;
    if (stats === undefined || order === undefined || stats.min === null || stats.min === undefined) return true;
    let min: unknown;
    let max: unknown;
    try {
      min = decodeStatValue(this.#type, stats.min);
      max = stats.max === null || stats.max === undefined ? undefined : decodeStatValue(this.#type, stats.max);
    } catch {
      return true;
    }
    const v = this.#sorted;
    let a = 0;
    let b = v.length;
    while (a < b) { const mid = (a + b) >>> 1; if (order(v[mid], min) < 0) a = mid + 1; else b = mid; }
    return a < v.length && (max === undefined || order(v[a], max) <= 0);
  }
}
