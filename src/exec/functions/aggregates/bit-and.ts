import { BuiltinTypes as T } from '../builtin-operators.js';
import { registerAggregateFunction } from '../function-registry.js';
import { simple } from './aggregate-support.js';

/** bit_and over int4. */
export function registerBitAnd(): void {
  registerAggregateFunction({
    name: 'bit_and', args: [T.int4], returns: T.int4,
    impl: () => simple(() => ({ v: null as number | null }), (s, [v]) => { const st = s as { v: number | null }; st.v = st.v === null ? (v as number) : st.v & (v as number); return st; },
      (a, b) => ({ v: (a as { v: number | null }).v === null ? (b as { v: number | null }).v : (b as { v: number | null }).v === null ? (a as { v: number | null }).v : (a as { v: number }).v & (b as { v: number }).v }),
      (s) => (s as { v: number | null }).v),
  });
}
