import { isValidDateDays } from '../../common/calendar.js';
import { FloeError } from '../../common/floe-error.js';
import type { Interval, SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { addMicrosToTimetz } from '../../common/timetz.js';
import { flattenArray, isMultidimensional } from '../../lake/index.js';
import { compareArrayShapes } from '../types/compare-array-shapes.js';
import type { EvalContext } from '../expr/eval-context.js';
import {
  MICROS_PER_DAY, TS_NEG_INF, TS_POS_INF, addIntervalToLocal, addIntervalToTz, negateInterval, timestampDiff,
} from '../types/datetime.js';
import {
  compareNumericText, decAdd, decDiv, decMod, decMul, decNeg, decSub, formatDecimal, parseDecimal,
} from '../types/numeric.js';
import { compareValues } from '../types/value-ops.js';
import { formatValue } from '../types/text-io.js';
import { registerScalarFunction } from './function-registry.js';
import { arithmeticKernel, bpcharEqualityKernel, comparisonKernel, numericArithmeticKernel, numericComparisonKernel, numericNegateKernel } from './vector-kernels.js';
import type { VectorImpl } from './vector-kernels.js';

const T = {
  bool: { kind: 'bool' }, int2: { kind: 'int2' }, int4: { kind: 'int4' }, int8: { kind: 'int8' },
  float4: { kind: 'float4' }, float8: { kind: 'float8' }, numeric: { kind: 'numeric' }, text: { kind: 'text' },
  bpchar: { kind: 'bpchar' }, name: { kind: 'name' }, bytea: { kind: 'bytea' }, date: { kind: 'date' },
  time: { kind: 'time' }, timestamp: { kind: 'timestamp' }, timestamptz: { kind: 'timestamptz' },
  interval: { kind: 'interval' }, uuid: { kind: 'uuid' }, oid: { kind: 'oid' }, jsonb: { kind: 'jsonb' }, json: { kind: 'json' },
  char: { kind: 'char' }, varchar: { kind: 'varchar' }, timetz: { kind: 'timetz' },
} as const satisfies Record<string, SqlType>;

export const BuiltinTypes = T;

function overflow(kind: string): FloeError {
  const msg = kind === 'int2' ? 'smallint out of range' : kind === 'int4' ? 'integer out of range' : kind === 'int8' ? 'bigint out of range' : 'value out of range: overflow';
  return new FloeError(SqlState.numericValueOutOfRange, msg);
}

function divZero(): FloeError {
  return new FloeError(SqlState.divisionByZero, 'division by zero');
}

const INT_MAX: Record<string, number> = { int2: 32767, int4: 2147483647 };
const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;

function checkSmall(v: number, kind: string): number {
  const max = INT_MAX[kind]!;
  if (v > max || v < -max - 1) throw overflow(kind);
  return v;
}

function check8(v: bigint): bigint {
  if (v > INT8_MAX || v < INT8_MIN) throw overflow('int8');
  return v;
}

/**
 * PostgreSQL's check_float8_val: an infinite result from finite operands overflows, and a
 * zero result underflows unless zero was a valid outcome (a zero factor or dividend, an
 * infinite divisor; sums may be zero).
 */
function checkFloat(v: number, a: number, b: number, kind: 'float4' | 'float8', zeroIsValid: boolean): number {
  const r = kind === 'float4' ? Math.fround(v) : v;
  if (!Number.isFinite(r) && Number.isFinite(a) && Number.isFinite(b)) throw overflow(kind);
  if (r === 0 && !zeroIsValid) throw new FloeError(SqlState.numericValueOutOfRange, 'value out of range: underflow');
  return r;
}

function tz(ctx: EvalContext): string {
  return ctx.settings.get('timezone') ?? 'UTC';
}

function reg(name: string, args: SqlType[], returns: SqlType, impl: (a: unknown[], ctx: EvalContext) => unknown, vector?: VectorImpl): void {
  registerScalarFunction({ name, args, returns, impl, vector });
}

export function registerBuiltinOperators(): void {
  // ---- integer arithmetic ----
  for (const k of ['int2', 'int4'] as const) {
    const t = T[k];
    reg('+', [t, t], t, ([a, b]) => checkSmall((a as number) + (b as number), k), arithmeticKernel('+', k));
    reg('-', [t, t], t, ([a, b]) => checkSmall((a as number) - (b as number), k), arithmeticKernel('-', k));
    reg('*', [t, t], t, ([a, b]) => checkSmall((a as number) * (b as number), k), arithmeticKernel('*', k));
    reg('/', [t, t], t, ([a, b]) => {
      if (b === 0) throw divZero();
      return checkSmall(Math.trunc((a as number) / (b as number)), k);
    });
    reg('%', [t, t], t, ([a, b]) => {
      if (b === 0) throw divZero();
      const r = (a as number) % (b as number);
      return r === 0 ? 0 : r;
    });
    reg('-', [t], t, ([a]) => checkSmall(-(a as number), k));
    reg('+', [t], t, ([a]) => a);
    reg('&', [t, t], t, ([a, b]) => (a as number) & (b as number));
    reg('|', [t, t], t, ([a, b]) => (a as number) | (b as number));
  }
  reg('+', [T.int8, T.int8], T.int8, ([a, b]) => check8((a as bigint) + (b as bigint)));
  reg('-', [T.int8, T.int8], T.int8, ([a, b]) => check8((a as bigint) - (b as bigint)));
  reg('*', [T.int8, T.int8], T.int8, ([a, b]) => check8((a as bigint) * (b as bigint)));
  reg('/', [T.int8, T.int8], T.int8, ([a, b]) => {
    if (b === 0n) throw divZero();
    return check8((a as bigint) / (b as bigint));
  });
  reg('%', [T.int8, T.int8], T.int8, ([a, b]) => {
    if (b === 0n) throw divZero();
    return (a as bigint) % (b as bigint);
  });
  reg('-', [T.int8], T.int8, ([a]) => check8(-(a as bigint)));
  reg('+', [T.int8], T.int8, ([a]) => a);

  // ---- float arithmetic ----
  for (const k of ['float4', 'float8'] as const) {
    const t = T[k];
    const fk = k === 'float8' ? (o: '+' | '-' | '*') => arithmeticKernel(o, 'float8') : () => undefined;
    reg('+', [t, t], t, ([a, b]) => checkFloat((a as number) + (b as number), a as number, b as number, k, true), fk('+'));
    reg('-', [t, t], t, ([a, b]) => checkFloat((a as number) - (b as number), a as number, b as number, k, true), fk('-'));
    reg('*', [t, t], t, ([a, b]) => checkFloat((a as number) * (b as number), a as number, b as number, k, a === 0 || b === 0), fk('*'));
    reg('/', [t, t], t, ([a, b]) => {
      if (b === 0) throw divZero();
      return checkFloat((a as number) / (b as number), a as number, b as number, k, a === 0 || !Number.isFinite(b as number));
    });
    reg('-', [t], t, ([a]) => -(a as number));
    reg('+', [t], t, ([a]) => a);
  }

  // ---- numeric ----
  const N = T.numeric;
  const num = (f: (x: ReturnType<typeof parseDecimal>, y: ReturnType<typeof parseDecimal>) => ReturnType<typeof parseDecimal>) =>
    ([a, b]: unknown[]) => formatDecimal(f(parseDecimal(a as string), parseDecimal(b as string)));
  reg('+', [N, N], N, num(decAdd), numericArithmeticKernel('+'));
  reg('-', [N, N], N, num(decSub), numericArithmeticKernel('-'));
  reg('*', [N, N], N, num(decMul), numericArithmeticKernel('*'));
  reg('/', [N, N], N, num((x, y) => decDiv(x, y)));
  reg('%', [N, N], N, num(decMod));
  reg('-', [N], N, ([a]) => formatDecimal(decNeg(parseDecimal(a as string))), numericNegateKernel());
  reg('+', [N], N, ([a]) => a);

  reg('^', [T.float8, T.float8], T.float8, ([a, b]) => {
    const x = a as number; const y = b as number;
    if (x === 0 && y < 0) throw new FloeError('2201F', 'zero raised to a negative power is undefined');
    if (x < 0 && !Number.isInteger(y)) throw new FloeError('2201F', 'a negative number raised to a non-integer power yields a complex result');
    const r = Math.pow(x, y);
    if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y)) throw overflow('float8');
    return r;
  });
  reg('@', [T.float8], T.float8, ([a]) => Math.abs(a as number));
  reg('@', [T.int4], T.int4, ([a]) => checkSmall(Math.abs(a as number), 'int4'));
  reg('@', [N], N, ([a]) => (a as string).replace(/^-/, ''));

  // ---- comparisons ----
  const comparable: SqlType[] = [
    T.bool, T.int2, T.int4, T.int8, T.float4, T.float8, N, T.text, T.bpchar, T.name, T.char, T.bytea, T.date, T.time,
    T.timestamp, T.timestamptz, T.interval, T.uuid, T.oid, { kind: 'regclass' }, { kind: 'regtype' }, { kind: 'regproc' }, { kind: 'regprocedure' }, T.timetz,
  ];
  for (const t of comparable) registerComparisons(t);
  const anyArr = 'anyarray' as const;
  for (const [op, test] of CMP_OPS) {
    registerScalarFunction({
      name: op, args: [anyArr, anyArr], returns: T.bool, id: `${op}(anyarray,anyarray)`,
      impl: ([a, b]) => test(compareArrays(a as unknown[], b as unknown[])),
    });
  }

  // ---- string concatenation ----
  reg('||', [T.text, T.text], T.text, ([a, b]) => (a as string) + (b as string));
  registerScalarFunction({
    name: '||', args: [T.text, 'any'], returns: T.text, id: '||(text,any)',
    impl: ([a, b], ctx) => (a as string) + anyToText(b, ctx),
    implFor: (types) => ([a, b], ctx) => (a as string) + castToText(b, types[1]!, ctx),
  });
  registerScalarFunction({
    name: '||', args: ['any', T.text], returns: T.text, id: '||(any,text)',
    impl: ([a, b], ctx) => anyToText(a, ctx) + (b as string),
    implFor: (types) => ([a, b], ctx) => castToText(a, types[0]!, ctx) + (b as string),
  });
  registerScalarFunction({
    name: '||', args: ['anyarray', 'anyarray'], returns: (a) => a[0]!, id: '||(anyarray,anyarray)',
    impl: ([a, b]) => [...(a as unknown[]), ...(b as unknown[])],
  });
  registerScalarFunction({
    name: '||', args: ['anyarray', 'anyelement'], returns: (a) => a[0]!, id: '||(anyarray,anyelement)', strict: false,
    impl: ([a, b]) => (a === null ? [b] : [...(a as unknown[]), b]),
  });
  registerScalarFunction({
    name: '||', args: ['anyelement', 'anyarray'], returns: (a) => a[1]!, id: '||(anyelement,anyarray)', strict: false,
    impl: ([a, b]) => (b === null ? [a] : [a, ...(b as unknown[])]),
  });
  reg('||', [T.bytea, T.bytea], T.bytea, ([a, b]) => {
    const x = a as Uint8Array; const y = b as Uint8Array;
    const out = new Uint8Array(x.length + y.length);
    out.set(x); out.set(y, x.length);
    return out;
  });

  // ---- regex ----
  const rx = (ci: boolean, neg: boolean) => ([a, b]: unknown[]) => {
    const m = regexCache(b as string, ci ? 'i' : '').test(a as string);
    return neg ? !m : m;
  };
  reg('~', [T.text, T.text], T.bool, rx(false, false));
  reg('~*', [T.text, T.text], T.bool, rx(true, false));
  reg('!~', [T.text, T.text], T.bool, rx(false, true));
  reg('!~*', [T.text, T.text], T.bool, rx(true, true));
  reg('^@', [T.text, T.text], T.bool, ([a, b]) => (a as string).startsWith(b as string));

  // ---- date / time arithmetic ----
  const D = T.date; const TS = T.timestamp; const TZ = T.timestamptz; const IV = T.interval; const TM = T.time;
  reg('+', [D, T.int4], D, ([a, b]) => dateAdd(a as number, b as number));
  reg('+', [T.int4, D], D, ([a, b]) => dateAdd(b as number, a as number));
  reg('-', [D, T.int4], D, ([a, b]) => dateAdd(a as number, -(b as number)));
  reg('-', [D, D], T.int4, ([a, b]) => {
    if (!Number.isFinite(a as number) || !Number.isFinite(b as number)) throw new FloeError(SqlState.datetimeFieldOverflow, 'cannot subtract infinite dates');
    return (a as number) - (b as number);
  });
  reg('+', [D, IV], TS, ([a, b]) => addIntervalToLocal(dateToMicros(a as number), b as Interval));
  reg('+', [IV, D], TS, ([a, b]) => addIntervalToLocal(dateToMicros(b as number), a as Interval));
  reg('-', [D, IV], TS, ([a, b]) => addIntervalToLocal(dateToMicros(a as number), negateInterval(b as Interval)));
  reg('+', [D, TM], TS, ([a, b]) => dateToMicros(a as number) + (b as bigint));
  reg('+', [TS, IV], TS, ([a, b]) => addIntervalToLocal(a as bigint, b as Interval));
  reg('+', [IV, TS], TS, ([a, b]) => addIntervalToLocal(b as bigint, a as Interval));
  reg('-', [TS, IV], TS, ([a, b]) => addIntervalToLocal(a as bigint, negateInterval(b as Interval)));
  reg('-', [TS, TS], IV, ([a, b]) => tsDiff(a as bigint, b as bigint));
  reg('+', [TZ, IV], TZ, ([a, b], ctx) => addIntervalToTz(a as bigint, b as Interval, tz(ctx)));
  reg('+', [IV, TZ], TZ, ([a, b], ctx) => addIntervalToTz(b as bigint, a as Interval, tz(ctx)));
  reg('-', [TZ, IV], TZ, ([a, b], ctx) => addIntervalToTz(a as bigint, negateInterval(b as Interval), tz(ctx)));
  reg('-', [TZ, TZ], IV, ([a, b]) => tsDiff(a as bigint, b as bigint));
  reg('+', [TM, IV], TM, ([a, b]) => wrapTime((a as bigint) + (b as Interval).micros));
  reg('-', [TM, IV], TM, ([a, b]) => wrapTime((a as bigint) - (b as Interval).micros));
  reg('+', [T.timetz, IV], T.timetz, ([a, b]) => addMicrosToTimetz(a as bigint, (b as Interval).micros));
  reg('+', [IV, T.timetz], T.timetz, ([a, b]) => addMicrosToTimetz(b as bigint, (a as Interval).micros));
  reg('-', [T.timetz, IV], T.timetz, ([a, b]) => addMicrosToTimetz(a as bigint, -(b as Interval).micros));
  reg('-', [TM, TM], IV, ([a, b]) => ({ months: 0, days: 0, micros: (a as bigint) - (b as bigint) }));
  reg('+', [IV, IV], IV, ([a, b]) => ivAdd(a as Interval, b as Interval, 1));
  reg('-', [IV, IV], IV, ([a, b]) => ivAdd(a as Interval, b as Interval, -1));
  reg('-', [IV], IV, ([a]) => negateInterval(a as Interval));
  reg('+', [IV], IV, ([a]) => a);
  reg('*', [IV, T.float8], IV, ([a, b]) => ivScale(a as Interval, b as number));
  reg('*', [T.float8, IV], IV, ([a, b]) => ivScale(b as Interval, a as number));
  reg('/', [IV, T.float8], IV, ([a, b]) => {
    if (b === 0) throw divZero();
    return ivScale(a as Interval, 1 / (b as number));
  });
}

