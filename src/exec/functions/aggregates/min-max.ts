import type { SqlType } from '../../../common/sql-type.js';
import { compareValues } from '../../types/value-ops.js';
import { BuiltinTypes as T } from '../builtin-operators.js';
import { registerAggregateFunction } from '../function-registry.js';
import type { AggregateImpl, ColumnarAggregate, ColumnarPartial } from '../function-registry.js';
import { batchOf } from './aggregate-support.js';
import { room } from './typed-columns.js';

/** min and max over every ordered type, and arrays. */
export function registerMinMax(): void {
  const ordered: SqlType[] = [T.int2, T.int4, T.int8, T.float4, T.float8, T.numeric, T.text, T.bpchar, T.name, T.date, T.time, T.timestamp, T.timestamptz, T.interval, T.bool, T.uuid, T.oid, T.bytea, T.char, T.timetz];
  for (const t of ordered) {
    // text's min/max order an enum argument by its labels' sort order (the argument keeps its enum type).
    const orderOf = (a: readonly SqlType[]): SqlType => (t.kind === 'text' && a[0]?.kind === 'text' ? a[0] : t);
    // Like PostgreSQL's min(anyenum), the result is of the argument's enum type.
    const returns = (_: readonly SqlType[], actual: readonly SqlType[]) => orderOf(actual);
    registerAggregateFunction({ name: 'min', args: [t], returns, impl: (a) => minMax(orderOf(a), false) });
    registerAggregateFunction({ name: 'max', args: [t], returns, impl: (a) => minMax(orderOf(a), true) });
  }
  registerAggregateFunction({ name: 'min', args: ['anyarray'], returns: (a) => a[0]!, impl: (a) => minMax(a[0]!, false) });
  registerAggregateFunction({ name: 'max', args: ['anyarray'], returns: (a) => a[0]!, impl: (a) => minMax(a[0]!, true) });
}

/** Types whose canonical values are numbers or BigInts that order like the SQL type (no NaN). */
const PLAIN_ORDER = new Set(['int2', 'int4', 'int8', 'date', 'oid', 'time', 'timestamp', 'timestamptz', 'timetz']);

function minMax(t: SqlType, max: boolean): AggregateImpl {
  const plain = PLAIN_ORDER.has(t.kind);
  // Among equal values that print differently (numeric 0.00 and 0, interval '1 day' and '24
  // hours', float -0 and 0) PostgreSQL's numeric_smaller/larger and kin keep the later one;
  // bpchar_smaller/larger keep the earlier.
  const laterWins = t.kind !== 'bpchar';
  const better = plain
    ? (max ? (a: unknown, b: unknown) => (b as number) > (a as number) : (a: unknown, b: unknown) => (b as number) < (a as number))
    : (a: unknown, b: unknown) => {
      const c = compareValues(b, a, t);
      return max ? c > 0 || (laterWins && c === 0) : c < 0 || (laterWins && c === 0);
    };
  const update = (st: { v: unknown }, v: unknown) => { if (st.v === null || better(st.v, v)) st.v = v; };
  return {
    init: () => ({ v: null as unknown }),
    step: (s, [v]) => { update(s as { v: unknown }, v); return s; },
    combine: (a, b) => { const x = a as { v: unknown }; const y = b as { v: unknown }; if (y.v !== null && (x.v === null || better(x.v, y.v))) return y; return x; },
    final: (s) => (s as { v: unknown }).v,
    batchStep: batchOf(update as (st: never, v: never) => void),
    ...(NUMBER_ORDER.has(t.kind) ? { columnar: () => new NumberMinMaxColumns(max) } : {}),
  };
}

/** Types whose canonical values are numbers ordered by < (no NaN, no -0): min/max keep them in a Float64Array. */
const NUMBER_ORDER = new Set(['int2', 'int4', 'date']);


/** min/max over int2/int4/date (numbers ordered by <, so ties need no rule). */
class NumberMinMaxColumns implements ColumnarAggregate {
  #v = new Float64Array(16);
  #has = new Uint8Array(16);

  constructor(readonly max: boolean) {}

  resize(n: number): void { this.#v = room(this.#v, n); this.#has = room(this.#has, n); }

  batchStep(groups: Int32Array, args: readonly (readonly unknown[])[], sel: Int32Array | undefined, n: number): void {
    const col = args[0]!;
    const val = this.#v; const has = this.#has;
    const max = this.max;
    for (let k = 0; k < n; k++) {
      const r = sel ? sel[k]! : k;
      const g = groups[r]!;
      const x = col[r] as number;
      if (has[g] === 0 || (max ? x > val[g]! : x < val[g]!)) { val[g] = x; has[g] = 1; }
    }
  }

  export(n: number): ColumnarPartial { return { n, arrays: [this.#v.slice(0, n), this.#has.slice(0, n)], states: [] }; }

  merge(p: ColumnarPartial, groups: Int32Array): void {
    const [pv, phas] = p.arrays as [Float64Array, Uint8Array];
    const val = this.#v; const has = this.#has;
    const max = this.max;
    for (let i = 0; i < p.n; i++) {
      if (phas[i] === 0) continue;
      const g = groups[i]!;
      const x = pv[i]!;
      if (has[g] === 0 || (max ? x > val[g]! : x < val[g]!)) { val[g] = x; has[g] = 1; }
    }
  }

  finish(n: number): unknown[] {
    const out = new Array<unknown>(n);
    for (let g = 0; g < n; g++) out[g] = this.#has[g] ? this.#v[g]! : null;
    return out;
  }
}
