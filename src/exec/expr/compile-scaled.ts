import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import { intColumnScaled, scaledColumn } from '../arrow/scaled-vector.js';
import type { ScaledVector } from '../arrow/scaled-vector.js';
import { functionById } from '../functions/function-registry.js';
import { numericArithmeticKernel, numericNegateKernel } from '../functions/vector-kernels.js';
import { castValue } from '../types/cast-value.js';
import { parseScaledInto, scaleUpExact } from '../types/numeric.js';
import type { ScaledNumber } from '../types/numeric.js';
import type { Expr } from './expr.js';

export type NumericOp = '+' | '-' | '*' | 'neg';

/** The numeric + - * or unary minus a call is, when its function is the builtin one (same vector kernel). */
export function numericOpOf(e: Expr): NumericOp | undefined {
  if (e.kind !== 'call' || e.type.kind !== 'numeric' || !e.args.every((a) => a.type.kind === 'numeric')) return undefined;
  const vector = functionById(e.fn)?.vector;
  if (!vector) return undefined;
  if (e.args.length === 1) return vector === numericNegateKernel() ? 'neg' : undefined;
  for (const op of ['+', '-', '*'] as const) if (vector === numericArithmeticKernel(op)) return op;
  return undefined;
}

/** Source types whose cast to numeric reads no session setting, so a constant's cast can be done once. */
export const SETTINGS_FREE_TO_NUMERIC = new Set(['int2', 'int4', 'int8', 'numeric', 'float4', 'float8']);

/** Int types an int column's Arrow data holds as they cast to numeric (int8 may pass the safe range). */
const INT_TO_NUMERIC = new Set(['int2', 'int4']);

/** A node's value over a batch: a whole vector, or one constant for every row. */
type Scaled = ScaledVector | { readonly constant: number; readonly scale: number };
type ScaledNode = (b: ColumnarBatch) => Scaled | undefined;

/**
 * Compiles a numeric expression built from numeric(p,s) columns, constants and
 * + - * into a pass over ScaledVectors: no numeric text is parsed or built.
 * Undefined when the expression has another shape. The compiled function
 * returns undefined for a batch it cannot compute exactly (a column without an
 * exact view, a value leaving the safe-integer range); the caller then takes the
 * text path, which computes the same values.
 */
export function compileScaled(e: Expr): ((b: ColumnarBatch) => ScaledVector | undefined) | undefined {
  if (e.type.kind !== 'numeric') return undefined;
  const root = compileNode(e);
  if (!root) return undefined;
  return (b) => {
    const r = root(b);
    return r === undefined || !('unscaled' in r) ? undefined : r;
  };
}

function compileNode(e: Expr): ScaledNode | undefined {
  if (e.kind === 'column') {
    const idx = e.index;
    return (b) => scaledColumn(b, idx);
  }
  // An int column cast to plain numeric (no typmod to round or check to): its values at scale 0.
  if (e.kind === 'cast' && e.arg.kind === 'column' && INT_TO_NUMERIC.has(e.arg.type.kind) && e.type.kind === 'numeric'
    && e.type.precision === undefined && e.type.scale === undefined) {
    const idx = e.arg.index;
    return (b) => intColumnScaled(b, idx);
  }
  const constant = constantOf(e);
  if (constant !== undefined) {
    const c = constant;
    return c === null ? undefined : () => c;
  }
  const op = numericOpOf(e);
  if (!op || e.kind !== 'call') return undefined;
  const args = e.args.map(compileNode);
  if (args.some((a) => a === undefined)) return undefined;
  if (op === 'neg') {
    const a = args[0]!;
    return (b) => {
      const x = a(b);
      if (x === undefined) return undefined;
      if ('constant' in x) return { constant: x.constant === 0 ? 0 : -x.constant, scale: x.scale };
      const out = new Float64Array(x.length);
      const u = x.unscaled;
      for (let i = 0; i < out.length; i++) { const v = u[i]!; out[i] = v === 0 ? 0 : -v; }
      return { length: x.length, unscaled: out, scale: x.scale, valid: x.valid };
    };
  }
  const l = args[0]!; const r = args[1]!;
  return (b) => {
    const x = l(b);
    if (x === undefined) return undefined;
    const y = r(b);
    if (y === undefined) return undefined;
    return binary(op, x, y, b.numRows);
  };
}