/** `text || anynonarray` casts its operand to text (booleans print true/false, unlike concat()). */
function castToText(v: unknown, t: SqlType, ctx: EvalContext): string {
  if (t.kind === 'bool') return v ? 'true' : 'false';
  return valueToText(v, t, ctx);
}

/** A value's output-function text, as concat() and `text || anynonarray` use it (booleans print t/f). */
export function valueToText(v: unknown, t: SqlType, ctx: EvalContext): string {
  if (typeof v === 'string') return t.kind === 'bpchar' ? v.replace(/ +$/, '') : v;
  if (t.kind === 'bool') return v ? 't' : 'f';
  if (t.kind === 'unknown') return String(v);
  return formatValue(v, t, { timeZone: tz(ctx) });
}

function anyToText(v: unknown, ctx: EvalContext): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'bigint') return v.toString();
  // Dates arrive as numbers, so a typed path is needed for them; callers with
  // typed args (date || text) get their cast inserted by the planner instead.
  return formatValue(v, guessType(v), { timeZone: tz(ctx) });
}

function guessType(v: unknown): SqlType {
  if (v instanceof Uint8Array) return { kind: 'bytea' };
  if (Array.isArray(v)) return { kind: 'array', element: v.length > 0 && typeof v[0] === 'bigint' ? { kind: 'int8' } : { kind: 'text' } };
  if (v !== null && typeof v === 'object' && 'months' in v) return { kind: 'interval' };
  return { kind: 'text' };
}

