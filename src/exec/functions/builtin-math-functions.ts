import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import {
  decAbs, decCeil, decCmp, decDiv, decFloor, decMod, decRound, decSqrt, decSqrtAtScale, decTrunc, formatDecimal, parseDecimal, rescale,
} from '../types/numeric.js';
import type { Decimal } from '../types/numeric.js';
import { BuiltinTypes as T } from './builtin-operators.js';
import { registerScalarFunction } from './function-registry.js';

function reg(name: string, args: SqlType[], returns: SqlType, impl: (a: unknown[]) => unknown, volatile = false): void {
  registerScalarFunction({ name, args, returns, impl, volatile });
}

const N = T.numeric; const F = T.float8;
const dec = (v: unknown) => parseDecimal(v as string);
const out = (d: Decimal) => formatDecimal(d);

/** C's rint: round half to even (PostgreSQL's round(float8)). */
export function rint(x: number): number {
  if (!Number.isFinite(x)) return x;
  const r = Math.round(x);
  if (Math.abs(x % 1) === 0.5 && r % 2 !== 0) return r - 1;
  return r === 0 && x < 0 ? -0 : r;
}

function floatCheck(v: number, a: number): number {
  if (!Number.isFinite(v) && Number.isFinite(a)) throw new FloeError(SqlState.numericValueOutOfRange, 'value out of range: overflow');
  return v;
}

export function registerBuiltinMathFunctions(): void {
  reg('abs', [T.int2], T.int2, ([a]) => { if (a === -32768) throw new FloeError(SqlState.numericValueOutOfRange, 'smallint out of range'); return Math.abs(a as number); });
  reg('abs', [T.int4], T.int4, ([a]) => { if (a === -2147483648) throw new FloeError(SqlState.numericValueOutOfRange, 'integer out of range'); return Math.abs(a as number); });
  reg('abs', [T.int8], T.int8, ([a]) => { const x = a as bigint; if (x === -(2n ** 63n)) throw new FloeError(SqlState.numericValueOutOfRange, 'bigint out of range'); return x < 0n ? -x : x; });
  reg('abs', [T.float4], T.float4, ([a]) => Math.abs(a as number));
  reg('abs', [F], F, ([a]) => Math.abs(a as number));
  reg('abs', [N], N, ([a]) => out(decAbs(dec(a))));
  reg('round', [F], F, ([a]) => rint(a as number));
  reg('round', [N], N, ([a]) => out(decRound(dec(a), 0)));
  reg('round', [N, T.int4], N, ([a, n]) => out(decRound(dec(a), n as number)));
  for (const n of ['ceil', 'ceiling']) {
    reg(n, [F], F, ([a]) => Math.ceil(a as number));
    reg(n, [N], N, ([a]) => out(decCeil(dec(a))));
  }
  reg('floor', [F], F, ([a]) => Math.floor(a as number));
  reg('floor', [N], N, ([a]) => out(decFloor(dec(a))));
  reg('trunc', [F], F, ([a]) => Math.trunc(a as number));
  reg('trunc', [N], N, ([a]) => out(decTrunc(dec(a), 0)));
  reg('trunc', [N, T.int4], N, ([a, n]) => out(decTrunc(dec(a), n as number)));
  reg('sign', [F], F, ([a]) => Math.sign(a as number));
  reg('sign', [N], N, ([a]) => String(decCmp(dec(a), { unscaled: 0n, scale: 0 })));
  for (const k of ['int2', 'int4'] as const) {
    reg('mod', [T[k], T[k]], T[k], ([a, b]) => {
      if (b === 0) throw new FloeError(SqlState.divisionByZero, 'division by zero');
      const r = (a as number) % (b as number);
      return r === 0 ? 0 : r;
    });
  }
  reg('mod', [T.int8, T.int8], T.int8, ([a, b]) => {
    if (b === 0n) throw new FloeError(SqlState.divisionByZero, 'division by zero');
    return (a as bigint) % (b as bigint);
  });
  reg('mod', [N, N], N, ([a, b]) => out(decMod(dec(a), dec(b))));
  reg('div', [N, N], N, ([a, b]) => out(decTrunc(decDiv(dec(a), dec(b), Math.max(dec(a).scale, dec(b).scale) + 1), 0)));
  for (const n of ['power', 'pow']) {
    reg(n, [F, F], F, ([a, b]) => {
      const x = a as number; const y = b as number;
      if (x === 0 && y < 0) throw new FloeError('2201F', 'zero raised to a negative power is undefined');
      if (x < 0 && !Number.isInteger(y)) throw new FloeError('2201F', 'a negative number raised to a non-integer power yields a complex result');
      return floatCheck(Math.pow(x, y), x);
    });
    reg(n, [N, N], N, ([a, b]) => numericPower(dec(a), dec(b)));
  }
  reg('^', [N, N], N, ([a, b]) => numericPower(dec(a), dec(b)));
  reg('sqrt', [F], F, ([a]) => {
    if ((a as number) < 0) throw new FloeError('2201F', 'cannot take square root of a negative number');
    return Math.sqrt(a as number);
  });
  reg('sqrt', [N], N, ([a]) => out(decSqrt(dec(a))));
  reg('cbrt', [F], F, ([a]) => Math.cbrt(a as number));
  reg('exp', [F], F, ([a]) => floatCheck(Math.exp(a as number), a as number));
  reg('ln', [F], F, ([a]) => logCheck(a as number, Math.log));
  reg('log', [F], F, ([a]) => logCheck(a as number, Math.log10));
  reg('log10', [F], F, ([a]) => logCheck(a as number, Math.log10));
  reg('log', [N, N], N, ([b, x]) => {
    const r = Math.log(Number(x)) / Math.log(Number(b));
    return out(rescale(parseDecimal(r.toPrecision(16)), 16));
  });
  reg('pi', [], F, () => Math.PI);
  reg('random', [], F, () => Math.random(), true);
  reg('degrees', [F], F, ([a]) => (a as number) * 180 / Math.PI);
  reg('radians', [F], F, ([a]) => (a as number) * Math.PI / 180);
  for (const [n, f] of [['sin', Math.sin], ['cos', Math.cos], ['tan', Math.tan], ['asin', Math.asin], ['acos', Math.acos], ['atan', Math.atan]] as const) {
    reg(n, [F], F, ([a]) => f(a as number));
  }
  reg('atan2', [F, F], F, ([a, b]) => Math.atan2(a as number, b as number));
  // gcd of the type's minimum with 0 (or itself) is 2^31 / 2^63, one past the maximum: out of range, as in PostgreSQL.
  const gcd = (a: bigint, b: bigint): bigint => {
    let x = a < 0n ? -a : a; let y = b < 0n ? -b : b;
    while (y) { [x, y] = [y, x % y]; }
    return x;
  };
  reg('gcd', [T.int4, T.int4], T.int4, ([a, b]) => {
    const r = gcd(BigInt(a as number), BigInt(b as number));
    if (r > 2147483647n) throw new FloeError(SqlState.numericValueOutOfRange, 'integer out of range');
    return Number(r);
  });
  reg('gcd', [T.int8, T.int8], T.int8, ([a, b]) => {
    const r = gcd(a as bigint, b as bigint);
    if (r > 2n ** 63n - 1n) throw new FloeError(SqlState.numericValueOutOfRange, 'bigint out of range');
    return r;
  });
  reg('width_bucket', [F, F, F, T.int4], T.int4, ([v, lo, hi, n]) => {
    const x = v as number; const l = lo as number; const h = hi as number; const k = n as number;
    if (k <= 0) throw new FloeError('2201G', 'count must be greater than zero');
    if (x < l) return 0;
    if (x >= h) return k + 1;
    return Math.floor(((x - l) / (h - l)) * k) + 1;
  });
}

