import { FloeError } from '../../../common/floe-error.js';
import { SqlState } from '../../../common/sqlstate.js';
import type { Data } from 'apache-arrow';
import { decDiv, formatDecimal } from '../../types/numeric.js';
import { BuiltinTypes as T } from '../builtin-operators.js';
import { registerAggregateFunction } from '../function-registry.js';
import type { AggregateImpl, ColumnarAggregate, ColumnarPartial } from '../function-registry.js';
import { batchOf, SAFE } from './aggregate-support.js';
import { decimalData, int64Data, room, statesBelow } from './typed-columns.js';

interface IntState { sum: bigint; count: number; acc: number }

/** sum and avg over int2, int4 and int8. */
export function registerIntSums(): void {
  for (const k of ['int2', 'int4'] as const) {
    registerAggregateFunction({ name: 'sum', args: [T[k]], returns: T.int8, impl: () => intSum((s) => (s.count === 0 ? null : checkInt8(intTotal(s))), 'int64') });
    registerAggregateFunction({ name: 'avg', args: [T[k]], returns: T.numeric, impl: () => intSum(avgOfInt) });
  }
  registerAggregateFunction({ name: 'sum', args: [T.int8], returns: T.numeric, impl: () => intSum((s) => (s.count === 0 ? null : intTotal(s).toString()), 'decimal') });
  registerAggregateFunction({ name: 'avg', args: [T.int8], returns: T.numeric, impl: () => intSum(avgOfInt) });
}

/** Integer sums add in a double while exact and spill into a BigInt before they could round. */
function intStep(st: IntState, v: number | bigint): void {
  if (typeof v === 'bigint') {
    if (v <= SAFE && v >= -SAFE) st.acc += Number(v);
    else st.sum += v;
  } else st.acc += v;
  if (st.acc > SAFE || st.acc < -SAFE) { st.sum += BigInt(st.acc); st.acc = 0; }
  st.count++;
}

function intCombine(x: IntState, y: IntState): IntState {
  return { sum: x.sum + y.sum + BigInt(x.acc) + BigInt(y.acc), count: x.count + y.count, acc: 0 };
}

const intSum = (final: (s: IntState) => unknown, arrow?: 'int64' | 'decimal'): AggregateImpl => ({
  init: () => ({ sum: 0n, count: 0, acc: 0 }),
  step: (s, [v]) => { intStep(s as IntState, v as number | bigint); return s; },
  combine: (a, b) => intCombine(a as IntState, b as IntState),
  final: final as (s: unknown) => unknown,
  batchStep: batchOf(intStep),
  columnar: () => new IntSumColumns(final, arrow),
});

function intTotal(s: IntState): bigint {
  return s.sum + BigInt(s.acc);
}

function checkInt8(v: bigint): bigint {
  if (v > 2n ** 63n - 1n || v < -(2n ** 63n)) throw new FloeError(SqlState.numericValueOutOfRange, 'bigint out of range');
  return v;
}

function avgOfInt(s: IntState): string | null {
  if (s.count === 0) return null;
  return formatDecimal(decDiv({ unscaled: intTotal(s), scale: 0 }, { unscaled: BigInt(s.count), scale: 0 }));
}

/**
 * sum/avg over int2/int4/int8: per group a running double and a count while
 * the total stays within 2^52 (IntState with sum 0n); a group past that, or
 * given an int8 beyond 2^52, keeps its IntState in #objects.
 */
class IntSumColumns implements ColumnarAggregate {
  #acc = new Float64Array(16);
  #cnt = new Float64Array(16);
  /** 1: the group's state is in #objects. */
  #obj = new Uint8Array(16);
  readonly #objects = new Map<number, IntState>();
  readonly #scratch: IntState = { sum: 0n, count: 0, acc: 0 };

  /** `arrow`: the final values are the totals as int8 (sum(int2/int4)) or as numeric at scale 0 (sum(int8)). */
  constructor(readonly final: (s: IntState) => unknown, readonly arrow?: 'int64' | 'decimal') {}

  resize(n: number): void {
    this.#acc = room(this.#acc, n); this.#cnt = room(this.#cnt, n); this.#obj = room(this.#obj, n);
  }

  #state(g: number): IntState {
    return this.#obj[g] ? this.#objects.get(g)! : { sum: 0n, count: this.#cnt[g]!, acc: this.#acc[g]! };
  }

  #put(g: number, st: IntState): void {
    if (st.sum === 0n) {
      this.#acc[g] = st.acc; this.#cnt[g] = st.count;
      if (this.#obj[g]) { this.#obj[g] = 0; this.#objects.delete(g); }
    } else { this.#obj[g] = 1; this.#objects.set(g, st); }
  }

  batchStep(groups: Int32Array, args: readonly (readonly unknown[])[], sel: Int32Array | undefined, n: number): void {
    const col = args[0]!;
    const acc = this.#acc; const cnt = this.#cnt; const obj = this.#obj;
    for (let k = 0; k < n; k++) {
      const r = sel ? sel[k]! : k;
      const g = groups[r]!;
      const v = col[r] as number | bigint;
      if (obj[g] === 0) {
        // intStep's double path: int2/int4 values, and int8 ones within 2^52.
        const x = typeof v === 'number' ? v : v <= SAFE && v >= -SAFE ? Number(v) : NaN;
        const a = acc[g]! + x;
        if (a <= SAFE && a >= -SAFE) { acc[g] = a; cnt[g]! += 1; continue; }
      }
      const st = this.#state(g);
      intStep(st, v);
      this.#put(g, st);
    }
  }

  export(n: number): ColumnarPartial {
    return { n, arrays: [this.#acc.slice(0, n), this.#cnt.slice(0, n), this.#obj.slice(0, n)], states: statesBelow(this.#objects, n) };
  }

  merge(p: ColumnarPartial, groups: Int32Array): void {
    const [pacc, pcnt, pobj] = p.arrays as [Float64Array, Float64Array, Uint8Array];
    const acc = this.#acc; const cnt = this.#cnt; const obj = this.#obj;
    for (let i = 0; i < p.n; i++) {
      if (pobj[i] || pcnt[i] === 0) continue;
      const g = groups[i]!;
      if (obj[g] === 0) {
        const a = acc[g]! + pacc[i]!;
        if (a <= SAFE && a >= -SAFE) { acc[g] = a; cnt[g]! += pcnt[i]!; continue; }
      }
      this.#put(g, intCombine(this.#state(g), { sum: 0n, count: pcnt[i]!, acc: pacc[i]! }));
    }
    for (const [i, st] of p.states) { const g = groups[i]!; this.#put(g, intCombine(this.#state(g), st as IntState)); }
  }

  finish(n: number): unknown[] {
    const out = new Array<unknown>(n);
    const sc = this.#scratch;
    for (let g = 0; g < n; g++) {
      if (this.#obj[g]) { out[g] = this.final(this.#objects.get(g)!); continue; }
      sc.count = this.#cnt[g]!; sc.acc = this.#acc[g]!;
      out[g] = this.final(sc);
    }
    return out;
  }

  finishArrow(n: number): Data | undefined {
    if (this.arrow === undefined || this.#objects.size > 0) return undefined;
    // Totals within 2^52: sum(int2/int4) is inside int8's range without checkInt8.
    return this.arrow === 'int64' ? int64Data(this.#acc, n, this.#cnt) : decimalData(this.#acc, n, 0, this.#cnt);
  }
}
