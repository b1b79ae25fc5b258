import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { formatScaled } from '../../common/numeric-text.js';

export { formatScaled };

/**
 * PostgreSQL numeric as an exact scaled BigInt: value = unscaled / 10^scale.
 * `scale` is the display scale (dscale): trailing zeros are significant, so
 * 1.50 + 1 prints 2.50 as in PostgreSQL. NaN is represented by `nan: true`.
 */
export interface Decimal {
  readonly unscaled: bigint;
  readonly scale: number;
  readonly nan?: boolean;
}

const pow10Cache: bigint[] = [];
export function pow10(n: number): bigint {
  if (n < 64) return (pow10Cache[n] ??= 10n ** BigInt(n));
  return 10n ** BigInt(n);
}

const NUMERIC_RE = /^\s*([+-])?(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?\s*$/;

/**
 * A numeric held as a plain JS integer: value = unscaled / 10^scale, exact
 * only while |unscaled| <= Number.MAX_SAFE_INTEGER. The fast paths below keep
 * that invariant checked on every step and report "does not fit" instead of
 * rounding, so callers fall back to the BigInt `Decimal` path.
 */
export interface ScaledNumber {
  unscaled: number;
  scale: number;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** 10^0 .. 10^22: every one is an exact double. */
const POW10_NUM: readonly number[] = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * `u * 10^k` when the result is an exact safe integer, NaN otherwise.
 * The magnitude test after the multiply is sound: a true product <= 2^53-1 is
 * computed exactly, and a larger one rounds to >= 2^53 (rounding is monotone).
 */
export function scaleUpExact(u: number, k: number): number {
  if (k === 0 || u === 0) return u;
  if (k > 15) return NaN;
  const r = u * POW10_NUM[k]!;
  return r <= MAX_SAFE && r >= -MAX_SAFE ? r : NaN;
}

/**
 * Hand-written scan of the plain form `[+-]digits[.digits]` (or `.digits`,
 * `digits.`) into `out`. Returns false — leaving `out` unspecified — for
 * anything else (spaces, exponents, NaN, garbage) or when the digits do not
 * fit a safe integer; callers then use parseDecimal, which also raises the
 * syntax errors.
 */
export function parseScaledInto(text: string, out: ScaledNumber): boolean {
  const n = text.length;
  let i = 0;
  let neg = false;
  if (n === 0) return false;
  let c = text.charCodeAt(0);
  if (c === 45 /* - */) { neg = true; i = 1; } else if (c === 43 /* + */) i = 1;
  let v = 0;
  let digits = 0;
  let scale = 0;
  let dot = false;
  for (; i < n; i++) {
    c = text.charCodeAt(i);
    const d = c - 48;
    if (d >= 0 && d <= 9) {
      v = v * 10 + d;
      if (v > MAX_SAFE) return false;
      digits++;
      if (dot) scale++;
    } else if (c === 46 /* . */ && !dot) {
      dot = true;
    } else return false;
  }
  if (digits === 0) return false;
  // -0 would print as 0 anyway, but keep it out of the arithmetic.
  out.unscaled = neg && v !== 0 ? -v : v;
  out.scale = scale;
  return true;
}

/** The plain-form fast parse, allocating its result; undefined when it does not fit (see parseScaledInto). */
export function parseScaled(text: string): ScaledNumber | undefined {
  const out: ScaledNumber = { unscaled: 0, scale: 0 };
  return parseScaledInto(text, out) ? out : undefined;
}

const scratchA: ScaledNumber = { unscaled: 0, scale: 0 };
const scratchB: ScaledNumber = { unscaled: 0, scale: 0 };

/** btree order of two numeric texts (NaN above every number), without BigInt when both fit. */
export function compareNumericText(a: string, b: string): number {
  if (parseScaledInto(a, scratchA) && parseScaledInto(b, scratchB)) {
    const c = compareScaled(scratchA.unscaled, scratchA.scale, scratchB.unscaled, scratchB.scale);
    if (c === c) return c;
  }
  return decCmp(parseDecimal(a), parseDecimal(b));
}

/** -1/0/1, or NaN when aligning the scales would not stay exact. */
export function compareScaled(ua: number, sa: number, ub: number, sb: number): number {
  let x = ua; let y = ub;
  if (sa < sb) x = scaleUpExact(ua, sb - sa);
  else if (sb < sa) y = scaleUpExact(ub, sa - sb);
  if (x !== x || y !== y) return NaN;
  return x < y ? -1 : x > y ? 1 : 0;
}

const MAX_SAFE_BIG = BigInt(MAX_SAFE);

export function parseDecimal(text: string): Decimal {
  if (parseScaledInto(text, scratchA)) return { unscaled: BigInt(scratchA.unscaled), scale: scratchA.scale };
  return parseDecimalRegex(text);
}

/** The general (regex) parser: exponents, surrounding spaces, NaN, syntax errors; also the reference for the fast path's tests. */
export function parseDecimalRegex(text: string): Decimal {
  const m = NUMERIC_RE.exec(text);
  if (!m) {
    const t = text.trim().toLowerCase();
    if (t === 'nan') return { unscaled: 0n, scale: 0, nan: true };
    throw new FloeError(SqlState.invalidTextRepresentation, `invalid input syntax for type numeric: "${text}"`);
  }
  const sign = m[1] === '-' ? -1n : 1n;
  const intPart = m[2] ?? '';
  const frac = m[3] ?? m[4] ?? '';
  const exp = m[5] ? parseInt(m[5], 10) : 0;
  // PostgreSQL refuses absurd exponents before computing anything (and 10^exp would not fit memory).
  if (Math.abs(exp) > NUMERIC_MAX_INTEGER_DIGITS + NUMERIC_MAX_DISPLAY_SCALE) throw numericFormatOverflow();
  let digits = BigInt((intPart + frac) || '0');
  let scale = frac.length - exp;
  if (scale < 0) {
    digits *= pow10(-scale);
    scale = 0;
  }
  return { unscaled: sign * digits, scale };
}

/** PostgreSQL's numeric storage limits: weight ≤ 32767 base-10000 digits (131072 decimal digits before the point), display scale ≤ 16383. */
export const NUMERIC_MAX_INTEGER_DIGITS = 131072;
export const NUMERIC_MAX_DISPLAY_SCALE = 16383;

function numericFormatOverflow(): FloeError {
  return new FloeError(SqlState.numericValueOutOfRange, 'value overflows numeric format');
}

/** The canonical text of a numeric; 22003 `value overflows numeric format` past PostgreSQL's limits. */
export function formatDecimal(d: Decimal): string {
  if (d.nan) return 'NaN';
  const { unscaled: v, scale } = d;
  if (scale > NUMERIC_MAX_DISPLAY_SCALE) throw numericFormatOverflow();
  if (scale >= 0 && v <= MAX_SAFE_BIG && v >= -MAX_SAFE_BIG) return formatScaled(Number(v), scale);
  const digits = (v < 0n ? -v : v).toString();
  if (digits.length - Math.max(scale, 0) > NUMERIC_MAX_INTEGER_DIGITS) throw numericFormatOverflow();
  if (scale <= 0) return v.toString();
  const neg = v < 0n;
  const s = digits.padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
}

export function toDecimal(v: unknown): Decimal {
  if (typeof v === 'string') return parseDecimal(v);
  if (typeof v === 'bigint') return { unscaled: v, scale: 0 };
  if (typeof v === 'number') {
    if (Number.isInteger(v)) return { unscaled: BigInt(v), scale: 0 };
    return parseDecimal(floatToNumericText(v));
  }
  throw new Error(`not a numeric value: ${String(v)}`);
}

/** float → numeric keeps 15 (float8) significant digits, as PostgreSQL does. */
export function floatToNumericText(v: number, digits = 15): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) throw new FloeError(SqlState.featureNotSupported, 'cannot convert infinity to numeric');
  const p = Number(v.toPrecision(digits));
  const s = p.toString();
  if (!/e/i.test(s)) return s;
  return parseAndFormatExp(s);
}

