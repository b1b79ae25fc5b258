import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import {
  compareScaled, decAdd, decCmp, decMul, decNeg, decSub, formatDecimal, formatScaled, parseDecimal, parseScaledInto, scaleUpExact,
} from '../types/numeric.js';
import type { Decimal, ScaledNumber } from '../types/numeric.js';

/**
 * A vectorized implementation of a strict scalar function: computes `out[i]`
 * for every row (or every row in `sel`), NULL when any argument is NULL.
 */
export type VectorImpl = (args: readonly (readonly unknown[])[], out: unknown[], n: number, sel: Int32Array | undefined) => void;

type Kernel2 = (a: readonly unknown[], b: readonly unknown[], out: unknown[], n: number, sel: Int32Array | undefined, fail: (msg: string) => never) => void;

const COMPARISONS: Readonly<Record<string, string>> = { '=': '===', '<>': '!==', '!=': '!==', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

/**
 * Loops are generated once per operator from fixed templates: only the
 * whitelisted JavaScript operator text above and the check templates below
 * become code — never a value.
 */
function generate(expr: string, check: string): Kernel2 {
  const body = (idx: string) => `{ const i = ${idx}; const x = a[i]; const y = b[i];
    if (x === null || y === null) { out[i] = null; continue; }
    const r = ${expr}; ${check} out[i] = r; }`;
  return new Function('a', 'b', 'out', 'n', 'sel', 'fail',
    `if (sel === undefined) { for (let k = 0; k < n; k++) ${body('k')} } else { for (let k = 0; k < sel.length; k++) ${body('sel[k]')} }`) as Kernel2;
}

function wrap(k: Kernel2): VectorImpl {
  const fail = (msg: string): never => { throw new FloeError(SqlState.numericValueOutOfRange, msg); };
  return (args, out, n, sel) => k(args[0]!, args[1]!, out, n, sel, fail);
}

const cache = new Map<string, VectorImpl>();

/** `x op y` for values ordered by JavaScript's operators (numbers, bigints, strings of code-point-ordered types). */
export function comparisonKernel(op: string): VectorImpl | undefined {
  const js = COMPARISONS[op];
  if (!js) return undefined;
  const key = `cmp${op}`;
  let k = cache.get(key);
  if (!k) { k = wrap(generate(`x ${js} y`, '')); cache.set(key, k); }
  return k;
}

const SMALL_RANGE: Readonly<Record<string, [number, number, string]>> = {
  int2: [-32768, 32767, 'smallint out of range'],
  int4: [-2147483648, 2147483647, 'integer out of range'],
};

/** int2/int4 (+, -, *) with PostgreSQL's overflow error; float8 (+, -, *) with its overflow check. */
export function arithmeticKernel(op: '+' | '-' | '*', kind: 'int2' | 'int4' | 'float8'): VectorImpl {
  const key = `${kind}${op}`;
  let k = cache.get(key);
  if (k) return k;
  let check: string;
  if (kind === 'float8') {
    check = `if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y)) fail('value out of range: overflow');`;
    // A product of two non-zero factors that rounds to zero underflows (PostgreSQL's float8_mul).
    if (op === '*') check += ` if (r === 0 && x !== 0 && y !== 0) fail('value out of range: underflow');`;
  } else {
    const [lo, hi, msg] = SMALL_RANGE[kind]!;
    check = `if (r > ${hi} || r < ${lo}) fail('${msg}');`;
  }
  k = wrap(generate(`x ${op} y`, check));
  cache.set(key, k);
  return k;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Same codes as the kernels' switch: a number keeps the hot loop monomorphic. */
const NUM_OPS = { '+': 0, '-': 1, '*': 2 } as const;

/**
 * numeric (+, -, *) over canonical text: each operand is scanned into a safe
 * integer + scale (the last scan per operand is reused, so a constant or a
 * run of equal values is scanned once), the result is computed exactly in
 * doubles when it stays <= 2^53-1, and only otherwise through BigInt.
 * Scales follow PostgreSQL: max for + and -, the sum for *.
 */
export function numericArithmeticKernel(op: '+' | '-' | '*'): VectorImpl {
  const key = `numeric${op}`;
  let k = cache.get(key);
  if (k) return k;
  const code = NUM_OPS[op];
  const slow = op === '+' ? decAdd : op === '-' ? decSub : decMul;
  k = (args, out, n, sel) => {
    const a = args[0]!; const b = args[1]!;
    const sa: ScaledNumber = { unscaled: 0, scale: 0 };
    const sb: ScaledNumber = { unscaled: 0, scale: 0 };
    let pa: unknown; let pb: unknown; let okA = false; let okB = false;
    const m = sel ? sel.length : n;
    for (let j = 0; j < m; j++) {
      const i = sel ? sel[j]! : j;
      const x = a[i]; const y = b[i];
      if (x === null || y === null) { out[i] = null; continue; }
      if (x !== pa) { pa = x; okA = parseScaledInto(x as string, sa); }
      if (y !== pb) { pb = y; okB = parseScaledInto(y as string, sb); }
      let r = NaN; let s = 0;
      if (okA && okB) {
        if (code === 2) {
          r = sa.unscaled * sb.unscaled;
          s = sa.scale + sb.scale;
        } else {
          let u = sa.unscaled; let v = sb.unscaled;
          s = sa.scale;
          if (sa.scale < sb.scale) { s = sb.scale; u = scaleUpExact(u, s - sa.scale); }
          else if (sb.scale < sa.scale) v = scaleUpExact(v, s - sb.scale);
          r = code === 0 ? u + v : u - v;
        }
        if (r > MAX_SAFE || r < -MAX_SAFE) r = NaN;
      }
      out[i] = r === r ? formatScaled(r, s) : formatDecimal(slow(parseDecimal(x as string), parseDecimal(y as string)));
    }
  };
  cache.set(key, k);
  return k;
}

/** Unary minus on numeric text (never "-0": PostgreSQL has no negative zero numeric). */
export function numericNegateKernel(): VectorImpl {
  let k = cache.get('numeric-neg');
  if (k) return k;
  k = (args, out, n, sel) => {
    const a = args[0]!;
    const s: ScaledNumber = { unscaled: 0, scale: 0 };
    const m = sel ? sel.length : n;
    for (let j = 0; j < m; j++) {
      const i = sel ? sel[j]! : j;
      const x = a[i];
      if (x === null) { out[i] = null; continue; }
      out[i] = parseScaledInto(x as string, s) ? formatScaled(s.unscaled === 0 ? 0 : -s.unscaled, s.scale) : formatDecimal(decNeg(parseDecimal(x as string)));
    }
  };
  cache.set('numeric-neg', k);
  return k;
}

const CMP_CODES: Readonly<Record<string, number>> = { '=': 0, '<>': 1, '!=': 1, '<': 2, '<=': 3, '>': 4, '>=': 5 };

/** numeric comparisons over canonical text: exact double compare after scale alignment, BigInt when that would not be exact (and for NaN). */
export function numericComparisonKernel(op: string): VectorImpl | undefined {
  const code = CMP_CODES[op];
  if (code === undefined) return undefined;
  const key = `numeric-cmp${op}`;
  let k = cache.get(key);
  if (k) return k;
  k = (args, out, n, sel) => {
    const a = args[0]!; const b = args[1]!;
    const sa: ScaledNumber = { unscaled: 0, scale: 0 };
    const sb: ScaledNumber = { unscaled: 0, scale: 0 };
    let pa: unknown; let pb: unknown; let okA = false; let okB = false;
    // Each side's exact value is kept while the side repeats: a scalar subquery's avg
    // (scale 20, beyond a double) was parsed again for every row.
    let da: Decimal | undefined; let db: Decimal | undefined;
    const m = sel ? sel.length : n;
    for (let j = 0; j < m; j++) {
      const i = sel ? sel[j]! : j;
      const x = a[i]; const y = b[i];
      if (x === null || y === null) { out[i] = null; continue; }
      if (x !== pa) { pa = x; okA = parseScaledInto(x as string, sa); da = undefined; }
      if (y !== pb) { pb = y; okB = parseScaledInto(y as string, sb); db = undefined; }
      let c = NaN;
      if (okA && okB) {
        if (sa.scale === sb.scale) c = sa.unscaled < sb.unscaled ? -1 : sa.unscaled > sb.unscaled ? 1 : 0;
        else c = compareScaled(sa.unscaled, sa.scale, sb.unscaled, sb.scale);
      }
      if (c !== c) c = decCmp(da ??= parseDecimal(x as string), db ??= parseDecimal(y as string));
      out[i] = code === 0 ? c === 0 : code === 1 ? c !== 0 : code === 2 ? c < 0 : code === 3 ? c <= 0 : code === 4 ? c > 0 : c >= 0;
    }
  };
  cache.set(key, k);
  return k;
}

/** character(n) = and <>: trailing blanks do not count (PostgreSQL's bpchareq compares up to each side's last non-blank). */
export function bpcharEqualityKernel(op: string): VectorImpl | undefined {
  const negated = op === '<>' || op === '!=';
  if (op !== '=' && !negated) return undefined;
  const key = negated ? 'bpchar<>' : 'bpchar=';
  let k = cache.get(key);
  if (k) return k;
  k = (args, out, n, sel) => {
    const a = args[0]!; const b = args[1]!;
    const m = sel ? sel.length : n;
    for (let j = 0; j < m; j++) {
      const i = sel ? sel[j]! : j;
      const x = a[i]; const y = b[i];
      if (x === null || y === null) { out[i] = null; continue; }
      out[i] = sameBlankPadded(x as string, y as string) !== negated;
    }
  };
  cache.set(key, k);
  return k;
}

function sameBlankPadded(x: string, y: string): boolean {
  if (x === y) return true;
  let ex = x.length;
  let ey = y.length;
  while (ex > 0 && x.charCodeAt(ex - 1) === 32) ex--;
  while (ey > 0 && y.charCodeAt(ey - 1) === 32) ey--;
  if (ex !== ey) return false;
  for (let c = 0; c < ex; c++) if (x.charCodeAt(c) !== y.charCodeAt(c)) return false;
  return true;
}