/** A numeric constant as unscaled + scale (null: NULL or not exact), or undefined when `e` is not a constant. */
function constantOf(e: Expr): { constant: number; scale: number } | null | undefined {
  let value: unknown;
  if (e.kind === 'literal') value = e.value;
  else if (e.kind === 'cast' && e.arg.kind === 'literal' && SETTINGS_FREE_TO_NUMERIC.has(e.arg.type.kind)) {
    const lit = e.arg.value;
    try {
      value = lit === null || lit === undefined ? null : castValue(lit, e.arg.type, e.type, { timeZone: 'UTC' }, true);
    } catch {
      // A failing cast raises on the text path, per batch, as before.
      return null;
    }
  } else return undefined;
  if (typeof value !== 'string') return null;
  const out: ScaledNumber = { unscaled: 0, scale: 0 };
  return parseScaledInto(value, out) ? { constant: out.unscaled, scale: out.scale } : null;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * x op y at PostgreSQL's result scale (max of the scales for + and -, their sum
 * for *). Every result is checked to be a safe integer: a true value above 2^53
 * computes as at least 2^53 (rounding is monotone), so the check is exact.
 */
function binary(op: '+' | '-' | '*', x: Scaled, y: Scaled, n: number): Scaled | undefined {
  if ('constant' in x && 'constant' in y) return undefined;
  const scale = op === '*' ? x.scale + y.scale : Math.max(x.scale, y.scale);
  // Bring both sides to the result scale first (+ and -); * multiplies as they are.
  const ux = op === '*' ? 1 : scaleFactor(scale - x.scale);
  const uy = op === '*' ? 1 : scaleFactor(scale - y.scale);
  if (ux !== ux || uy !== uy) return undefined;
  const out = new Float64Array(n);
  const valid = andValid(x, y, n);
  const xc = 'constant' in x ? x.constant * ux : NaN;
  const yc = 'constant' in y ? y.constant * uy : NaN;
  if ((xc === xc && !isSafe(xc)) || (yc === yc && !isSafe(yc))) return undefined;
  const xv = 'unscaled' in x ? x.unscaled : undefined;
  const yv = 'unscaled' in y ? y.unscaled : undefined;
  if (valid === undefined && (xv === undefined || ux === 1) && (yv === undefined || uy === 1)) {
    // No NULLs and no vector to rescale (constants are rescaled above): one tight loop per shape.
    const ok = xv !== undefined && yv !== undefined ? vectorsOp(op, xv, yv, out, n)
      : xv !== undefined ? vectorConstantOp(op, xv, yc, false, out, n)
      : vectorConstantOp(op, yv!, xc, true, out, n);
    return ok ? { length: n, unscaled: out, scale, valid } : undefined;
  }
  let bad = false;
  for (let i = 0; i < n; i++) {
    if (valid !== undefined && valid[i] === 0) continue;
    let a = xv === undefined ? xc : xv[i]!;
    let c = yv === undefined ? yc : yv[i]!;
    if (xv !== undefined && ux !== 1) a *= ux;
    if (yv !== undefined && uy !== 1) c *= uy;
    const v = op === '+' ? a + c : op === '-' ? a - c : a * c;
    // Scaled operands must themselves be exact before they are combined.
    if (v > MAX_SAFE || v < -MAX_SAFE || a > MAX_SAFE || a < -MAX_SAFE || c > MAX_SAFE || c < -MAX_SAFE) { bad = true; break; }
    out[i] = v === 0 ? 0 : v;
  }
  if (bad) return undefined;
  return { length: n, unscaled: out, scale, valid };
}

/**
 * out = x op y row by row; false when a result leaves the safe integers (the
 * operands, scaled vectors, are safe already). `+ 0` turns -0 into 0.
 */
function vectorsOp(op: '+' | '-' | '*', x: Float64Array, y: Float64Array, out: Float64Array, n: number): boolean {
  if (op === '*') {
    for (let i = 0; i < n; i++) { const v = x[i]! * y[i]!; if (v > MAX_SAFE || v < -MAX_SAFE) return false; out[i] = v + 0; }
  } else if (op === '+') {
    for (let i = 0; i < n; i++) { const v = x[i]! + y[i]!; if (v > MAX_SAFE || v < -MAX_SAFE) return false; out[i] = v + 0; }
  } else {
    for (let i = 0; i < n; i++) { const v = x[i]! - y[i]!; if (v > MAX_SAFE || v < -MAX_SAFE) return false; out[i] = v + 0; }
  }
  return true;
}

