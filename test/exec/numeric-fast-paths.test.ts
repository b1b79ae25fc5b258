import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Decimal, makeData, makeVector } from 'apache-arrow';
import { FloeError } from '../../src/common/floe-error.js';
import {
  applyNumericTypmod, castNumericText, compareNumericText, decAdd, decCmp, decMul, decNeg, decSub, formatDecimal, formatScaled,
  parseDecimal, parseDecimalRegex, parseScaled,
} from '../../src/exec/types/numeric.js';
import type { Decimal as DecimalValue } from '../../src/exec/types/numeric.js';
import { valuesToVector, vectorToValues } from '../../src/exec/arrow/vector-values.js';
import type { Expr } from '../../src/exec/expr/expr.js';
import type { PhysicalPlan } from '../../src/exec/plan/physical-plan.js';
import { cast, col, int, num, op, rowsOf, t, values } from './exec-test-helpers.js';
import { numericArithmeticKernel, numericComparisonKernel, numericNegateKernel } from '../../src/exec/functions/vector-kernels.js';

/** The BigInt formatting the executor used before the fast paths: the reference for every text result. */
function refFormat(d: DecimalValue): string {
  if (d.nan) return 'NaN';
  const { unscaled: v, scale } = d;
  if (scale <= 0) return v.toString();
  const neg = v < 0n;
  const s = (neg ? -v : v).toString().padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
}

const refParse = parseDecimalRegex;
const MAX = 2n ** 53n - 1n;

/** Unscaled values concentrated where the fast path switches to BigInt (2^53, 15–17 digits), plus small ones. */
const unscaledArb = fc.oneof(
  fc.bigInt({ min: -1000n, max: 1000n }),
  fc.bigInt({ min: -(10n ** 18n), max: 10n ** 18n }),
  fc.bigInt({ min: MAX - 50n, max: MAX + 50n }),
  fc.bigInt({ min: -MAX - 50n, max: -MAX + 50n }),
  fc.bigInt({ min: 10n ** 15n - 20n, max: 10n ** 15n + 20n }),
  fc.bigInt({ min: 2n ** 52n - 50n, max: 2n ** 52n + 50n }),
  fc.bigInt({ min: -(2n ** 52n) - 50n, max: -(2n ** 52n) + 50n }),
  fc.bigInt({ min: 10n ** 16n - 20n, max: 10n ** 16n + 20n }),
  fc.constantFrom(0n, 1n, -1n, MAX, -MAX, MAX + 1n, -MAX - 1n, 10n ** 30n),
);

/** Canonical text plus non-canonical spellings the fast scanner must read the same way. */
const textArb = fc.tuple(unscaledArb, fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 5 })).map(([u, s, style]) => {
  const t = refFormat({ unscaled: u, scale: s });
  switch (style) {
    case 1: return u >= 0n ? `+${t}` : t;
    case 2: return u === 0n ? `-${t}` : t; // "-0", "-0.00"
    case 3: return t.startsWith('-') ? `-00${t.slice(1)}` : `00${t}`;
    case 4: return t.startsWith('0.') ? t.slice(1) : t.startsWith('-0.') ? `-${t.slice(2)}` : `${t}${t.includes('.') ? '' : '.'}`;
    default: return t;
  }
});

const oddTexts = ['0', '-0', '-0.00', '+0.0', '.5', '-.5', '5.', '1e3', '1.5E-2', ' 7 ', 'NaN', 'nan', '9007199254740991', '9007199254740992',
  '-9007199254740991', '-9007199254740992', '0.9007199254740991', '90071992547409.91', '123456789012345678901234567890.1'];

function sameError(f: () => unknown, g: () => unknown): unknown {
  let a: unknown; let b: unknown; let ea: unknown; let eb: unknown;
  try { a = f(); } catch (e) { ea = e; }
  try { b = g(); } catch (e) { eb = e; }
  if (ea || eb) {
    assert.ok(ea instanceof FloeError && eb instanceof FloeError, `both fail: ${String(ea)} / ${String(eb)}`);
    assert.equal(ea.sqlstate, eb.sqlstate);
    assert.equal(ea.message, eb.message);
    return undefined;
  }
  assert.deepEqual(a, b);
  return a;
}

