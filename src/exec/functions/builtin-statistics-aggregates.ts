import { BuiltinTypes as T } from './builtin-operators.js';
import { registerAggregateFunction, type AggregateImpl } from './function-registry.js';

/** N, Σx, Σy and the centred sums of squares and products, as PostgreSQL's float8_regr_accum keeps them. */
interface RegressionState { n: number; sx: number; sy: number; sxx: number; syy: number; sxy: number }

/**
 * One pass of Youngs–Cramer updates (PostgreSQL's float8_regr_accum), so the
 * doubles come out as PostgreSQL's do, digit for digit. Arguments are (Y, X).
 */
function regression(final: (s: RegressionState) => number | bigint | null): AggregateImpl {
  return {
    init: (): RegressionState => ({ n: 0, sx: 0, sy: 0, sxx: 0, syy: 0, sxy: 0 }),
    step: (state, [yv, xv]) => {
      const s = state as RegressionState;
      const y = yv as number; const x = xv as number;
      const prev = s.n;
      s.n++; s.sx += x; s.sy += y;
      if (prev > 0) {
        const tx = x * s.n - s.sx;
        const ty = y * s.n - s.sy;
        const scale = 1 / (s.n * prev);
        s.sxx += tx * tx * scale;
        s.syy += ty * ty * scale;
        s.sxy += tx * ty * scale;
      } else {
        // A first input of Inf or NaN makes the dependent sums NaN.
        if (!Number.isFinite(x)) { s.sxx = NaN; s.sxy = NaN; }
        if (!Number.isFinite(y)) { s.syy = NaN; s.sxy = NaN; }
      }
      return s;
    },
    combine: (a, b) => {
      const p = a as RegressionState; const q = b as RegressionState;
      if (p.n === 0) return { ...q };
      if (q.n === 0) return { ...p };
      const n = p.n + q.n;
      const dx = p.sx / p.n - q.sx / q.n;
      const dy = p.sy / p.n - q.sy / q.n;
      return {
        n, sx: p.sx + q.sx, sy: p.sy + q.sy,
        sxx: p.sxx + q.sxx + (p.n * q.n * dx * dx) / n,
        syy: p.syy + q.syy + (p.n * q.n * dy * dy) / n,
        sxy: p.sxy + q.sxy + (p.n * q.n * dx * dy) / n,
      };
    },
    final: (s) => final(s as RegressionState),
  };
}

const FINALS: Record<string, (s: RegressionState) => number | bigint | null> = {
  regr_sxx: (s) => (s.n < 1 ? null : s.sxx),
  regr_syy: (s) => (s.n < 1 ? null : s.syy),
  regr_sxy: (s) => (s.n < 1 ? null : s.sxy),
  regr_avgx: (s) => (s.n < 1 ? null : s.sx / s.n),
  regr_avgy: (s) => (s.n < 1 ? null : s.sy / s.n),
  covar_pop: (s) => (s.n < 1 ? null : s.sxy / s.n),
  covar_samp: (s) => (s.n < 2 ? null : s.sxy / (s.n - 1)),
  // Per the SQL standard, NULL for horizontal and vertical lines.
  corr: (s) => (s.n < 1 || s.sxx === 0 || s.syy === 0 ? null : s.sxy / Math.sqrt(s.sxx * s.syy)),
  regr_r2: (s) => (s.n < 1 || s.sxx === 0 ? null : s.syy === 0 ? 1 : (s.sxy * s.sxy) / (s.sxx * s.syy)),
  regr_slope: (s) => (s.n < 1 || s.sxx === 0 ? null : s.sxy / s.sxx),
  regr_intercept: (s) => (s.n < 1 || s.sxx === 0 ? null : (s.sy - (s.sx * s.sxy) / s.sxx) / s.n),
};

/** corr, covar_pop/samp and the regr_* family over (double precision, double precision). */
export function registerBuiltinStatisticsAggregates(): void {
  const F = T.float8;
  for (const [name, final] of Object.entries(FINALS)) {
    registerAggregateFunction({ name, args: [F, F], returns: F, impl: () => regression(final) });
  }
  registerAggregateFunction({ name: 'regr_count', args: [F, F], returns: T.int8, impl: () => regression((s) => BigInt(s.n)) });
}