const CMP_OPS: [string, (c: number) => boolean][] = [
  ['=', (c) => c === 0], ['<>', (c) => c !== 0], ['!=', (c) => c !== 0], ['<', (c) => c < 0],
  ['<=', (c) => c <= 0], ['>', (c) => c > 0], ['>=', (c) => c >= 0],
];

function registerComparisons(t: SqlType): void {
  for (const [op, test] of CMP_OPS) {
    let impl: (a: unknown[]) => unknown;
    switch (t.kind) {
      case 'int2': case 'int4': case 'int8': case 'date': case 'time': case 'timestamp': case 'timestamptz': case 'timetz':
      case 'text': case 'name': case 'char': case 'uuid': case 'oid': case 'regclass': case 'regtype': case 'regproc': case 'regprocedure': {
        // Plain JS ordering matches these types' canonical values.
        switch (op) {
          case '=': impl = ([a, b]) => a === b; break;
          case '<>': case '!=': impl = ([a, b]) => a !== b; break;
          case '<': impl = ([a, b]) => (a as number) < (b as number); break;
          case '<=': impl = ([a, b]) => (a as number) <= (b as number); break;
          case '>': impl = ([a, b]) => (a as number) > (b as number); break;
          default: impl = ([a, b]) => (a as number) >= (b as number);
        }
        break;
      }
      case 'numeric':
        impl = ([a, b]) => test(compareNumericText(a as string, b as string));
        break;
      default:
        impl = ([a, b]) => test(compareValues(a, b, t));
    }
    // JS operators order these types' canonical values exactly as PostgreSQL does (not floats: NaN).
    const direct = ['int2', 'int4', 'int8', 'date', 'time', 'timestamp', 'timestamptz', 'timetz', 'text', 'name', 'char', 'uuid', 'oid', 'bool'].includes(t.kind);
    registerScalarFunction({
      name: op, args: [t, t], returns: { kind: 'bool' }, impl,
      vector: direct ? comparisonKernel(op) : t.kind === 'numeric' ? numericComparisonKernel(op) : t.kind === 'bpchar' ? bpcharEqualityKernel(op) : undefined,
    });
  }
}

