import { FloeError } from '../../common/floe-error.js';
import type { Interval, SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { compareValues } from '../types/value-ops.js';
import { BuiltinTypes as T, ivAdd, ivScale } from './builtin-operators.js';
import { registerAggregateFunction, type AggregateImpl } from './function-registry.js';

/**
 * Ordered-set aggregates: percentile_cont, percentile_disc and mode, called as
 * `f(direct args) WITHIN GROUP (ORDER BY x)`. The binder passes the direct
 * argument first and the sorted value last, with the ORDER BY as the call's
 * sort, so the executor steps the rows in that order; NULL values are skipped
 * (the aggregates are strict) and the direct argument is read from any row.
 */
interface SortedState { direct: unknown; values: unknown[] }

function sortedInput(final: (s: SortedState) => unknown): AggregateImpl {
  return {
    init: (): SortedState => ({ direct: null, values: [] }),
    step: (state, args) => {
      const s = state as SortedState;
      s.direct = args.length > 1 ? args[0] : null;
      s.values.push(args[args.length - 1]);
      return s;
    },
    // Ordered aggregates are never split into partial states; combine keeps the contract.
    combine: (a, b) => ({ direct: (a as SortedState).direct ?? (b as SortedState).direct, values: [...(a as SortedState).values, ...(b as SortedState).values] }),
    final: (state) => {
      const s = state as SortedState;
      return s.values.length === 0 ? null : final(s);
    },
  };
}

/** %g, as PostgreSQL prints the fraction in its error. */
function formatG(x: number): string {
  return Number.isNaN(x) ? 'nan' : String(Number(x.toPrecision(6)));
}

function checkFraction(p: number): number {
  if (!(p >= 0 && p <= 1)) throw new FloeError(SqlState.numericValueOutOfRange, `percentile value ${formatG(p)} is not between 0 and 1`);
  return p;
}

type Lerp = (lo: unknown, hi: unknown, pct: number) => unknown;

const floatLerp: Lerp = (lo, hi, pct) => (lo as number) + ((hi as number) - (lo as number)) * pct;
const intervalLerp: Lerp = (lo, hi, pct) => ivAdd(ivScale(ivAdd(hi as Interval, lo as Interval, -1), pct), lo as Interval, 1);

/** percentile_cont: interpolates between the two values around fraction·(n−1). */
function continuous(values: readonly unknown[], p: number, lerp: Lerp): unknown {
  const at = checkFraction(p) * (values.length - 1);
  const first = Math.floor(at); const second = Math.ceil(at);
  return first === second ? values[first] : lerp(values[first], values[second], at - first);
}

/** percentile_disc: the first value whose position in the order reaches the fraction. */
function discrete(values: readonly unknown[], p: number): unknown {
  const row = Math.ceil(checkFraction(p) * values.length);
  return values[Math.max(row, 1) - 1];
}

function perFraction(direct: unknown, pick: (p: number) => unknown): unknown {
  return (direct as (number | null)[]).map((p) => (p === null ? null : pick(p)));
}

/** mode: the most frequent value; of equally frequent ones, the first in the ORDER BY. */
function mostFrequent(values: readonly unknown[], t: SqlType): unknown {
  let best = values[0]; let bestCount = 0;
  let run = 0;
  for (let i = 0; i < values.length; i++) {
    run = i > 0 && compareValues(values[i], values[i - 1], t) === 0 ? run + 1 : 1;
    if (run > bestCount) { bestCount = run; best = values[i]; }
  }
  return best;
}

export function registerBuiltinOrderedSetAggregates(): void {
  const F = T.float8; const IV = T.interval;
  const FA: SqlType = { kind: 'array', element: F };
  for (const [t, lerp] of [[F, floatLerp], [IV, intervalLerp]] as const) {
    registerAggregateFunction({ name: 'percentile_cont', args: [F, t], returns: t, impl: () => sortedInput((s) => continuous(s.values, s.direct as number, lerp)) });
    registerAggregateFunction({
      name: 'percentile_cont', args: [FA, t], returns: { kind: 'array', element: t },
      impl: () => sortedInput((s) => perFraction(s.direct, (p) => continuous(s.values, p, lerp))),
    });
  }
  registerAggregateFunction({ name: 'percentile_disc', args: [F, 'anyelement'], returns: (a) => a[1]!, impl: () => sortedInput((s) => discrete(s.values, s.direct as number)) });
  registerAggregateFunction({
    name: 'percentile_disc', args: [FA, 'anyelement'], returns: (a) => ({ kind: 'array', element: a[1]! }),
    impl: () => sortedInput((s) => perFraction(s.direct, (p) => discrete(s.values, p))),
  });
  registerAggregateFunction({ name: 'mode', args: ['anyelement'], returns: (a) => a[0]!, impl: (types) => sortedInput((s) => mostFrequent(s.values, types[0]!)) });
}

/** Aggregates that take WITHIN GROUP (ORDER BY …) and nothing else takes. */
export const ORDERED_SET_AGGREGATES: ReadonlySet<string> = new Set(['percentile_cont', 'percentile_disc', 'mode']);
