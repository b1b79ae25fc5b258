import type { Interval } from '../../../common/sql-type.js';
import { BuiltinTypes as T } from '../builtin-operators.js';
import { registerAggregateFunction } from '../function-registry.js';
import { simple } from './aggregate-support.js';

/** sum and avg over interval. */
export function registerIntervalSums(): void {
  registerAggregateFunction({
    name: 'sum', args: [T.interval], returns: T.interval,
    impl: () => simple(() => ({ v: null as Interval | null }),
      (s, [v]) => { const st = s as { v: Interval | null }; st.v = addIv(st.v, v as Interval); return st; },
      (a, b) => ({ v: (b as { v: Interval | null }).v === null ? (a as { v: Interval | null }).v : addIv((a as { v: Interval | null }).v, (b as { v: Interval }).v) }),
      (s) => (s as { v: Interval | null }).v),
  });
  registerAggregateFunction({
    name: 'avg', args: [T.interval], returns: T.interval,
    impl: () => simple(() => ({ v: null as Interval | null, n: 0 }),
      (s, [v]) => { const st = s as { v: Interval | null; n: number }; st.v = addIv(st.v, v as Interval); st.n++; return st; },
      (a, b) => { const x = a as { v: Interval | null; n: number }; const y = b as { v: Interval | null; n: number }; return { v: y.v ? addIv(x.v, y.v) : x.v, n: x.n + y.n }; },
      (s) => {
        const st = s as { v: Interval | null; n: number };
        if (!st.v) return null;
        const mf = st.v.months / st.n; const months = Math.trunc(mf);
        const df = st.v.days / st.n + (mf - months) * 30; const days = Math.trunc(df);
        return { months, days, micros: BigInt(Math.round(Number(st.v.micros) / st.n + (df - days) * 86400e6)) };
      }),
  });
}

function addIv(a: Interval | null, b: Interval): Interval {
  if (a === null) return b;
  return { months: a.months + b.months, days: a.days + b.days, micros: a.micros + b.micros };
}