function parseAndFormatExp(s: string): string {
  return formatDecimal(parseDecimal(s));
}

export function rescale(d: Decimal, scale: number): Decimal {
  if (d.nan) return d;
  if (scale === d.scale) return d;
  if (scale > d.scale) return { unscaled: d.unscaled * pow10(scale - d.scale), scale };
  return { unscaled: divRoundHalfAway(d.unscaled, pow10(d.scale - scale)), scale };
}

/** Truncates toward zero to `scale` digits. */
export function truncScale(d: Decimal, scale: number): Decimal {
  if (d.nan || scale >= d.scale) return rescale(d, scale);
  return { unscaled: d.unscaled / pow10(d.scale - scale), scale };
}

export function divRoundHalfAway(a: bigint, b: bigint): bigint {
  const q = a / b;
  const r = a % b;
  if (r === 0n) return q;
  const twiceR = (r < 0n ? -r : r) * 2n;
  const absB = b < 0n ? -b : b;
  if (twiceR >= absB) return (a < 0n) !== (b < 0n) ? q - 1n : q + 1n;
  return q;
}

const NAN: Decimal = { unscaled: 0n, scale: 0, nan: true };

export function decAdd(a: Decimal, b: Decimal): Decimal {
  if (a.nan || b.nan) return NAN;
  const s = Math.max(a.scale, b.scale);
  return { unscaled: rescale(a, s).unscaled + rescale(b, s).unscaled, scale: s };
}