function compareArrays(a: unknown[], b: unknown[]): number {
  if (isMultidimensional(a) || isMultidimensional(b)) {
    const fa = flattenArray(a); const fb = flattenArray(b);
    return compareArrays(fa.items, fb.items) || compareArrayShapes(fa.dims, fb.dims);
  }
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]; const y = b[i];
    if (x === null || y === null) {
      if (x === y) continue;
      return x === null ? 1 : -1;
    }
    let c: number;
    if (typeof x === 'string' && typeof y === 'string') c = x < y ? -1 : x > y ? 1 : 0;
    else c = (x as number) < (y as number) ? -1 : (x as number) > (y as number) ? 1 : 0;
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

const rxCache = new Map<string, RegExp>();
export function regexCache(pattern: string, flags: string): RegExp {
  const key = flags + '/' + pattern;
  let r = rxCache.get(key);
  if (!r) {
    try {
      r = new RegExp(translatePosixRegex(pattern), flags.includes('u') ? flags : flags + 'u');
    } catch (e) {
      throw new FloeError('2201B', `invalid regular expression: ${(e as Error).message}`);
    }
    if (rxCache.size > 500) rxCache.clear();
    rxCache.set(key, r);
  }
  r.lastIndex = 0;
  return r;
}

/** PostgreSQL's ARE flavour is close to JS; translate the POSIX classes clients use. */
function translatePosixRegex(p: string): string {
  return p
    .replace(/\[\[:alpha:\]\]/g, '[A-Za-z]').replace(/\[:alpha:\]/g, 'A-Za-z')
    .replace(/\[\[:digit:\]\]/g, '\\d').replace(/\[:digit:\]/g, '0-9')
    .replace(/\[\[:space:\]\]/g, '\\s').replace(/\[:space:\]/g, '\\s')
    .replace(/\[\[:alnum:\]\]/g, '[A-Za-z0-9]').replace(/\[:alnum:\]/g, 'A-Za-z0-9')
    .replace(/\[\[:upper:\]\]/g, '[A-Z]').replace(/\[:upper:\]/g, 'A-Z')
    .replace(/\[\[:lower:\]\]/g, '[a-z]').replace(/\[:lower:\]/g, 'a-z');
}

