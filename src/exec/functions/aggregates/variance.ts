import { decAdd, decDiv, decMul, decSqrtAtScale, decSub, formatDecimal, toDecimal } from '../../types/numeric.js';
import type { Decimal } from '../../types/numeric.js';
import { BuiltinTypes as T } from '../builtin-operators.js';
import { registerAggregateFunction } from '../function-registry.js';
import type { AggregateImpl } from '../function-registry.js';
import { simple, ZERO } from './aggregate-support.js';

/** variance, stddev and their _samp and _pop forms, over floats and (exactly) over integers and numeric. */
export function registerVariance(): void {
  const statNames: [string, 'samp' | 'pop', boolean][] = [
    ['stddev', 'samp', true], ['stddev_samp', 'samp', true], ['stddev_pop', 'pop', true],
    ['variance', 'samp', false], ['var_samp', 'samp', false], ['var_pop', 'pop', false],
  ];
  for (const [name, kind, sqrt] of statNames) {
    for (const k of ['float4', 'float8'] as const) registerAggregateFunction({ name, args: [T[k]], returns: T.float8, impl: () => floatVariance(kind, sqrt) });
    for (const k of ['int2', 'int4', 'int8', 'numeric'] as const) registerAggregateFunction({ name, args: [T[k]], returns: T.numeric, impl: () => numericVariance(kind, sqrt) });
  }
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
