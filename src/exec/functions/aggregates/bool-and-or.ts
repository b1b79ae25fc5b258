import { BuiltinTypes as T } from '../builtin-operators.js';
import { registerAggregateFunction } from '../function-registry.js';
import { simple } from './aggregate-support.js';

/** bool_and (and its SQL-standard name every) and bool_or. */
export function registerBoolAndOr(): void {
  for (const [name, isAnd] of [['bool_and', true], ['every', true], ['bool_or', false]] as const) {
    registerAggregateFunction({
      name, args: [T.bool], returns: T.bool,
      impl: () => simple(() => ({ v: null as boolean | null }),
        (s, [v]) => { const st = s as { v: boolean | null }; st.v = st.v === null ? (v as boolean) : isAnd ? st.v && (v as boolean) : st.v || (v as boolean); return st; },
        (a, b) => {
          const x = (a as { v: boolean | null }).v; const y = (b as { v: boolean | null }).v;
          return { v: x === null ? y : y === null ? x : isAnd ? x && y : x || y };
        },
        (s) => (s as { v: boolean | null }).v),
    });
  }
}
