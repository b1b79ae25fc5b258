import type { Data } from 'apache-arrow';
import { decAdd, decDiv, formatDecimal, parseScaledInto, toDecimal } from '../../types/numeric.js';
import type { Decimal, ScaledNumber } from '../../types/numeric.js';
import type { ScaledVector } from '../../arrow/scaled-vector.js';
import { BuiltinTypes as T } from '../builtin-operators.js';
import { registerAggregateFunction } from '../function-registry.js';
import type { AggregateImpl, ColumnarAggregate, ColumnarPartial } from '../function-registry.js';
import { batchOf, SAFE, ZERO } from './aggregate-support.js';
import { decimalData, room, statesBelow } from './typed-columns.js';

interface NumState { sum: Decimal; count: number; acc: number; accScale: number }

const POW10 = Array.from({ length: 31 }, (_, i) => 10 ** i);

/** sum and avg over numeric. */
export function registerNumericSums(): void {
  registerAggregateFunction({ name: 'sum', args: [T.numeric], returns: T.numeric, impl: () => numAcc((s) => (s.count === 0 ? null : numTotalText(s)), true) });
  registerAggregateFunction({
    name: 'avg', args: [T.numeric], returns: T.numeric,
    impl: () => numAcc((st) => (st.count === 0 ? null : formatDecimal(decDiv(numTotal(st), { unscaled: BigInt(st.count), scale: 0 })))),
  });
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

/**
 * sum/avg over numeric: per group the running unscaled double, its scale and a
 * count, stepped exactly as numAddScaled would, plus (in #carried, for the few
 * groups that need one) NumState's exact BigInt part: what the double folded
 * into it past 2^52, values beyond a safe integer, NaN. So a total that outgrows
 * the double (a sum of price * (1 - discount) * (1 + tax) over 6M rows) still adds each row in the typed loop and
 * reaches the Map once per fold, not once per row.
 */
class NumColumns implements ColumnarAggregate {
  /**
   * Per group g, at 3g, 3g + 1 and 3g + 2: the running unscaled double, the count and
   * the double's scale, side by side. Groups far more than the cache holds (a GROUP BY
   * over 1.5M order keys) then cost one cache miss a row rather than one per array.
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
