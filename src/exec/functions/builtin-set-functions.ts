import { FloeError } from '../../common/floe-error.js';
import type { Interval, SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import type { EvalContext } from '../expr/eval-context.js';
import { addIntervalToLocal, addIntervalToTz, intervalToMicrosApprox } from '../types/datetime.js';
import { decAdd, decCmp, formatDecimal, parseDecimal } from '../types/numeric.js';
import { BuiltinTypes as T, regexCache } from './builtin-operators.js';
import { registerSetFunction } from './function-registry.js';

function stepZero(): FloeError {
  return new FloeError(SqlState.invalidParameterValue, 'step size cannot equal zero');
}

function* intSeries(a: number, b: number, s: number): Generator<number> {
  if (s === 0) throw stepZero();
  for (let v = a; s > 0 ? v <= b : v >= b; v += s) yield v;
}

function* bigSeries(a: bigint, b: bigint, s: bigint): Generator<bigint> {
  if (s === 0n) throw stepZero();
  for (let v = a; s > 0n ? v <= b : v >= b; v += s) yield v;
}

function* numericSeries(a: string, b: string, s: string): Generator<string> {
  const step = parseDecimal(s); const end = parseDecimal(b);
  const dir = decCmp(step, { unscaled: 0n, scale: 0 });
  if (dir === 0) throw stepZero();
  for (let v = parseDecimal(a); dir > 0 ? decCmp(v, end) <= 0 : decCmp(v, end) >= 0; v = decAdd(v, step)) yield formatDecimal(v);
}

/** generate_series over timestamp or timestamptz (stepped in the session's TimeZone) by an interval. */
function* timestampSeries(kind: 'timestamp' | 'timestamptz', start: bigint, end: bigint, iv: Interval, ctx: EvalContext): Generator<bigint> {
  const dir = intervalToMicrosApprox(iv);
  if (dir === 0n) throw stepZero();
  const zone = ctx.settings.get('timezone') ?? 'UTC';
  // Each step is start + n*interval, so month arithmetic doesn't drift.
  for (let n = 0; ; n++) {
    const scaled: Interval = { months: iv.months * n, days: iv.days * n, micros: iv.micros * BigInt(n) };
    const v = kind === 'timestamp' ? addIntervalToLocal(start, scaled) : addIntervalToTz(start, scaled, zone);
    if (dir > 0n ? v > end : v < end) return;
    yield v;
  }
}

export function registerBuiltinSetFunctions(): void {
  const I = T.int4; const I8 = T.int8; const N = T.numeric;
  registerSetFunction({ name: 'generate_series', args: [I, I], returns: I, impl: ([a, b]) => intSeries(a as number, b as number, 1) });
  registerSetFunction({ name: 'generate_series', args: [I, I, I], returns: I, impl: ([a, b, s]) => intSeries(a as number, b as number, s as number) });
  registerSetFunction({ name: 'generate_series', args: [I8, I8], returns: I8, impl: ([a, b]) => bigSeries(a as bigint, b as bigint, 1n) });
  registerSetFunction({ name: 'generate_series', args: [I8, I8, I8], returns: I8, impl: ([a, b, s]) => bigSeries(a as bigint, b as bigint, s as bigint) });
  registerSetFunction({
    name: 'generate_series', args: [N, N, N], returns: N,
    impl: ([a, b, s]) => numericSeries(a as string, b as string, s as string),
  });
  for (const k of ['timestamp', 'timestamptz'] as const) {
    registerSetFunction({
      name: 'generate_series', args: [T[k], T[k], T.interval], returns: T[k],
      impl: ([a, b, s], ctx) => timestampSeries(k, a as bigint, b as bigint, s as Interval, ctx),
    });
  }
  registerSetFunction({ name: 'unnest', args: ['anyarray'], returns: (a) => (a[0] as { element: SqlType }).element, impl: ([a]) => flatten(a as unknown[]) });
  registerSetFunction({
    name: 'generate_subscripts', args: ['anyarray', I], returns: I,
    impl: ([a, d]) => (d === 1 ? intSeries(1, (a as unknown[]).length, 1) : []),
  });
  registerSetFunction({
    name: 'string_to_table', args: [T.text, T.text], returns: T.text,
    impl: ([s, d]) => ((s as string) === '' ? [] : (d as string) === '' ? [s] : (s as string).split(d as string)),
  });
  registerSetFunction({
    name: 'regexp_split_to_table', args: [T.text, T.text], returns: T.text,
    impl: ([s, p]) => (s as string).split(regexCache(p as string, '')),
  });
}

/** unnest flattens multi-dimensional arrays in storage order. */
function flatten(a: unknown[]): unknown[] {
  return a.some(Array.isArray) ? a.flatMap((x) => (Array.isArray(x) ? flatten(x) : [x])) : a;
}
