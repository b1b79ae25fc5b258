import type { ScaledVector } from '../../arrow/scaled-vector.js';
import { decAdd, decMul, decNeg, decSub, formatDecimal, formatScaled, parseDecimal, parseScaledInto, scaleUpExact } from '../../types/numeric.js';
import type { Decimal, ScaledNumber } from '../../types/numeric.js';
import { compileScaled, numericOpOf } from '../compile-scaled.js';
import type { Expr } from '../expr.js';
import type { CallExpr, NodeFn } from '../node-fn.js';
import type { SpecializeContext } from './call-specialization.js';

export const name = 'fused-numeric';

/** A tree of numeric + - * over columns and constants, computed in one pass per row. */
export function tryCompile(e: CallExpr, ctx: SpecializeContext): NodeFn | undefined {
  return compileNumericTree(e, ctx.compile);
}

/** Per-row fused evaluation state: the scale of the value the last node returned. */
interface FuseState { scale: number }

/** Returns a row's unscaled value (its scale in state.scale), or NaN when it is NULL or does not fit exactly. */
type RowFn = (i: number) => number;
type SlowFn = (i: number) => Decimal | null;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * A tree of numeric + - * (e.g. `l_extendedprice * (1 - l_discount) * (1 + l_tax)`)
 * compiled into one per-row pass over its leaves: each leaf is scanned into a
 * safe integer + scale, every step is checked exact, and only the root is
 * formatted, so no intermediate text is built. A row that leaves the safe range
 * (or has NaN) is recomputed through BigInt Decimals, node by node, exactly as the
 * unfused operators would.
 */
function compileNumericTree(e: CallExpr, c: (x: Expr) => NodeFn): NodeFn | undefined {
  const rootOp = numericOpOf(e);
  if (!rootOp || !e.args.some((a) => numericOpOf(a) !== undefined)) return undefined;
  const leaves: NodeFn[] = [];
  const cols: (readonly unknown[])[] = [];
  const st: FuseState = { scale: 0 };
  const build = (x: Expr): { fast: RowFn; slow: SlowFn } => {
    const op = numericOpOf(x);
    if (!op) {
      const k = leaves.length;
      leaves.push(c(x));
      const sc: ScaledNumber = { unscaled: 0, scale: 0 };
      let last: unknown; let ok = false;
      return {
        fast: (i) => {
          const v = cols[k]![i];
          if (v === null) return NaN;
          if (v !== last) { last = v; ok = parseScaledInto(v as string, sc); }
          if (!ok) return NaN;
          st.scale = sc.scale;
          return sc.unscaled;
        },
        slow: (i) => { const v = cols[k]![i]; return v === null ? null : parseDecimal(v as string); },
      };
    }
    const args = (x as CallExpr).args.map(build);
    if (op === 'neg') {
      const a = args[0]!;
      return {
        fast: (i) => { const u = a.fast(i); return u === 0 ? 0 : -u; },
        slow: (i) => { const d = a.slow(i); return d === null ? null : decNeg(d); },
      };
    }
    const l = args[0]!; const r = args[1]!;
    const slowOp = op === '+' ? decAdd : op === '-' ? decSub : decMul;
    const code = op === '+' ? 0 : op === '-' ? 1 : 2;
    return {
      fast: (i) => {
        let u = l.fast(i);
        if (u !== u) return NaN;
        const su = st.scale;
        let v = r.fast(i);
        if (v !== v) return NaN;
        const sv = st.scale;
        let res: number;
        if (code === 2) { res = u * v; st.scale = su + sv; }
        else {
          if (su < sv) u = scaleUpExact(u, sv - su);
          else if (sv < su) v = scaleUpExact(v, su - sv);
          res = code === 0 ? u + v : u - v;
          st.scale = su > sv ? su : sv;
        }
        return res > MAX_SAFE || res < -MAX_SAFE ? NaN : res;
      },
      slow: (i) => {
        const a = l.slow(i); const b = r.slow(i);
        return a === null || b === null ? null : slowOp(a, b);
      },
    };
  };
  const root = build(e);
  const scaled = compileScaled(e);
  return (b, ev, sel) => {
    const sv = scaled?.(b);
    if (sv) return formatRows(sv, b.numRows, sel);
    for (let k = 0; k < leaves.length; k++) cols[k] = leaves[k]!(b, ev, sel);
    const out = new Array<unknown>(b.numRows);
    const m = sel ? sel.length : b.numRows;
    for (let j = 0; j < m; j++) {
      const i = sel ? sel[j]! : j;
      const u = root.fast(i);
      if (u === u) { out[i] = formatScaled(u, st.scale); continue; }
      const d = root.slow(i);
      out[i] = d === null ? null : formatDecimal(d);
    }
    cols.length = 0;
    return out;
  };
}

/** The text values of a ScaledVector's rows (those in `sel`, else all). */
function formatRows(v: ScaledVector, n: number, sel: Int32Array | undefined): unknown[] {
  const out = new Array<unknown>(n);
  const { unscaled, scale, valid } = v;
  const m = sel ? sel.length : n;
  for (let j = 0; j < m; j++) {
    const i = sel ? sel[j]! : j;
    out[i] = valid !== undefined && valid[i] === 0 ? null : formatScaled(unscaled[i]!, scale);
  }
  return out;
}