export function decSub(a: Decimal, b: Decimal): Decimal {
  if (a.nan || b.nan) return NAN;
  const s = Math.max(a.scale, b.scale);
  return { unscaled: rescale(a, s).unscaled - rescale(b, s).unscaled, scale: s };
}

export function decMul(a: Decimal, b: Decimal): Decimal {
  if (a.nan || b.nan) return NAN;
  return { unscaled: a.unscaled * b.unscaled, scale: a.scale + b.scale };
}

export function decNeg(a: Decimal): Decimal {
  return a.nan ? a : { unscaled: -a.unscaled, scale: a.scale };
}

export function decAbs(a: Decimal): Decimal {
  return a.nan || a.unscaled >= 0n ? a : { unscaled: -a.unscaled, scale: a.scale };
}

export function decIsZero(a: Decimal): boolean {
  return !a.nan && a.unscaled === 0n;
}

export function decCmp(a: Decimal, b: Decimal): number {
  // PostgreSQL sorts NaN above every number and equal to itself.
  if (a.nan || b.nan) return a.nan && b.nan ? 0 : a.nan ? 1 : -1;
  const s = Math.max(a.scale, b.scale);
  const x = rescale(a, s).unscaled;
  const y = rescale(b, s).unscaled;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Base-10000 weight and first digit of |x|, as PostgreSQL's NumericVar holds them. */
function weightAndFirst(d: Decimal): { weight: number; first: number } {
  const abs = d.unscaled < 0n ? -d.unscaled : d.unscaled;
  if (abs === 0n) return { weight: 0, first: 0 };
  const digits = abs.toString();
  // Position of the decimal point in base 10: intDigits = digits.length - scale.
  const intDigits = digits.length - d.scale;
  // Group into base-10000 digits aligned at the decimal point.
  const weight = Math.floor((intDigits - 1) / 4);
  const leadLen = intDigits - weight * 4; // digits (1..4) in the first base-10000 group
  const firstStr = digits.padEnd(leadLen, '0').slice(0, leadLen);
  return { weight, first: parseInt(firstStr || '0', 10) };
}

/** PostgreSQL's select_div_scale: at least 16 significant digits, never less than either input's scale. */
export function divScale(a: Decimal, b: Decimal): number {
  const wa = weightAndFirst(a);
  const wb = weightAndFirst(b);
  let qweight = wa.weight - wb.weight;
  // Equal first digits: PostgreSQL assumes the dividend is the smaller.
  if (wa.first <= wb.first) qweight--;
  let rscale = 16 - qweight * 4;
  rscale = Math.max(rscale, a.scale, b.scale, 0);
  return Math.min(rscale, 1000);
}

export function decDiv(a: Decimal, b: Decimal, scale?: number): Decimal {
  if (a.nan || b.nan) return NAN;
  if (b.unscaled === 0n) throw new FloeError(SqlState.divisionByZero, 'division by zero');
  const rs = scale ?? divScale(a, b);
  // a/b at scale rs: (ua * 10^(rs + sb - sa)) / ub, rounded half away from zero.
  const shift = rs + b.scale - a.scale;
  let num = a.unscaled;
  let den = b.unscaled;
  if (shift >= 0) num *= pow10(shift);
  else den *= pow10(-shift);
  return { unscaled: divRoundHalfAway(num, den), scale: rs };
}

/** Integer-quotient (truncating) remainder with the dividend's sign, as numeric mod(). */
export function decMod(a: Decimal, b: Decimal): Decimal {
  if (a.nan || b.nan) return NAN;
  if (b.unscaled === 0n) throw new FloeError(SqlState.divisionByZero, 'division by zero');
  const s = Math.max(a.scale, b.scale);
  return { unscaled: rescale(a, s).unscaled % rescale(b, s).unscaled, scale: s };
}

/** round(x, n) with n possibly negative: half away from zero; result scale max(n, 0). */
export function decRound(a: Decimal, n: number): Decimal {
  if (a.nan) return a;
  if (n >= 0) return rescale(a, n);
  const r = rescale(a, 0).unscaled;
  const f = pow10(-n);
  return { unscaled: divRoundHalfAway(r, f) * f, scale: 0 };
}

export function decTrunc(a: Decimal, n: number): Decimal {
  if (a.nan) return a;
  if (n >= 0) return truncScale(a, n);
  const f = pow10(-n);
  return { unscaled: (truncScale(a, 0).unscaled / f) * f, scale: 0 };
}

export function decFloor(a: Decimal): Decimal {
  if (a.nan) return a;
  const f = pow10(a.scale);
  let q = a.unscaled / f;
  if (a.unscaled < 0n && a.unscaled % f !== 0n) q -= 1n;
  return { unscaled: q, scale: 0 };
}

export function decCeil(a: Decimal): Decimal {
  if (a.nan) return a;
  const f = pow10(a.scale);
  let q = a.unscaled / f;
  if (a.unscaled > 0n && a.unscaled % f !== 0n) q += 1n;
  return { unscaled: q, scale: 0 };
}

export function decToNumber(a: Decimal): number {
  if (a.nan) return NaN;
  return Number(formatDecimal(a));
}

/** Removes trailing fractional zeros (trim_scale / minimal scale). */
export function decTrimScale(a: Decimal): Decimal {
  if (a.nan) return a;
  let { unscaled, scale } = a;
  while (scale > 0 && unscaled % 10n === 0n) { unscaled /= 10n; scale--; }
  return { unscaled, scale };
}

/** Applies a numeric(p,s) typmod: rounds to s, 22003 when the integer part needs more than p-s digits. */
export function applyNumericTypmod(a: Decimal, precision: number | undefined, scale: number | undefined): Decimal {
  if (precision === undefined || a.nan) return a;
  const s = scale ?? 0;
  const r = rescale(a, s);
  const abs = r.unscaled < 0n ? -r.unscaled : r.unscaled;
  if (abs >= pow10(precision)) {
    const maxInt = precision - s;
    throw new FloeError(SqlState.numericValueOutOfRange, 'numeric field overflow', {
      detail: `A field with precision ${precision}, scale ${s} must round to an absolute value less than ${maxInt > 0 ? `10^${maxInt}` : `1`}.`,
    });
  }
  return r;
}

/** numeric → integer by rounding half away from zero (PostgreSQL's numeric_int4). */
export function decToBigIntRounded(a: Decimal): bigint {
  if (a.nan) throw new FloeError(SqlState.featureNotSupported, 'cannot convert NaN to integer');
  return rescale(a, 0).unscaled;
}

/** sqrt with PostgreSQL's result scale (at least 16 significant digits). */
export function decSqrt(a: Decimal): Decimal {
  if (a.nan) return a;
  if (a.unscaled < 0n) throw new FloeError('2201F', 'cannot take square root of a negative number');
  if (a.unscaled === 0n) return { unscaled: 0n, scale: Math.max(a.scale, 16) };
  const { weight } = weightAndFirst(a);
  // PostgreSQL: sweight = (weight+1)*DEC_DIGITS/2 - 1; rscale = 16 - sweight, at least the input's scale.
  const sweight = Math.floor(((weight + 1) * 4) / 2) - 1;
  const rscale = Math.min(Math.max(16 - sweight, a.scale, 0), 1000);
  // isqrt(unscaled * 10^(2*rscale - scale)) then round.
  const shift = 2 * (rscale + 1) - a.scale;
  const n = shift >= 0 ? a.unscaled * pow10(shift) : a.unscaled / pow10(-shift);
  const root = isqrt(n);
  return { unscaled: divRoundHalfAway(root, 10n), scale: rscale };
}

/** sqrt rounded to exactly `rscale` fractional digits. */
export function decSqrtAtScale(a: Decimal, rscale: number): Decimal {
  if (a.nan) return a;
  if (a.unscaled < 0n) throw new FloeError('2201F', 'cannot take square root of a negative number');
  const shift = 2 * (rscale + 1) - a.scale;
  const n = shift >= 0 ? a.unscaled * pow10(shift) : a.unscaled / pow10(-shift);
  return { unscaled: divRoundHalfAway(isqrt(n), 10n), scale: rscale };
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  if (x === 0n) x = 1n;
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) {
      // Newton from above may oscillate; settle.
      while (x * x > n) x--;
      while ((x + 1n) * (x + 1n) <= n) x++;
      return x;
    }
    x = y;
  }
}

const scratchT: ScaledNumber = { unscaled: 0, scale: 0 };

/**
 * numeric text → numeric(precision, scale) text (or canonical text without a
 * typmod), in safe integers when the value fits, else through applyNumericTypmod.
 * Rounds half away from zero and raises 22003 exactly as applyNumericTypmod does.
 */
export function castNumericText(text: string, precision: number | undefined, scale: number | undefined): string {
  if (parseScaledInto(text, scratchT)) {
    const u = scratchT.unscaled; const from = scratchT.scale;
    if (precision === undefined) return formatScaled(u, from);
    const s = scale ?? 0;
    let q: number;
    if (s >= from) q = scaleUpExact(u, s - from);
    else if (from - s > 15) q = NaN;
    else {
      const p = POW10_NUM[from - s]!;
      const r = u % p;
      q = (u - r) / p;
      if (2 * Math.abs(r) >= p) q += u < 0 ? -1 : 1;
    }
    if (q === q && precision <= 15 && Math.abs(q) < POW10_NUM[precision]!) return formatScaled(q === 0 ? 0 : q, s);
  }
  return formatDecimal(applyNumericTypmod(parseDecimal(text), precision, scale));
}
