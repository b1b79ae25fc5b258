import { accumulateSubArray } from '../../types/array-of-sub-arrays.js';
import { registerAggregateFunction } from '../function-registry.js';
import { simple } from './aggregate-support.js';

/** array_agg (the executor orders the rows before stepping). */
export function registerArrayAgg(): void {
  registerAggregateFunction({
    // array_agg of arrays is one array of one more dimension, of the same type (PostgreSQL's array_agg(anyarray)).
    name: 'array_agg', args: ['anyelement'], returns: (a) => (a[0]!.kind === 'array' ? a[0]! : { kind: 'array', element: a[0]! }), strict: false,
    impl: (a) => simple(() => ({ v: [] as unknown[] }),
      a[0]?.kind === 'array'
        ? (s, [v]) => { accumulateSubArray((s as { v: unknown[] }).v, v); return s; }
        : (s, [v]) => { (s as { v: unknown[] }).v.push(v); return s; },
      (a, b) => ({ v: [...(a as { v: unknown[] }).v, ...(b as { v: unknown[] }).v] }),
      (s) => ((s as { v: unknown[] }).v.length === 0 ? null : [...(s as { v: unknown[] }).v])),
  });
}