function dateAdd(d: number, n: number): number {
  if (!Number.isFinite(d)) return d;
  const r = d + n;
  if (!isValidDateDays(r)) throw new FloeError(SqlState.datetimeFieldOverflow, 'date out of range');
  return r;
}

function dateToMicros(d: number): bigint {
  if (d === Infinity) return TS_POS_INF;
  if (d === -Infinity) return TS_NEG_INF;
  return BigInt(d) * MICROS_PER_DAY;
}

function tsDiff(a: bigint, b: bigint): Interval {
  if (a === TS_POS_INF || a === TS_NEG_INF || b === TS_POS_INF || b === TS_NEG_INF) {
    throw new FloeError(SqlState.datetimeFieldOverflow, 'cannot subtract infinite timestamps');
  }
  return timestampDiff(a, b);
}

function wrapTime(t: bigint): bigint {
  let r = t % MICROS_PER_DAY;
  if (r < 0n) r += MICROS_PER_DAY;
  return r;
}

export function ivAdd(a: Interval, b: Interval, sign: number): Interval {
  return { months: a.months + sign * b.months, days: a.days + sign * b.days, micros: a.micros + BigInt(sign) * b.micros };
}

/** interval * float8: fractional months spill into days (30 per month) and fractional days into time, as PostgreSQL. */
export function ivScale(a: Interval, f: number): Interval {
  const monthsF = a.months * f;
  const months = Math.trunc(monthsF);
  const daysF = a.days * f + (monthsF - months) * 30;
  const days = Math.trunc(daysF);
  const micros = BigInt(Math.round(Number(a.micros) * f + (daysF - days) * 86400e6));
  return { months, days, micros };
}