test('parseDecimal and parseScaled agree with the regex parser', () => {
  const check = (t: string) => {
    const ref = refParse(t);
    assert.deepEqual(parseDecimal(t), ref, t);
    const fast = parseScaled(t);
    if (fast) {
      assert.ok(Number.isSafeInteger(fast.unscaled), t);
      assert.equal(BigInt(fast.unscaled), ref.unscaled, t);
      assert.equal(fast.scale, ref.scale, t);
    } else if (!ref.nan && /^[+-]?(\d+\.?\d*|\.\d+)$/.test(t)) {
      // The plain form only leaves the fast path when the digits do not fit.
      assert.ok(ref.unscaled > MAX || ref.unscaled < -MAX || /^[+-]?0*\d{16,}/.test(t.replace('.', '')), t);
    }
  };
  for (const t of oddTexts) check(t);
  fc.assert(fc.property(textArb, (t) => check(t)), { numRuns: 3000 });
  for (const bad of ['', '-', '.', '+.', '1.2.3', '1-2', 'abc', '--1']) {
    sameError(() => parseDecimal(bad), () => refParse(bad));
    assert.equal(parseScaled(bad), undefined);
  }
});

test('formatDecimal and formatScaled print what the BigInt path prints', () => {
  fc.assert(fc.property(unscaledArb, fc.integer({ min: 0, max: 40 }), (u, s) => {
    assert.equal(formatDecimal({ unscaled: u, scale: s }), refFormat({ unscaled: u, scale: s }));
    if (u <= MAX && u >= -MAX) assert.equal(formatScaled(Number(u), s), refFormat({ unscaled: u, scale: s }));
  }), { numRuns: 3000 });
  assert.equal(formatScaled(-0, 2), '0.00');
  assert.equal(formatScaled(-0, 0), '0');
});

type Op = '+' | '-' | '*';
const REF: Record<Op, (a: DecimalValue, b: DecimalValue) => DecimalValue> = { '+': decAdd, '-': decSub, '*': decMul };

function withNulls(arb: fc.Arbitrary<string>): fc.Arbitrary<string | null> {
  return fc.oneof({ weight: 9, arbitrary: arb }, { weight: 1, arbitrary: fc.constant(null) });
}

test('numeric +, -, * kernels equal the BigInt operators (scales, overflow into BigInt, NULLs, selections)', () => {
  const rows = fc.array(fc.tuple(withNulls(textArb), withNulls(textArb)), { minLength: 1, maxLength: 40 });
  for (const op of ['+', '-', '*'] as const) {
    const k = numericArithmeticKernel(op);
    fc.assert(fc.property(rows, fc.boolean(), (pairs, useSel) => {
      const a = pairs.map((p) => p[0]); const b = pairs.map((p) => p[1]);
      const n = pairs.length;
      const sel = useSel ? Int32Array.from({ length: n }, (_, i) => i).filter((i) => i % 2 === 0) : undefined;
      const out = new Array<unknown>(n);
      k([a, b], out, n, sel);
      for (const i of sel ?? Array.from({ length: n }, (_, j) => j)) {
        const x = a[i]!; const y = b[i]!;
        const want = x === null || y === null ? null : refFormat(REF[op](refParse(x), refParse(y)));
        assert.equal(out[i], want, `${x} ${op} ${y}`);
      }
    }), { numRuns: 400 });
  }
});

test('numeric kernels: display scale and zero cases as PostgreSQL prints them', () => {
  const run = (op: Op, x: string, y: string) => { const out: unknown[] = [undefined]; numericArithmeticKernel(op)([[x], [y]], out, 1, undefined); return out[0]; };
  assert.equal(run('+', '1.10', '1'), '2.10');
  assert.equal(run('-', '1', '0.06'), '0.94');
  assert.equal(run('*', '-0.00', '5.5'), '0.000');
  assert.equal(run('*', '-3', '0'), '0');
  assert.equal(run('-', '0.05', '0.05'), '0.00');
  assert.equal(run('*', '94906.35', '0.94'), '89211.9690');
  assert.equal(run('*', '9007199254740991', '10'), '90071992547409910');
  assert.equal(run('+', '9007199254740991', '1'), '9007199254740992');
  assert.equal(run('+', 'NaN', '1'), 'NaN');
  const neg = numericNegateKernel();
  const out: unknown[] = [];
  neg([['0.00', '-1.50', null, '12', '-9007199254740992']], out, 5, undefined);
  assert.deepEqual(out, ['0.00', '1.50', null, '-12', '9007199254740992']);
});

