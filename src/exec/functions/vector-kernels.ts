import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';

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
  } else {
    const [lo, hi, msg] = SMALL_RANGE[kind]!;
    check = `if (r > ${hi} || r < ${lo}) fail('${msg}');`;
  }
  k = wrap(generate(`x ${op} y`, check));
  cache.set(key, k);
  return k;
}
