/**
 * PostgreSQL 12+ float output with extra_float_digits = 1 (the default): the
 * shortest digits that read back as the same value (Ryu), in fixed notation
 * when the decimal exponent lies in [-4, DBL_DIG) (float4: FLT_DIG), else as
 * d.ddde±XX with at least two exponent digits.
 *
 * JavaScript finds the shortest digits too, but it accepts a candidate lying
 * exactly halfway to a neighbouring float (round-half-even reads it back
 * correctly); PostgreSQL's Ryu does not, and prints one more digit. And when
 * the last digit is an exact decimal tie, Ryu rounds it to even where JavaScript
 * rounds up. Both cases are settled exactly with BigInt arithmetic.
 */
function special(v: number): string | undefined {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  return undefined;
}

function layout(negative: boolean, digits: string, exp: number, maxFixedExp: number): string {
  const sign = negative ? '-' : '';
  if (exp < -4 || exp >= maxFixedExp) {
    const mant = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    const e = Math.abs(exp);
    return `${sign}${mant}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** Splits JS's exponential form ("1.2345e+17") into significant digits and decimal exponent. */
function decompose(expForm: string): { digits: string; exp: number } {
  const [mant, e] = expForm.split('e') as [string, string];
  const digits = mant.replace('.', '').replace(/0+$/, '') || '0';
  return { digits, exp: Number(e) };
}

/** Scratch space for reading a float's bits; allocating a view per value costs more than formatting it. */
const dv = new DataView(new ArrayBuffer(8));

/** A positive finite float as mantissa × 2^exponent, exactly; `offset` steps to a neighbour. */
function exactValue(a: number, single: boolean, offset: number): [bigint, number] {
  if (single) {
    dv.setFloat32(0, a);
    const bits = dv.getUint32(0) + offset;
    const exp = (bits >>> 23) & 0xff;
    const frac = BigInt(bits & 0x7fffff);
    return exp === 0 ? [frac, -149] : [frac | 0x800000n, exp - 150];
  }
  dv.setFloat64(0, a);
  const bits = dv.getBigUint64(0) + BigInt(offset);
  const exp = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & 0xfffffffffffffn;
  return exp === 0 ? [frac, -1074] : [frac | 0x10000000000000n, exp - 1075];
}

/** Whether digits × 10^(exp − len + 1) is exactly the midpoint between a and a neighbour. */
function isTie(a: number, single: boolean, digits: string, exp: number): boolean {
  const n = BigInt(digits);
  const k = exp - (digits.length - 1);
  const [m0, e0] = exactValue(a, single, 0);
  for (const offset of [-1, 1]) {
    const [m1, e1] = exactValue(a, single, offset);
    const s = Math.max(0, -Math.min(e0, e1));
    const t = Math.max(0, -k);
    const lhs = 2n * n * 10n ** BigInt(k + t) * 2n ** BigInt(s);
    const rhs = (m0 * 2n ** BigInt(e0 + s) + m1 * 2n ** BigInt(e1 + s)) * 10n ** BigInt(t);
    if (lhs === rhs) return true;
  }
  return false;
}

const log10of5 = Math.log10(5);

/**
 * A cheap, conservative filter: false when neither kind of tie is possible.
 * A midpoint between neighbours has few decimal digits only for large values;
 * an exact decimal tie needs the value itself to have at most p + 1 digits,
 * which for m' × 2^e' (m' odd, e' < 0) means about digits(m') + 0.7·|e'|.
 */
function mayTie(a: number, single: boolean, p: number): boolean {
  const normalMin = single ? 1.1754943508222875e-38 : 2.2250738585072014e-308;
  if (a < normalMin || a >= (single ? 1048576 : 1125899906842624)) return true; // subnormal, or ≥ 2^20 / 2^50
  let m: number;
  let e: number;
  if (single) {
    dv.setFloat32(0, a);
    const bits = dv.getUint32(0);
    m = (bits & 0x7fffff) + 0x800000;
    e = ((bits >>> 23) & 0xff) - 150;
  } else {
    dv.setFloat64(0, a);
    const hi = dv.getUint32(0);
    m = (hi & 0xfffff) * 4294967296 + dv.getUint32(4) + 4503599627370496;
    e = ((hi >>> 20) & 0x7ff) - 1075;
  }
  while (m % 2 === 0) {
    m /= 2;
    e++;
  }
  if (e >= 0) return false; // an integer below 2^50 is printed exactly
  return Math.floor(Math.log10(m)) + 1 + Math.ceil(-e * log10of5) <= p + 2;
}

/** The exact decimal expansion of a positive finite float: digits and the exponent of the first digit. */
function exactDecimal(a: number, single: boolean): { digits: string; exp: number } {
  const [m, e] = exactValue(a, single, 0);
  const digits = e >= 0 ? (m << BigInt(e)).toString() : (m * 5n ** BigInt(-e)).toString();
  return { digits, exp: digits.length - 1 + Math.min(e, 0) };
}

/** Rounds to p significant digits, ties to even (Ryu's rule), dropping trailing zeros. */
function roundDigits(x: { digits: string; exp: number }, p: number): { digits: string; exp: number } {
  let head = x.digits.slice(0, p);
  const rest = x.digits.slice(p);
  let exp = x.exp;
  const first = rest.charCodeAt(0) - 48;
  const beyond = /[1-9]/.test(rest.slice(1));
  const up = rest !== '' && (first > 5 || (first === 5 && (beyond || (Number(head[head.length - 1]) % 2 === 1))));
  if (up) {
    const bumped = (BigInt(head) + 1n).toString();
    if (bumped.length > head.length) exp++;
    head = bumped.slice(0, p);
  }
  return { digits: head.replace(/(?<=.)0+$/, ''), exp };
}

/**
 * Ryu's choice: the fewest digits, rounded half-even, that read back as the same
 * float and do not sit exactly on the midpoint to a neighbour. Values far from
 * any tie (normal, below 2^precision, short) keep JavaScript's digits unchanged.
 */
function shortest(a: number, single: boolean, jsDigits: { digits: string; exp: number }): { digits: string; exp: number } {
  if (!mayTie(a, single, jsDigits.digits.length)) return jsDigits;
  const exact = exactDecimal(a, single);
  for (let p = Math.max(1, jsDigits.digits.length - 1); p <= exact.digits.length; p++) {
    const c = roundDigits(exact, p);
    const back = Number(`${c.digits}e${c.exp - c.digits.length + 1}`);
    if ((single ? Math.fround(back) : back) === a && !isTie(a, single, c.digits, c.exp)) return c;
  }
  return exact;
}

export function formatFloat8(v: number): string {
  const s = special(v);
  if (s !== undefined) return s;
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const a = Math.abs(v);
  const { digits, exp } = shortest(a, false, decompose(a.toExponential()));
  return layout(v < 0, digits, exp, 15);
}

export function formatFloat4(v: number): string {
  const s = special(v);
  if (s !== undefined) return s;
  const f = Math.fround(v);
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const a = Math.abs(f);
  // Correctly rounded p-digit forms get closer to a as p grows, so the shortest that reads back is found by bisection.
  let lo = 1;
  let hi = 9;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (Math.fround(Number(a.toExponential(mid - 1))) === a) hi = mid;
    else lo = mid + 1;
  }
  const expForm = a.toExponential(lo - 1);
  const { digits, exp } = shortest(a, true, decompose(expForm));
  return layout(f < 0, digits, exp, 6);
}