test('numeric comparison kernels and compareNumericText equal decCmp', () => {
  const cmpOps: [string, (c: number) => boolean][] = [['=', (c) => c === 0], ['<>', (c) => c !== 0], ['<', (c) => c < 0], ['<=', (c) => c <= 0], ['>', (c) => c > 0], ['>=', (c) => c >= 0]];
  const pairArb = fc.oneof(
    fc.tuple(textArb, textArb),
    // Equal values with different scales and near-equal boundary values.
    textArb.map((t) => [t, t.includes('.') ? `${t}000` : `${t}.0`] as [string, string]),
    fc.tuple(textArb, fc.constantFrom('NaN', '0', '-0.00')),
  );
  fc.assert(fc.property(fc.array(pairArb, { minLength: 1, maxLength: 30 }), (pairs) => {
    const a = pairs.map((p) => p[0]); const b = pairs.map((p) => p[1]);
    for (const [op, test] of cmpOps) {
      const out = new Array<unknown>(pairs.length);
      numericComparisonKernel(op)!([a, b], out, pairs.length, undefined);
      pairs.forEach(([x, y], i) => {
        const c = decCmp(refParse(x), refParse(y));
        assert.equal(out[i], test(c), `${x} ${op} ${y}`);
        assert.equal(compareNumericText(x, y), c);
      });
    }
  }), { numRuns: 300 });
});

test('numeric comparison kernels against a side that repeats (a subquery\'s value) equal decCmp row by row', () => {
  // Long scales leave the double path, so each side's exact value is what is kept between rows.
  const longArb = fc.tuple(fc.integer({ min: -99999, max: 99999 }), fc.integer({ min: 0, max: 99999 })).map(([i, f]) => `${i}.${String(f).padStart(5, '0')}000000000000000`);
  const sideArb = fc.oneof(textArb, longArb);
  fc.assert(fc.property(fc.array(sideArb, { minLength: 1, maxLength: 20 }), sideArb, fc.boolean(), (column, constant, constantLeft) => {
    const other = column.map(() => constant);
    const [a, b] = constantLeft ? [other, column] : [column, other];
    for (const op of ['<', '=', '>=']) {
      const out = new Array<unknown>(column.length);
      numericComparisonKernel(op)!([a, b], out, column.length, undefined);
      a.forEach((x, i) => {
        const c = decCmp(refParse(x), refParse(b[i]!));
        assert.equal(out[i], op === '<' ? c < 0 : op === '=' ? c === 0 : c >= 0, `${x} ${op} ${b[i]}`);
      });
    }
  }), { numRuns: 300 });
});

test('castNumericText rounds and overflows like applyNumericTypmod', () => {
  const typmod = fc.option(fc.tuple(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 8 })).filter(([p, s]) => s <= p));
  fc.assert(fc.property(textArb, typmod, (t, tm) => {
    const p = tm?.[0]; const s = tm?.[1];
    sameError(() => castNumericText(t, p, s), () => refFormat(applyNumericTypmod(refParse(t), p, s)));
  }), { numRuns: 3000 });
  assert.equal(castNumericText('1.005', 5, 2), '1.01');
  assert.equal(castNumericText('-1.005', 5, 2), '-1.01');
  assert.equal(castNumericText('-0.004', 5, 2), '0.00');
  assert.throws(() => castNumericText('999.995', 5, 2), (e: unknown) => e instanceof FloeError && e.sqlstate === '22003');
  assert.equal(decNeg(parseDecimal('0')).unscaled, 0n);
});

