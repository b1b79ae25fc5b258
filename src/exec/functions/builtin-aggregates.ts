import { Decimal as ArrowDecimal, Int64, makeData } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import type { Interval, SqlType } from '../../common/sql-type.js';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { decAdd, decDiv, decMul, decSqrtAtScale, decSub, formatDecimal, parseScaledInto, toDecimal } from '../types/numeric.js';
import type { Decimal, ScaledNumber } from '../types/numeric.js';
import { compareValues } from '../types/value-ops.js';
import { valueToText, BuiltinTypes as T } from './builtin-operators.js';
import { registerAggregateFunction, registerWindowFunction } from './function-registry.js';
import type { AggregateImpl, ColumnarAggregate, ColumnarPartial } from './function-registry.js';
import type { ScaledVector } from '../arrow/scaled-vector.js';
import { accumulateSubArray } from '../types/array-of-sub-arrays.js';

const ZERO: Decimal = { unscaled: 0n, scale: 0 };

function simple(init: () => unknown, step: (s: unknown, a: unknown[]) => unknown, combine: (a: unknown, b: unknown) => unknown, final: (s: unknown) => unknown): AggregateImpl {
  return { init, step, combine, final };
}

interface NumState { sum: Decimal; count: number; acc: number; accScale: number }
interface FloatState { sum: number; sumSq: number; count: number }
interface IntState { sum: bigint; count: number; acc: number }
interface CountState { n: number }

/** Running doubles fold into the exact sum past this; one more addend of at most SAFE keeps them below 2^53, still exact. */
const SAFE = 2 ** 52;
const POW10 = Array.from({ length: 31 }, (_, i) => 10 ** i);