/** vectorsOp with a constant `c` (safe, checked by the caller) on the right, or on the left when `constantFirst`. */
function vectorConstantOp(op: '+' | '-' | '*', x: Float64Array, c: number, constantFirst: boolean, out: Float64Array, n: number): boolean {
  if (op === '*') {
    for (let i = 0; i < n; i++) { const v = x[i]! * c; if (v > MAX_SAFE || v < -MAX_SAFE) return false; out[i] = v + 0; }
  } else if (op === '+') {
    for (let i = 0; i < n; i++) { const v = x[i]! + c; if (v > MAX_SAFE || v < -MAX_SAFE) return false; out[i] = v + 0; }
  } else if (constantFirst) {
    for (let i = 0; i < n; i++) { const v = c - x[i]!; if (v > MAX_SAFE || v < -MAX_SAFE) return false; out[i] = v + 0; }
  } else {
    for (let i = 0; i < n; i++) { const v = x[i]! - c; if (v > MAX_SAFE || v < -MAX_SAFE) return false; out[i] = v + 0; }
  }
  return true;
}

function scaleFactor(k: number): number {
  return k === 0 ? 1 : scaleUpExact(1, k);
}

function isSafe(v: number): boolean {
  return v <= MAX_SAFE && v >= -MAX_SAFE;
}

function andValid(x: Scaled, y: Scaled, n: number): Uint8Array | undefined {
  const a = 'valid' in x ? x.valid : undefined;
  const b = 'valid' in y ? y.valid : undefined;
  if (a === undefined) return b;
  if (b === undefined) return a;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = a[i]! & b[i]!;
  return out;
}

const FLIPPED: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '=': '=', '<>': '<>' };

/**
 * A comparison of a numeric expression with an exact scaled form against a numeric
 * constant (`sum(l_quantity) > 300`, `c_acctbal > 0.00`), compiled to compare
 * integers: the constant is brought to the expression's scale once. The result
 * function gives undefined for a batch without a scaled form, or when the
 * constant has more fractional digits than the expression (then the general path
 * compares). Rows outside `sel` are left unset, as compiled expressions do.
 */
export function compileScaledComparison(e: Expr): ((b: ColumnarBatch, sel: Int32Array | undefined) => unknown[] | undefined) | undefined {
  if (e.kind !== 'call' || e.args.length !== 2) return undefined;
  const m = /^(=|<>|<=|>=|<|>)\(numeric,numeric\)$/.exec(e.fn);
  if (!m) return undefined;
  const [a, b] = e.args as [Expr, Expr];
  const ca = constantOf(a);
  const cb = constantOf(b);
  let op = m[1]!;
  let operand: Expr;
  let c: { constant: number; scale: number } | null | undefined;
  if (ca === undefined && cb !== undefined) { operand = a; c = cb; } else if (cb === undefined && ca !== undefined) { operand = b; c = ca; op = FLIPPED[op]!; } else return undefined;
  if (c === null) return undefined;
  const x = compileNode(operand);
  if (x === undefined) return undefined;
  const constant = c;
  return (batch, sel) => {
    const v = x(batch);
    if (v === undefined || !('unscaled' in v) || constant.scale > v.scale) return undefined;
    const k = scaleFactor(v.scale - constant.scale) * constant.constant;
    if (!isSafe(k)) return undefined;
    const out = new Array<unknown>(batch.numRows);
    const u = v.unscaled;
    const valid = v.valid;
    const n = sel ? sel.length : batch.numRows;
    for (let j = 0; j < n; j++) {
      const i = sel ? sel[j]! : j;
      if (valid !== undefined && valid[i] === 0) { out[i] = null; continue; }
      const y = u[i]!;
      out[i] = op === '>' ? y > k : op === '<' ? y < k : op === '>=' ? y >= k : op === '<=' ? y <= k : op === '=' ? y === k : y !== k;
    }
    return out;
  };
}