function logCheck(x: number, f: (x: number) => number): number {
  if (x === 0) throw new FloeError('2201E', 'cannot take logarithm of zero');
  if (x < 0) throw new FloeError('2201E', 'cannot take logarithm of a negative number');
  return f(x);
}

function numericPower(a: Decimal, b: Decimal): string {
  if (a.unscaled === 0n && b.unscaled < 0n) throw new FloeError('2201F', 'zero raised to a negative power is undefined');
  // PostgreSQL 15 prints powers with at least 16 fractional digits (more when an input has more).
  const rscale = Math.min(Math.max(16, a.scale, b.scale), 1000);
  if (b.scale === 0 || b.unscaled % 10n ** BigInt(b.scale) === 0n) {
    const e = b.unscaled / 10n ** BigInt(b.scale);
    if (e >= -1000n && e <= 1000n) {
      let r: Decimal = { unscaled: 1n, scale: 0 };
      const n = e < 0n ? -e : e;
      for (let i = 0n; i < n; i++) r = { unscaled: r.unscaled * a.unscaled, scale: r.scale + a.scale };
      if (e < 0n) return formatDecimal(decDiv({ unscaled: 1n, scale: 0 }, r, rscale));
      return formatDecimal(rescale(r, rscale));
    }
  }
  if (decCmp(b, { unscaled: 5n, scale: 1 }) === 0) return formatDecimal(decSqrtAtScale(a, rscale));
  const r = Math.pow(Number(formatDecimal(a)), Number(formatDecimal(b)));
  if (Number.isNaN(r)) throw new FloeError('2201F', 'a negative number raised to a non-integer power yields a complex result');
  if (!Number.isFinite(r)) throw new FloeError(SqlState.numericValueOutOfRange, 'value overflows numeric format');
  return formatDecimal(rescale(parseDecimal(r.toPrecision(17)), rscale));
}