/** A batch step built from a one-row update of a mutable state. */
function batchOf(update: (st: never, v: never) => void): NonNullable<AggregateImpl['batchStep']> {
  return (states, groups, args, sel, n) => {
    const col = args[0]!;
    if (sel) for (let k = 0; k < n; k++) { const r = sel[k]!; update(states[groups[r]!] as never, col[r] as never); }
    else for (let r = 0; r < n; r++) update(states[groups[r]!] as never, col[r] as never);
  };
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

/**
 * Exact numeric sums. Values with at most 15 digits accumulate as unscaled
 * doubles at a common scale (exact below 2^53); anything else, or a growing
 * total, folds into the scaled-BigInt sum.
 */
function numTotal(st: NumState): Decimal {
  return decAdd(st.sum, { unscaled: BigInt(st.acc), scale: st.accScale });
}

/**
 * The total as canonical text; while the BigInt part is still an exact zero
 * (at no larger scale) it is formatted straight from the running double.
 */
function numTotalText(st: NumState): string {
  if (st.sum.unscaled !== 0n || st.sum.nan || st.sum.scale > st.accScale) return formatDecimal(numTotal(st));
  const scale = st.accScale;
  const neg = st.acc < 0;
  let digits = String(neg ? -st.acc : st.acc);
  if (scale > 0) {
    if (digits.length <= scale) digits = '0'.repeat(scale - digits.length + 1) + digits;
    digits = digits.slice(0, digits.length - scale) + '.' + digits.slice(digits.length - scale);
  }
  return neg ? '-' + digits : digits;
}

function numFlush(st: NumState): void {
  // Always folds, even a zero: the scale of '0.00' must survive.
  st.sum = numTotal(st);
  st.acc = 0;
}

/** The hot loop's parse target (a module slot, so summing allocates nothing per row). */
const parsed: ScaledNumber = { unscaled: 0, scale: 0 };

function numStep(st: NumState, v: string): void {
  // Values past 2^52 fail the `scaled` check in numAddScaled and take the BigInt
  // path, so the running double (also kept within 2^52) plus an addend stays exact.
  if (parseScaledInto(v, parsed) && numAddScaled(st, parsed.unscaled, parsed.scale)) return;
  st.count++;
  st.sum = decAdd(st.sum, toDecimal(v));
}

/** Adds unscaled / 10^scale (a safe integer) to the running double; false, with the total unchanged, when that would not be exact. */
function numAddScaled(st: NumState, n: number, scale: number): boolean {
  if (scale > st.accScale) {
    // Rescale the running double when it stays exact; fold it into the BigInt sum otherwise
    // (a scale step past POW10 gives NaN, which is not exact either).
    const up = st.acc * (POW10[scale - st.accScale] ?? NaN);
    if (up <= SAFE && up >= -SAFE) st.acc = up;
    else { numFlush(st); st.acc = 0; }
    st.accScale = scale;
  }
  const scaled = n * (POW10[st.accScale - scale] ?? NaN);
  if (!(scaled <= SAFE && scaled >= -SAFE)) return false;
  st.count++;
  st.acc += scaled;
  if (st.acc > SAFE || st.acc < -SAFE) numFlush(st);
  return true;
}

/** numAddScaled, or the exact BigInt sum when the double would not stay exact. */
function numAddScaledExact(st: NumState, n: number, scale: number): void {
  if (numAddScaled(st, n, scale)) return;
  st.count++;
  st.sum = decAdd(st.sum, { unscaled: BigInt(n), scale });
}

/** Combines two numeric states (both are flushed, so mutated). */
function numCombine(x: NumState, y: NumState): NumState {
  numFlush(x); numFlush(y);
  return { sum: decAdd(x.sum, y.sum), count: x.count + y.count, acc: 0, accScale: Math.max(x.accScale, y.accScale) };
}

/** sum/avg over numeric; `final` only reads its state. */
function numAcc(final: (s: NumState) => unknown, arrow = false): AggregateImpl {
  return {
    init: () => ({ sum: ZERO, count: 0, acc: 0, accScale: 0 }),
    step: (s, [v]) => { numStep(s as NumState, v as string); return s; },
    combine: (a, b) => numCombine(a as NumState, b as NumState),
    final: final as (s: unknown) => unknown,
    columnar: () => new NumColumns(final, arrow),
    batchStep: batchOf(numStep),
    batchStepScaled: (states, groups, v, sel, n) => {
      const { unscaled, scale } = v;
      if (sel) for (let k = 0; k < n; k++) { const r = sel[k]!; numAddScaledExact(states[groups[r]!] as NumState, unscaled[r]!, scale); }
      else for (let r = 0; r < n; r++) numAddScaledExact(states[groups[r]!] as NumState, unscaled[r]!, scale);
    },
  };
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

/** Numeric variance/stddev with PostgreSQL's formula over exact sums. */
function numericVariance(kind: 'samp' | 'pop', sqrt: boolean): AggregateImpl {
  interface S { n: bigint; sx: Decimal; sxx: Decimal }
  return simple(
    () => ({ n: 0n, sx: ZERO, sxx: ZERO }),
    (s, [v]) => { const st = s as S; const d = toDecimal(v); st.n++; st.sx = decAdd(st.sx, d); st.sxx = decAdd(st.sxx, decMul(d, d)); return st; },
    (a, b) => { const x = a as S; const y = b as S; return { n: x.n + y.n, sx: decAdd(x.sx, y.sx), sxx: decAdd(x.sxx, y.sxx) }; },
    (s) => {
      const st = s as S;
      if (st.n === 0n || (kind === 'samp' && st.n === 1n)) return null;
      const n: Decimal = { unscaled: st.n, scale: 0 };
      const num = decSub(decMul(n, st.sxx), decMul(st.sx, st.sx));
      const den: Decimal = kind === 'samp' ? { unscaled: st.n * (st.n - 1n), scale: 0 } : { unscaled: st.n * st.n, scale: 0 };
      // PostgreSQL: variance at select_div_scale, stddev = its square root at the same scale.
      const variance = decDiv(num.unscaled < 0n ? ZERO : num, den);
      return formatDecimal(sqrt ? decSqrtAtScale(variance, variance.scale) : variance);
    },
  );
}

/** Float variance with the Youngs-Cramer updates PostgreSQL 12+ uses, so results round alike. */
function floatVariance(kind: 'samp' | 'pop', sqrt: boolean): AggregateImpl {
  interface S { n: number; sx: number; sxx: number }
  return simple(
    () => ({ n: 0, sx: 0, sxx: 0 }),
    (s, [v]) => {
      const st = s as S; const x = v as number;
      st.n++; st.sx += x;
      if (st.n > 1) { const tmp = x * st.n - st.sx; st.sxx += (tmp * tmp) / (st.n * (st.n - 1)); }
      return st;
    },
    (a, b) => {
      const x = a as S; const y = b as S;
      if (x.n === 0) return { ...y };
      if (y.n === 0) return { ...x };
      const n = x.n + y.n;
      const tmp = x.sx / x.n - y.sx / y.n;
      return { n, sx: x.sx + y.sx, sxx: x.sxx + y.sxx + (x.n * y.n * tmp * tmp) / n };
    },
    (s) => {
      const st = s as S;
      if (st.n === 0 || (kind === 'samp' && st.n === 1)) return null;
      const v = st.sxx / (kind === 'samp' ? st.n - 1 : st.n);
      return sqrt ? Math.sqrt(v) : v;
    },
  );
}

/** Types whose canonical values are numbers or BigInts that order like the SQL type (no NaN). */
const PLAIN_ORDER = new Set(['int2', 'int4', 'int8', 'date', 'oid', 'time', 'timestamp', 'timestamptz', 'timetz']);

function minMax(t: SqlType, max: boolean): AggregateImpl {
  const plain = PLAIN_ORDER.has(t.kind);
  // Among equal values that print differently (numeric 0.00 and 0, interval '1 day' and '24
  // hours', float -0 and 0) PostgreSQL's numeric_smaller/larger and kin keep the later one;
  // bpchar_smaller/larger keep the earlier.
  const laterWins = t.kind !== 'bpchar';
  const better = plain
    ? (max ? (a: unknown, b: unknown) => (b as number) > (a as number) : (a: unknown, b: unknown) => (b as number) < (a as number))
    : (a: unknown, b: unknown) => {
      const c = compareValues(b, a, t);
      return max ? c > 0 || (laterWins && c === 0) : c < 0 || (laterWins && c === 0);
    };
  const update = (st: { v: unknown }, v: unknown) => { if (st.v === null || better(st.v, v)) st.v = v; };
  return {
    init: () => ({ v: null as unknown }),
    step: (s, [v]) => { update(s as { v: unknown }, v); return s; },
    combine: (a, b) => { const x = a as { v: unknown }; const y = b as { v: unknown }; if (y.v !== null && (x.v === null || better(x.v, y.v))) return y; return x; },
    final: (s) => (s as { v: unknown }).v,
    batchStep: batchOf(update as (st: never, v: never) => void),
    ...(NUMBER_ORDER.has(t.kind) ? { columnar: () => new NumberMinMaxColumns(max) } : {}),
  };
}

/** Types whose canonical values are numbers ordered by < (no NaN, no -0): min/max keep them in a Float64Array. */
const NUMBER_ORDER = new Set(['int2', 'int4', 'date']);

// ---- Columnar states (ColumnarAggregate): many groups without an object per group ----

type TypedColumn = Float64Array | Int32Array | Uint8Array;

/** `a`, or a copy with room for at least n entries (capacity doubles; new entries are zero). */
function room<A extends TypedColumn>(a: A, n: number): A {
  if (n <= a.length) return a;
  let cap = Math.max(16, a.length * 2);
  while (cap < n) cap *= 2;
  const b = new (a.constructor as new (length: number) => A)(cap);
  b.set(a);
  return b;
}

/** The object states of groups below n, for export. */
function statesBelow<S>(m: Map<number, S>, n: number): [number, S][] {
  const out: [number, S][] = [];
  for (const [g, st] of m) if (g < n) out.push([g, st]);
  return out;
}

/** Validity of groups whose count is not zero (no bitmap when none is zero). */
function nonZeroValidity(cnt: Float64Array, n: number): { nullBitmap: Uint8Array | undefined; nullCount: number } {
  let nullCount = 0;
  for (let g = 0; g < n; g++) if (cnt[g] === 0) nullCount++;
  if (nullCount === 0) return { nullBitmap: undefined, nullCount };
  const nullBitmap = new Uint8Array((n + 7) >> 3);
  for (let g = 0; g < n; g++) if (cnt[g] !== 0) nullBitmap[g >> 3]! |= 1 << (g & 7);
  return { nullBitmap, nullCount };
}

/** Integer-valued doubles below 2^53 as little-endian two's complement, `words` 32-bit words each (2: Int64, 4: Decimal128). */
function wideInts(v: Float64Array, n: number, words: number): Uint32Array {
  const out = new Uint32Array(n * words);
  for (let g = 0; g < n; g++) {
    const x = v[g]!;
    const hi = Math.floor(x / 4294967296);
    const o = g * words;
    out[o] = x >>> 0;
    out[o + 1] = hi;
    if (hi < 0) for (let w = 2; w < words; w++) out[o + w] = 0xffffffff;
  }
  return out;
}

function int64Data(v: Float64Array, n: number, cnt: Float64Array | undefined): Data {
  const { nullBitmap, nullCount } = cnt ? nonZeroValidity(cnt, n) : { nullBitmap: undefined, nullCount: 0 };
  return makeData({ type: new Int64(), length: n, nullCount, nullBitmap, data: new BigInt64Array(wideInts(v, n, 2).buffer) });
}

function decimalData(v: Float64Array, n: number, scale: number, cnt: Float64Array): Data {
  const { nullBitmap, nullCount } = nonZeroValidity(cnt, n);
  return makeData({ type: new ArrowDecimal(scale, 38, 128), length: n, nullCount, nullBitmap, data: wideInts(v, n, 4) });
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

/**
 * sum/avg over numeric: per group the running unscaled double, its scale and a
 * count, stepped exactly as numAddScaled would, plus (in #carried, for the few
 * groups that need one) NumState's exact BigInt part: what the double folded
 * into it past 2^52, values beyond a safe integer, NaN. So a total that outgrows
 * the double (Q1's sum of charges) still adds each row in the typed loop and
 * reaches the Map once per fold, not once per row.
 */
class NumColumns implements ColumnarAggregate {
  /**
   * Per group g, at 3g, 3g + 1 and 3g + 2: the running unscaled double, the count and
   * the double's scale, side by side. Groups far more than the cache holds (Q18's
   * 1.5M orders) then cost one cache miss a row rather than one per array.
   */
  #st = new Float64Array(48);
  /** NumState's `sum` of the groups where it is not zero. */
  readonly #carried = new Map<number, Decimal>();
  readonly #scratch: NumState = { sum: ZERO, count: 0, acc: 0, accScale: 0 };

  /** `arrow`: the final values are the totals (sum), which finishArrow can give as Decimal128 data. */
  constructor(readonly final: (s: NumState) => unknown, readonly arrow = false) {}

  resize(n: number): void {
    this.#st = room(this.#st, 3 * n);
  }

  #state(g: number): NumState {
    const st = this.#st;
    return { sum: this.#carried.get(g) ?? ZERO, count: st[3 * g + 1]!, acc: st[3 * g]!, accScale: st[3 * g + 2]! };
  }

  #put(g: number, s: NumState): void {
    const st = this.#st;
    st[3 * g] = s.acc; st[3 * g + 1] = s.count; st[3 * g + 2] = s.accScale;
    // A zero BigInt part at no larger scale than the double's prints and sums as if absent.
    if (s.sum.unscaled === 0n && !s.sum.nan && s.sum.scale <= s.accScale) this.#carried.delete(g);
    else this.#carried.set(g, s.sum);
  }

  /** numAddScaledExact on group g: in the typed columns while numAddScaled stays exact in the double. */
  #add(g: number, u: number, s: number): void {
    const st = this.#st;
    const o = 3 * g;
    let cur = st[o + 2]!;
    let a = st[o]!;
    if (s > cur) { a *= POW10[s - cur] ?? NaN; cur = s; }
    const x = u * (POW10[cur - s] ?? NaN);
    const b = a + x;
    // NaN (a scale past POW10) fails these too.
    if (a <= SAFE && a >= -SAFE && x <= SAFE && x >= -SAFE && b <= SAFE && b >= -SAFE) {
      st[o] = b; st[o + 2] = cur; st[o + 1]! += 1;
      return;
    }
    const state = this.#state(g);
    numAddScaledExact(state, u, s);
    this.#put(g, state);
  }

  batchStep(groups: Int32Array, args: readonly (readonly unknown[])[], sel: Int32Array | undefined, n: number): void {
    const col = args[0]!;
    for (let k = 0; k < n; k++) {
      const r = sel ? sel[k]! : k;
      const g = groups[r]!;
      const v = col[r] as string;
      if (parseScaledInto(v, parsed)) { this.#add(g, parsed.unscaled, parsed.scale); continue; }
      const state = this.#state(g);
      numStep(state, v);
      this.#put(g, state);
    }
  }

  batchStepScaled(groups: Int32Array, v: ScaledVector, sel: Int32Array | undefined, n: number): void {
    const { unscaled, scale } = v;
    const st = this.#st;
    for (let k = 0; k < n; k++) {
      const r = sel ? sel[k]! : k;
      const g = groups[r]!;
      const o = 3 * g;
      const u = unscaled[r]!;
      if (st[o + 2] === scale) {
        // numAddScaled at an unchanged scale, with its three exactness checks.
        const b = st[o]! + u;
        if (u <= SAFE && u >= -SAFE && b <= SAFE && b >= -SAFE) { st[o] = b; st[o + 1]! += 1; continue; }
      }
      this.#add(g, u, scale);
    }
  }

  /** Groups [0, n) as three columns: the running doubles, the counts, the scales. */
  #columns(n: number): [Float64Array, Float64Array, Int32Array] {
    const st = this.#st;
    const acc = new Float64Array(n); const cnt = new Float64Array(n); const scale = new Int32Array(n);
    for (let g = 0, o = 0; g < n; g++, o += 3) { acc[g] = st[o]!; cnt[g] = st[o + 1]!; scale[g] = st[o + 2]!; }
    return [acc, cnt, scale];
  }

  export(n: number): ColumnarPartial {
    return { n, arrays: this.#columns(n), states: statesBelow(this.#carried, n) };
  }

  merge(p: ColumnarPartial, groups: Int32Array): void {
    const [pacc, pcnt, pscale] = p.arrays as [Float64Array, Float64Array, Int32Array];
    const st = this.#st;
    // The doubles and the BigInt parts add up apart: a state's total is their sum.
    for (let i = 0; i < p.n; i++) {
      // A group no row reached leaves the other state as it is (numCombine would too, at scale 0).
      if (pcnt[i] === 0) continue;
      const ps = pscale[i]!;
      const g = groups[i]!;
      const o = 3 * g;
      const cur = st[o + 2]!;
      // numCombine's exact total at the larger scale, while it fits the double.
      const s = cur > ps ? cur : ps;
      const a = st[o]! * (POW10[s - cur] ?? NaN);
      const b = pacc[i]! * (POW10[s - ps] ?? NaN);
      const t = a + b;
      if (a <= SAFE && a >= -SAFE && b <= SAFE && b >= -SAFE && t <= SAFE && t >= -SAFE) {
        st[o] = t; st[o + 2] = s; st[o + 1]! += pcnt[i]!;
        continue;
      }
      this.#put(g, numCombine(this.#state(g), { sum: ZERO, count: pcnt[i]!, acc: pacc[i]!, accScale: ps }));
    }
    for (const [i, d] of p.states) {
      const g = groups[i]!;
      this.#carried.set(g, decAdd(this.#carried.get(g) ?? ZERO, d as Decimal));
    }
  }

  finish(n: number): unknown[] {
    const out = new Array<unknown>(n);
    const sc = this.#scratch;
    const st = this.#st;
    for (let g = 0, o = 0; g < n; g++, o += 3) {
      sc.sum = this.#carried.get(g) ?? ZERO; sc.count = st[o + 1]!; sc.acc = st[o]!; sc.accScale = st[o + 2]!;
      out[g] = this.final(sc);
    }
    return out;
  }

  /** The totals as Decimal128 at their one scale (numTotalText's digits), when no group has a BigInt part and all have the same scale. */
  finishArrow(n: number): Data | undefined {
    if (!this.arrow || this.#carried.size > 0) return undefined;
    const [acc, cnt, sc] = this.#columns(n);
    let scale = -1;
    for (let g = 0; g < n; g++) {
      if (cnt[g] === 0) continue;
      if (scale < 0) scale = sc[g]!;
      else if (sc[g] !== scale) return undefined;
    }
    // Decimal128 holds 38 digits (the running doubles have at most 16); rarer scales keep text.
    if (scale > 20) return undefined;
    return decimalData(acc, n, Math.max(scale, 0), cnt);
  }
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

/** min/max over int2/int4/date (numbers ordered by <, so ties need no rule). */
class NumberMinMaxColumns implements ColumnarAggregate {
  #v = new Float64Array(16);
  #has = new Uint8Array(16);

  constructor(readonly max: boolean) {}

  resize(n: number): void { this.#v = room(this.#v, n); this.#has = room(this.#has, n); }

  batchStep(groups: Int32Array, args: readonly (readonly unknown[])[], sel: Int32Array | undefined, n: number): void {
    const col = args[0]!;
    const val = this.#v; const has = this.#has;
    const max = this.max;
    for (let k = 0; k < n; k++) {
      const r = sel ? sel[k]! : k;
      const g = groups[r]!;
      const x = col[r] as number;
      if (has[g] === 0 || (max ? x > val[g]! : x < val[g]!)) { val[g] = x; has[g] = 1; }
    }
  }

  export(n: number): ColumnarPartial { return { n, arrays: [this.#v.slice(0, n), this.#has.slice(0, n)], states: [] }; }

  merge(p: ColumnarPartial, groups: Int32Array): void {
    const [pv, phas] = p.arrays as [Float64Array, Uint8Array];
    const val = this.#v; const has = this.#has;
    const max = this.max;
    for (let i = 0; i < p.n; i++) {
      if (phas[i] === 0) continue;
      const g = groups[i]!;
      const x = pv[i]!;
      if (has[g] === 0 || (max ? x > val[g]! : x < val[g]!)) { val[g] = x; has[g] = 1; }
    }
  }

  finish(n: number): unknown[] {
    const out = new Array<unknown>(n);
    for (let g = 0; g < n; g++) out[g] = this.#has[g] ? this.#v[g]! : null;
    return out;
  }
}

export function registerBuiltinAggregates(): void {
  const N = T.numeric; const F = T.float8; const I8 = T.int8;
  registerAggregateFunction({
    name: 'count', args: [], returns: I8, strict: false, id: 'count()', impl: countAgg,
  });
  registerAggregateFunction({
    name: 'count', args: ['any'], returns: I8, id: 'count(any)', impl: countAgg,
  });
  // sum
  for (const k of ['int2', 'int4'] as const) {
    registerAggregateFunction({ name: 'sum', args: [T[k]], returns: I8, impl: () => intSum((s) => (s.count === 0 ? null : checkInt8(intTotal(s))), 'int64') });
    registerAggregateFunction({ name: 'avg', args: [T[k]], returns: N, impl: () => intSum(avgOfInt) });
  }
  registerAggregateFunction({ name: 'sum', args: [I8], returns: N, impl: () => intSum((s) => (s.count === 0 ? null : intTotal(s).toString()), 'decimal') });
  registerAggregateFunction({ name: 'avg', args: [I8], returns: N, impl: () => intSum(avgOfInt) });
  registerAggregateFunction({ name: 'sum', args: [N], returns: N, impl: () => numAcc((s) => (s.count === 0 ? null : numTotalText(s)), true) });
  registerAggregateFunction({
    name: 'avg', args: [N], returns: N,
    impl: () => numAcc((st) => (st.count === 0 ? null : formatDecimal(decDiv(numTotal(st), { unscaled: BigInt(st.count), scale: 0 })))),
  });
  for (const k of ['float4', 'float8'] as const) {
    registerAggregateFunction({
      name: 'sum', args: [T[k]], returns: T[k],
      impl: () => floatAcc((s) => (s.count === 0 ? null : k === 'float4' ? Math.fround(s.sum) : s.sum)),
    });
    registerAggregateFunction({
      name: 'avg', args: [T[k]], returns: F,
      impl: () => floatAcc((s) => (s.count === 0 ? null : s.sum / s.count)),
    });
  }
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
  // min / max
  const ordered: SqlType[] = [T.int2, T.int4, I8, T.float4, F, N, T.text, T.bpchar, T.name, T.date, T.time, T.timestamp, T.timestamptz, T.interval, T.bool, T.uuid, T.oid, T.bytea, T.char, T.timetz];
  for (const t of ordered) {
    // text's min/max order an enum argument by its labels' sort order (the argument keeps its enum type).
    const orderOf = (a: readonly SqlType[]): SqlType => (t.kind === 'text' && a[0]?.kind === 'text' ? a[0] : t);
    // Like PostgreSQL's min(anyenum), the result is of the argument's enum type.
    const returns = (_: readonly SqlType[], actual: readonly SqlType[]) => orderOf(actual);
    registerAggregateFunction({ name: 'min', args: [t], returns, impl: (a) => minMax(orderOf(a), false) });
    registerAggregateFunction({ name: 'max', args: [t], returns, impl: (a) => minMax(orderOf(a), true) });
  }
  registerAggregateFunction({ name: 'min', args: ['anyarray'], returns: (a) => a[0]!, impl: (a) => minMax(a[0]!, false) });
  registerAggregateFunction({ name: 'max', args: ['anyarray'], returns: (a) => a[0]!, impl: (a) => minMax(a[0]!, true) });
  // bool
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
  // string_agg / array_agg (ordering is applied by the executor before stepping)
  registerAggregateFunction({
    name: 'string_agg', args: [T.text, T.text], returns: T.text, strict: false,
    impl: () => simple(() => ({ parts: [] as string[], seps: [] as string[] }),
      (s, [v, d]) => { if (v === null) return s; const st = s as { parts: string[]; seps: string[] }; st.parts.push(v as string); st.seps.push((d as string | null) ?? ''); return st; },
      (a, b) => { const x = a as { parts: string[]; seps: string[] }; const y = b as { parts: string[]; seps: string[] }; return { parts: [...x.parts, ...y.parts], seps: [...x.seps, ...y.seps] }; },
      (s) => {
        const st = s as { parts: string[]; seps: string[] };
        if (st.parts.length === 0) return null;
        let out = st.parts[0]!;
        for (let i = 1; i < st.parts.length; i++) out += st.seps[i]! + st.parts[i]!;
        return out;
      }),
  });
  registerAggregateFunction({
    name: 'string_agg', args: [T.bytea, T.bytea], returns: T.bytea, strict: false,
    impl: () => simple(() => ({ parts: [] as Uint8Array[] }),
      (s, [v, d]) => { if (v === null) return s; const st = s as { parts: Uint8Array[] }; if (st.parts.length > 0 && d) st.parts.push(d as Uint8Array); st.parts.push(v as Uint8Array); return st; },
      (a, b) => ({ parts: [...(a as { parts: Uint8Array[] }).parts, ...(b as { parts: Uint8Array[] }).parts] }),
      (s) => ((s as { parts: Uint8Array[] }).parts.length === 0 ? null : new Uint8Array(Buffer.concat((s as { parts: Uint8Array[] }).parts)))),
  });
  // PostgreSQL 16's any_value: some non-NULL value of the group (the first one here). The
  // binder also reads a column a grouped primary key determines through it.
  registerAggregateFunction({
    name: 'any_value', args: ['anyelement'], returns: (a) => a[0]!,
    impl: () => simple(() => ({ v: null as unknown }), (s, [v]) => { const st = s as { v: unknown }; if (st.v === null) st.v = v; return st; },
      (a, b) => ((a as { v: unknown }).v === null ? b : a),
      (s) => (s as { v: unknown }).v),
  });
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
  // statistics
  const statNames: [string, 'samp' | 'pop', boolean][] = [
    ['stddev', 'samp', true], ['stddev_samp', 'samp', true], ['stddev_pop', 'pop', true],
    ['variance', 'samp', false], ['var_samp', 'samp', false], ['var_pop', 'pop', false],
  ];
  for (const [name, kind, sqrt] of statNames) {
    for (const k of ['float4', 'float8'] as const) registerAggregateFunction({ name, args: [T[k]], returns: F, impl: () => floatVariance(kind, sqrt) });
    for (const k of ['int2', 'int4', 'int8', 'numeric'] as const) registerAggregateFunction({ name, args: [T[k]], returns: N, impl: () => numericVariance(kind, sqrt) });
  }
  registerAggregateFunction({
    name: 'bit_and', args: [T.int4], returns: T.int4,
    impl: () => simple(() => ({ v: null as number | null }), (s, [v]) => { const st = s as { v: number | null }; st.v = st.v === null ? (v as number) : st.v & (v as number); return st; },
      (a, b) => ({ v: (a as { v: number | null }).v === null ? (b as { v: number | null }).v : (b as { v: number | null }).v === null ? (a as { v: number | null }).v : (a as { v: number }).v & (b as { v: number }).v }),
      (s) => (s as { v: number | null }).v),
  });
  registerAggregateFunction({
    name: 'json_agg', args: ['anyelement'], returns: T.json, strict: false,
    impl: (types) => simple(() => ({ v: [] as string[] }),
      (s, [v]) => { (s as { v: string[] }).v.push(v === null ? 'null' : jsonValue(v, types[0]!)); return s; },
      (a, b) => ({ v: [...(a as { v: string[] }).v, ...(b as { v: string[] }).v] }),
      (s) => ((s as { v: string[] }).v.length === 0 ? null : `[${(s as { v: string[] }).v.join(', ')}]`)),
  });

  // window-only functions (evaluated by the window operator)
  const I = T.int4;
  registerWindowFunction({ name: 'row_number', args: [], returns: I8 });
  registerWindowFunction({ name: 'rank', args: [], returns: I8 });
  registerWindowFunction({ name: 'dense_rank', args: [], returns: I8 });
  registerWindowFunction({ name: 'percent_rank', args: [], returns: F });
  registerWindowFunction({ name: 'cume_dist', args: [], returns: F });
  registerWindowFunction({ name: 'ntile', args: [I], returns: I });
  for (const n of ['lag', 'lead']) {
    registerWindowFunction({ name: n, args: ['anyelement'], returns: (a) => a[0]! });
    registerWindowFunction({ name: n, args: ['anyelement', I], returns: (a) => a[0]! });
    registerWindowFunction({ name: n, args: ['anyelement', I, 'anyelement'], returns: (a) => a[0]! });
  }
  registerWindowFunction({ name: 'first_value', args: ['anyelement'], returns: (a) => a[0]! });
  registerWindowFunction({ name: 'last_value', args: ['anyelement'], returns: (a) => a[0]! });
  registerWindowFunction({ name: 'nth_value', args: ['anyelement', I], returns: (a) => a[0]! });
}

function jsonValue(v: unknown, t: SqlType): string {
  switch (t.kind) {
    case 'int2': case 'int4': case 'int8': case 'float4': case 'float8': case 'numeric': return String(v);
    case 'bool': return v ? 'true' : 'false';
    case 'json': case 'jsonb': return v as string;
    default: return JSON.stringify(typeof v === 'string' ? v : valueToText(v, t, { settings: new Map(), user: '', database: '', searchPath: [], warehouse: undefined, virtualTables: undefined, transactionStartMicros: 0n, statementStartMicros: 0n }));
  }
}

function checkInt8(v: bigint): bigint {
  if (v > 2n ** 63n - 1n || v < -(2n ** 63n)) throw new FloeError(SqlState.numericValueOutOfRange, 'bigint out of range');
  return v;
}

function avgOfInt(s: IntState): string | null {
  if (s.count === 0) return null;
  return formatDecimal(decDiv({ unscaled: intTotal(s), scale: 0 }, { unscaled: BigInt(s.count), scale: 0 }));
}

function addIv(a: Interval | null, b: Interval): Interval {
  if (a === null) return b;
  return { months: a.months + b.months, days: a.days + b.days, micros: a.micros + b.micros };
}