test('Decimal128 columns read to the same text as the BigInt decoding, around the 2^53 boundary', () => {
  const toWords = (v: bigint): number[] => {
    const u = BigInt.asUintN(128, v);
    return [0, 1, 2, 3].map((w) => Number((u >> BigInt(32 * w)) & 0xffffffffn));
  };
  fc.assert(fc.property(fc.array(fc.option(fc.oneof(unscaledArb, fc.bigInt({ min: -(2n ** 127n), max: 2n ** 127n - 1n }))), { minLength: 1, maxLength: 30 }),
    fc.integer({ min: 0, max: 12 }), (vals, scale) => {
      const n = vals.length;
      const words = new Uint32Array(n * 4);
      const bitmap = new Uint8Array((n + 7) >> 3);
      vals.forEach((v, i) => {
        if (v === null) return;
        bitmap[i >> 3]! |= 1 << (i & 7);
        words.set(toWords(v), i * 4);
      });
      const nulls = vals.filter((v) => v === null).length;
      const vec = makeVector(makeData({ type: new Decimal(scale, 38, 128), length: n, nullCount: nulls, nullBitmap: bitmap, data: words } as never));
      const got = vectorToValues(vec, { kind: 'numeric' });
      assert.deepEqual(got, vals.map((v) => (v === null ? null : refFormat({ unscaled: v, scale }))));
    }), { numRuns: 300 });
});

test('Utf8 columns round-trip through valuesToVector / vectorToValues (ASCII copy loop, non-ASCII and long fallbacks, reuse of decoded data)', () => {
  const strArb = fc.oneof(textArb, fc.string({ maxLength: 10 }), fc.string({ unit: 'binary', maxLength: 8 }), fc.string({ minLength: 60, maxLength: 90 }));
  fc.assert(fc.property(fc.array(fc.option(strArb), { maxLength: 30 }), fc.constantFrom('numeric', 'text') as fc.Arbitrary<'numeric' | 'text'>, (vals, kind) => {
    const t = { kind } as const;
    const vec = valuesToVector(vals, t);
    const back = vectorToValues(vec, t);
    assert.deepEqual(back, vals);
    // Re-encoding decoded values (reused Data) still reads back the same.
    assert.deepEqual(vectorToValues(valuesToVector(back, t), t), vals);
  }), { numRuns: 300 });
});

type Tree = { leaf: number } | { lit: string } | { one: true } | { neg: Tree } | { op: Op; l: Tree; r: Tree };

const treeArb: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: 0, max: 2 }).map((leaf): Tree => ({ leaf })),
    textArb.map((lit): Tree => ({ lit })),
    fc.constant<Tree>({ one: true }),
    tie('tree').map((t): Tree => ({ neg: t })),
    fc.tuple(fc.constantFrom<Op>('+', '-', '*'), tie('tree'), tie('tree')).map(([op, l, r]): Tree => ({ op, l, r })),
  ),
})).tree;

function treeExpr(tr: Tree): Expr {
  if ('leaf' in tr) return col(tr.leaf, t.numeric);
  if ('lit' in tr) return num(tr.lit);
  if ('one' in tr) return cast(int(1), t.numeric);
  if ('neg' in tr) return op('-', treeExpr(tr.neg));
  return op(tr.op, treeExpr(tr.l), treeExpr(tr.r));
}

function treeRef(tr: Tree, row: readonly (string | null)[]): DecimalValue | null {
  if ('leaf' in tr) { const v = row[tr.leaf]!; return v === null ? null : refParse(v); }
  if ('lit' in tr) return refParse(tr.lit);
  if ('one' in tr) return { unscaled: 1n, scale: 0 };
  if ('neg' in tr) { const d = treeRef(tr.neg, row); return d === null ? null : decNeg(d); }
  const a = treeRef(tr.l, row); const b = treeRef(tr.r, row);
  return a === null || b === null ? null : REF[tr.op](a, b);
}

test('fused numeric expression trees (compile-expr) equal node-by-node BigInt evaluation', async () => {
  const columns = [0, 1, 2].map((i) => ({ name: `c${i}`, type: t.numeric }));
  await fc.assert(fc.asyncProperty(treeArb, fc.array(fc.tuple(withNulls(textArb), withNulls(textArb), withNulls(textArb)), { minLength: 1, maxLength: 20 }), async (tr, rows) => {
    // `+ 0` keeps the display scale and makes even a bare leaf go through arithmetic (the reference canonicalizes).
    const e = op('+', treeExpr(tr), num('0'));
    const plan: PhysicalPlan = { kind: 'project', input: values(columns, rows), exprs: [e], columns: [{ name: 'x', type: e.type }] };
    const got = (await rowsOf(plan)).map((r) => r[0]);
    assert.deepEqual(got, rows.map((row) => { const d = treeRef(tr, row); return d === null ? null : refFormat(d); }));
  }), { numRuns: 200 });
});
