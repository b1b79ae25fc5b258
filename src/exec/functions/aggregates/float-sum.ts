import { BuiltinTypes as T } from '../builtin-operators.js';
import { registerAggregateFunction } from '../function-registry.js';
import type { AggregateImpl, ColumnarAggregate, ColumnarPartial } from '../function-registry.js';
import { batchOf } from './aggregate-support.js';
import { room } from './typed-columns.js';

interface FloatState { sum: number; sumSq: number; count: number }

/** sum and avg over float4 and float8. */
export function registerFloatSums(): void {
  for (const k of ['float4', 'float8'] as const) {
    registerAggregateFunction({
      name: 'sum', args: [T[k]], returns: T[k],
      impl: () => floatAcc((s) => (s.count === 0 ? null : k === 'float4' ? Math.fround(s.sum) : s.sum)),
    });
    registerAggregateFunction({
      name: 'avg', args: [T[k]], returns: T.float8,
      impl: () => floatAcc((s) => (s.count === 0 ? null : s.sum / s.count)),
    });
  }
}

function floatStep(st: FloatState, x: number): void {
  st.sum += x; st.sumSq += x * x; st.count++;
}

function floatAcc(final: (s: FloatState) => unknown): AggregateImpl {
  return {
    init: () => ({ sum: 0, sumSq: 0, count: 0 }),
    step: (s, [v]) => { floatStep(s as FloatState, v as number); return s; },
    combine: (a, b) => { const x = a as FloatState; const y = b as FloatState; return { sum: x.sum + y.sum, sumSq: x.sumSq + y.sumSq, count: x.count + y.count }; },
    final: final as (s: unknown) => unknown,
    batchStep: batchOf(floatStep),
    columnar: () => new FloatColumns(final),
  };
}

/** sum/avg over float4/float8: the same additions in the same order as FloatState's. */
class FloatColumns implements ColumnarAggregate {
  #sum = new Float64Array(16);
  #sumSq = new Float64Array(16);
  #cnt = new Float64Array(16);
  readonly #scratch: FloatState = { sum: 0, sumSq: 0, count: 0 };

  constructor(readonly final: (s: FloatState) => unknown) {}

  resize(n: number): void {
    this.#sum = room(this.#sum, n); this.#sumSq = room(this.#sumSq, n); this.#cnt = room(this.#cnt, n);
  }

  batchStep(groups: Int32Array, args: readonly (readonly unknown[])[], sel: Int32Array | undefined, n: number): void {
    const col = args[0]!;
    const sum = this.#sum; const sumSq = this.#sumSq; const cnt = this.#cnt;
    for (let k = 0; k < n; k++) {
      const r = sel ? sel[k]! : k;
      const g = groups[r]!;
      const x = col[r] as number;
      sum[g]! += x; sumSq[g]! += x * x; cnt[g]! += 1;
    }
  }

  export(n: number): ColumnarPartial {
    return { n, arrays: [this.#sum.slice(0, n), this.#sumSq.slice(0, n), this.#cnt.slice(0, n)], states: [] };
  }

  merge(p: ColumnarPartial, groups: Int32Array): void {
    const [psum, psq, pcnt] = p.arrays as [Float64Array, Float64Array, Float64Array];
    const sum = this.#sum; const sumSq = this.#sumSq; const cnt = this.#cnt;
    for (let i = 0; i < p.n; i++) {
      const g = groups[i]!;
      sum[g]! += psum[i]!; sumSq[g]! += psq[i]!; cnt[g]! += pcnt[i]!;
    }
  }

  finish(n: number): unknown[] {
    const out = new Array<unknown>(n);
    const sc = this.#scratch;
    for (let g = 0; g < n; g++) {
      sc.sum = this.#sum[g]!; sc.sumSq = this.#sumSq[g]!; sc.count = this.#cnt[g]!;
      out[g] = this.final(sc);
    }
    return out;
  }
}
