import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { rowKey } from '../types/value-ops.js';
import { BuiltinTypes as T } from './builtin-operators.js';
import { registerScalarFunction } from './function-registry.js';

/** The binder's name for TABLESAMPLE's row test (no PostgreSQL function has it). */
export const TABLE_SAMPLE_FUNCTION = 'floe_tablesample';

/** FNV-1a over the text, as a fraction in [0, 1). */
function hashFraction(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // One more avalanche round, so rows that differ only at the end spread over the whole range.
  h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b); h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35); h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/**
 * TABLESAMPLE BERNOULLI / SYSTEM (percent) [REPEATABLE (seed)]: whether to keep a row
 * (arguments: percent, seed or NULL, then the row's columns). Each row is kept with
 * probability percent/100: at random, or with REPEATABLE by a hash of the seed and
 * the row's values, so the same seed picks the same rows while the table is unchanged.
 */
export function registerTableSampleFunction(): void {
  const test = (types: readonly SqlType[]) => (a: unknown[]): boolean => {
    const percent = a[0];
    if (percent === null || typeof percent !== 'number' || !(percent >= 0 && percent <= 100)) {
      throw new FloeError('2202H', 'sample percentage must be between 0 and 100');
    }
    const seed = a[1];
    const fraction = seed === null ? Math.random() : hashFraction(`${String(seed)}|${rowKey(a.slice(2), types.slice(2))}`);
    return fraction < percent / 100;
  };
  registerScalarFunction({
    name: TABLE_SAMPLE_FUNCTION, args: [T.float8, T.float8, 'any'], variadic: true, returns: T.bool, strict: false, volatile: true,
    id: `${TABLE_SAMPLE_FUNCTION}(float8,float8,any...)`,
    impl: (a) => test(a.map(() => ({ kind: 'text' }) as SqlType))(a),
    implFor: test,
  });
}
