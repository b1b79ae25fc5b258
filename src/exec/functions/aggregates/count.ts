import type { AggregateImpl, ColumnarAggregate, ColumnarPartial } from '../function-registry.js';
import type { Data } from 'apache-arrow';
import { registerAggregateFunction } from '../function-registry.js';
import { BuiltinTypes as T } from '../builtin-operators.js';
import { int64Data, room } from './typed-columns.js';

interface CountState { n: number }

/** count(*) and count(x). */
export function registerCount(): void {
  registerAggregateFunction({ name: 'count', args: [], returns: T.int8, strict: false, id: 'count()', impl: countAgg });
  registerAggregateFunction({ name: 'count', args: ['any'], returns: T.int8, id: 'count(any)', impl: countAgg });
}

function countAgg(): AggregateImpl {
  return {
    init: () => ({ n: 0 }),
    step: (s) => { (s as CountState).n++; return s; },
    combine: (a, b) => ({ n: (a as CountState).n + (b as CountState).n }),
    final: (s) => BigInt((s as CountState).n),
    batchStep: (states, groups, _args, sel, n) => {
      if (sel) for (let k = 0; k < n; k++) (states[groups[sel[k]!]!] as CountState).n++;
      else for (let r = 0; r < n; r++) (states[groups[r]!] as CountState).n++;
    },
    columnar: () => new CountColumns(),
  };
}

class CountColumns implements ColumnarAggregate {
  #n = new Float64Array(16);

  resize(n: number): void { this.#n = room(this.#n, n); }

  batchStep(groups: Int32Array, _args: readonly (readonly unknown[])[], sel: Int32Array | undefined, n: number): void {
    const c = this.#n;
    if (sel) for (let k = 0; k < n; k++) c[groups[sel[k]!]!]! += 1;
    else for (let r = 0; r < n; r++) c[groups[r]!]! += 1;
  }

  export(n: number): ColumnarPartial { return { n, arrays: [this.#n.slice(0, n)], states: [] }; }

  merge(p: ColumnarPartial, groups: Int32Array): void {
    const from = p.arrays[0] as Float64Array;
    const c = this.#n;
    for (let i = 0; i < p.n; i++) c[groups[i]!]! += from[i]!;
  }

  finish(n: number): unknown[] {
    const c = this.#n;
    const out = new Array<unknown>(n);
    for (let g = 0; g < n; g++) out[g] = BigInt(c[g]!);
    return out;
  }

  finishArrow(n: number): Data {
    return int64Data(this.#n, n, undefined);
  }
}
