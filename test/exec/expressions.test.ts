import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FloeError } from '../../src/common/floe-error.js';
import type { Expr } from '../../src/exec/expr/expr.js';
import { cast, evalExpr, fn, int, lit, nul, num, op, t, text } from './exec-test-helpers.js';

async function rejects(e: Expr, sqlstate: string, message?: string | RegExp): Promise<void> {
  await assert.rejects(evalExpr(e), (err: unknown) => {
    assert.ok(err instanceof FloeError, `expected FloeError, got ${String(err)}`);
    assert.equal(err.sqlstate, sqlstate, err.message);
    if (typeof message === 'string') assert.equal(err.message, message);
    else if (message) assert.match(err.message, message);
    return true;
  });
}

const T = lit(true, t.bool);
const F = lit(false, t.bool);
const N = nul(t.bool);

test('three-valued AND/OR/NOT', async () => {
  const and = (a: Expr, b: Expr): Expr => ({ kind: 'and', args: [a, b], type: t.bool });
  const or = (a: Expr, b: Expr): Expr => ({ kind: 'or', args: [a, b], type: t.bool });
  assert.equal(await evalExpr(and(N, F)), false);
  assert.equal(await evalExpr(and(N, T)), null);
  assert.equal(await evalExpr(and(T, T)), true);
  assert.equal(await evalExpr(or(N, T)), true);
  assert.equal(await evalExpr(or(N, F)), null);
  assert.equal(await evalExpr({ kind: 'not', arg: N, type: t.bool }), null);
  assert.equal(await evalExpr({ kind: 'isNull', arg: nul(t.int4), type: t.bool }), true);
  assert.equal(await evalExpr(op('=', nul(t.int4), int(1))), null);
  assert.equal(await evalExpr({ kind: 'isDistinctFrom', left: nul(t.int4), right: int(1), eqFn: '=(int4,int4)', negated: false, type: t.bool }), true);
  assert.equal(await evalExpr({ kind: 'isDistinctFrom', left: nul(t.int4), right: nul(t.int4), eqFn: '=(int4,int4)', negated: false, type: t.bool }), false);
});

test('IN list with NULLs follows SQL', async () => {
  const inl = (arg: Expr, list: Expr[], negated = false): Expr => ({ kind: 'inList', arg, list, eqFn: '=(int4,int4)', negated, type: t.bool });
  assert.equal(await evalExpr(inl(int(1), [int(1), nul(t.int4)])), true);
  assert.equal(await evalExpr(inl(int(2), [int(1), nul(t.int4)])), null);
  assert.equal(await evalExpr(inl(int(2), [int(1), int(3)])), false);
  assert.equal(await evalExpr(inl(int(2), [int(1), nul(t.int4)], true)), null);
  assert.equal(await evalExpr(inl(nul(t.int4), [int(1)])), null);
});

test('integer arithmetic: overflow 22003, truncating division, division by zero 22012', async () => {
  assert.equal(await evalExpr(op('/', int(7), int(2))), 3);
  assert.equal(await evalExpr(op('/', int(-7), int(2))), -3);
  assert.equal(await evalExpr(op('%', int(-7), int(2))), -1);
  await rejects(op('+', int(2147483647), int(1)), '22003', 'integer out of range');
  await rejects(op('*', lit(2n ** 62n, t.int8), lit(4n, t.int8)), '22003', 'bigint out of range');
  await rejects(op('/', int(1), int(0)), '22012', 'division by zero');
  await rejects(op('/', num('1'), num('0')), '22012', 'division by zero');
  await rejects(op('-', lit(-32768, t.int2)), '22003', 'smallint out of range');
  assert.equal(await evalExpr(op('+', int(1), lit(2n, t.int8))), 3n);
});

test('numeric keeps PostgreSQL scales', async () => {
  assert.equal(await evalExpr(op('/', num('1'), num('3'))), '0.33333333333333333333');
  assert.equal(await evalExpr(op('/', num('10'), num('4'))), '2.5000000000000000');
  assert.equal(await evalExpr(op('+', num('1.50'), num('1'))), '2.50');
  assert.equal(await evalExpr(op('*', num('1.5'), num('1.25'))), '1.875');
  assert.equal(await evalExpr(op('-', num('0.1'), num('0.3'))), '-0.2');
  assert.equal(await evalExpr(fn('round', num('2.5'))), '3');
  assert.equal(await evalExpr(fn('round', num('-2.5'))), '-3');
  assert.equal(await evalExpr(fn('round', num('3.14159'), int(2))), '3.14');
  assert.equal(await evalExpr(fn('round', lit(2.5, t.float8))), 2);
  assert.equal(await evalExpr(fn('trunc', num('-3.789'), int(1))), '-3.7');
  assert.equal(await evalExpr(fn('sqrt', num('2'))), '1.414213562373095');
  assert.equal(await evalExpr(cast(text('12.345'), { kind: 'numeric', precision: 5, scale: 2 })), '12.35');
  await rejects(cast(text('1234.5'), { kind: 'numeric', precision: 5, scale: 2 }), '22003', 'numeric field overflow');
  assert.equal(await evalExpr(fn('mod', num('10.5'), num('3'))), '1.5');
  assert.equal(await evalExpr(fn('abs', num('-0.50'))), '0.50');
  assert.equal(await evalExpr(fn('ceil', num('-1.5'))), '-1');
  assert.equal(await evalExpr(fn('floor', num('-1.5'))), '-2');
});

test('casts with PostgreSQL text formats and error shapes', async () => {
  await rejects(cast(text('x'), t.int4), '22P02', 'invalid input syntax for type integer: "x"');
  await rejects(cast(text('99999999999'), t.int4), '22003', 'value "99999999999" is out of range for type integer');
  await rejects(cast(text('2024-02-30'), t.date), '22008');
  await rejects(cast(text('nope'), t.date), '22007', 'invalid input syntax for type date: "nope"');
  await rejects(cast(text('maybe'), t.bool), '22P02', 'invalid input syntax for type boolean: "maybe"');
  await rejects(cast(text('1.5x'), t.numeric), '22P02', 'invalid input syntax for type numeric: "1.5x"');
  assert.equal(await evalExpr(cast(text(' 42 '), t.int4)), 42);
  assert.equal(await evalExpr(cast(text('yes'), t.bool)), true);
  assert.equal(await evalExpr(cast(lit(true, t.bool), t.text)), 'true');
  assert.equal(await evalExpr(cast(lit(2.5, t.float8), t.int4)), 2);
  assert.equal(await evalExpr(cast(lit(3.5, t.float8), t.int4)), 4);
  assert.equal(await evalExpr(cast(num('2.5'), t.int4)), 3);
  assert.equal(await evalExpr(cast(lit(0.1, t.float8), t.text)), '0.1');
  assert.equal(await evalExpr(cast(lit(1e20, t.float8), t.text)), '1e+20');
  assert.equal(await evalExpr(cast(lit(123456.789, t.float8), t.numeric)), '123456.789');
  assert.equal(await evalExpr(cast(text('abcdef'), { kind: 'varchar', length: 3 })), 'abc');
  assert.equal(await evalExpr(cast(text('ab'), { kind: 'bpchar', length: 4 })), 'ab  ');
  // bpchar to text drops trailing blanks only.
  assert.equal(await evalExpr(cast(cast(text(' a b'), { kind: 'bpchar', length: 6 }), t.text)), ' a b');
  assert.equal(await evalExpr(cast(cast(text('   '), { kind: 'bpchar', length: 3 }), t.text)), '');
  assert.equal(await evalExpr(cast(nul({ kind: 'bpchar', length: 3 }), t.text)), null);
  assert.equal(await evalExpr(cast(lit(19000, t.date), t.text)), '2022-01-08');
  assert.equal(await evalExpr(cast(text('2024-03-01 12:30:45.123'), t.timestamp)), 1709296245123000n);
  assert.equal(await evalExpr(cast(lit(1709296245123000n, t.timestamp), t.text)), '2024-03-01 12:30:45.123');
  assert.equal(await evalExpr(cast(lit(0n, t.timestamptz), t.text), { settings: new Map([['timezone', 'America/New_York']]) }), '1969-12-31 19:00:00-05');
  assert.equal(await evalExpr(cast(text('1 year 2 mons 3 days 04:05:06'), t.interval).type.kind === 'interval' ? cast(cast(text('1 year 2 mons 3 days 04:05:06'), t.interval), t.text) : text('')), '1 year 2 mons 3 days 04:05:06');
  assert.equal(await evalExpr(cast(cast(text('-1 day 2 hours'), t.interval), t.text)), '-1 days +02:00:00');
  assert.equal(await evalExpr(cast(text('{1,2,NULL}'), { kind: 'array', element: t.int4 })).then((v) => JSON.stringify(v)), '[1,2,null]');
});

test('date/time/interval arithmetic, extract, date_trunc', async () => {
  const d = (s: string) => cast(text(s), t.date);
  const ts = (s: string) => cast(text(s), t.timestamp);
  const iv = (s: string) => cast(text(s), t.interval);
  const txt = (e: Expr) => cast(e, t.text);
  assert.equal(await evalExpr(txt(op('+', d('2024-01-31'), int(1)))), '2024-02-01');
  assert.equal(await evalExpr(op('-', d('2024-03-01'), d('2024-02-01'))), 29);
  assert.equal(await evalExpr(txt(op('+', d('2024-01-31'), iv('1 month')))), '2024-02-29 00:00:00');
  assert.equal(await evalExpr(txt(op('-', ts('2024-03-01 00:00'), ts('2024-02-28 12:00')))), '1 day 12:00:00');
  assert.equal(await evalExpr(txt(op('*', iv('1 hour'), lit(1.5, t.float8)))), '01:30:00');
  assert.equal(await evalExpr(fn('extract', text('year'), ts('2024-03-01 10:00:05.5'))), '2024');
  assert.equal(await evalExpr(fn('extract', text('second'), ts('2024-03-01 10:00:05.5'))), '5.500000');
  assert.equal(await evalExpr(fn('extract', text('dow'), d('2024-03-03'))), '0');
  assert.equal(await evalExpr(fn('extract', text('epoch'), d('1970-01-02'))), '86400');
  assert.equal(await evalExpr(fn('date_part', text('month'), ts('2024-03-01'))), 3);
  assert.equal(await evalExpr(txt(fn('date_trunc', text('month'), ts('2024-03-17 10:11:12')))), '2024-03-01 00:00:00');
  assert.equal(await evalExpr(txt(fn('date_trunc', text('week'), ts('2024-03-17 10:11:12')))), '2024-03-11 00:00:00');
  assert.equal(await evalExpr(fn('extract', text('epoch'), iv('1 day'))), '86400.000000');
  assert.equal(await evalExpr(fn('to_char', ts('2024-03-05 14:07:09'), text('YYYY-MM-DD HH24:MI:SS Mon Dy'))), '2024-03-05 14:07:09 Mar Tue');
});

test('LIKE / ILIKE with escapes', async () => {
  const like = (s: string, p: string, opts: { ci?: boolean; neg?: boolean; esc?: string } = {}): Expr => ({
    kind: 'like', arg: text(s), pattern: text(p), escape: opts.esc === undefined ? undefined : text(opts.esc),
    caseInsensitive: opts.ci ?? false, negated: opts.neg ?? false, type: t.bool,
  });
  assert.equal(await evalExpr(like('hello', 'h%o')), true);
  assert.equal(await evalExpr(like('hello', 'h_llo')), true);
  assert.equal(await evalExpr(like('HELLO', 'h%')), false);
  assert.equal(await evalExpr(like('HELLO', 'h%', { ci: true })), true);
  assert.equal(await evalExpr(like('50%', '50\\%')), true);
  assert.equal(await evalExpr(like('500', '50\\%')), false);
  assert.equal(await evalExpr(like('a_b', 'a#_b', { esc: '#' })), true);
  assert.equal(await evalExpr(like('a.b', 'a.b')), true);
  assert.equal(await evalExpr(like('axb', 'a.b')), false);
  assert.equal(await evalExpr(like('abc', 'a%', { neg: true })), false);
  await rejects(like('abc', 'ab\\'), '22025');
});

test('CASE short-circuits; COALESCE, NULLIF, GREATEST, LEAST', async () => {
  const x = int(0);
  const caseExpr: Expr = {
    kind: 'case', whens: [{ when: op('=', x, int(0)), then: int(0) }], else: op('/', int(1), x), type: t.int4,
  };
  assert.equal(await evalExpr(caseExpr), 0);
  assert.equal(await evalExpr({ kind: 'case', whens: [{ when: F, then: int(1) }], type: t.int4 }), null);
  assert.equal(await evalExpr({ kind: 'case', operand: int(2), eqFn: '=(int4,int4)', whens: [{ when: int(1), then: text('a') }, { when: int(2), then: text('b') }], type: t.text }), 'b');
  assert.equal(await evalExpr({ kind: 'coalesce', args: [nul(t.int4), int(2), op('/', int(1), int(0))], type: t.int4 }), 2);
  assert.equal(await evalExpr({ kind: 'nullif', left: int(1), right: int(1), eqFn: '=(int4,int4)', type: t.int4 }), null);
  assert.equal(await evalExpr({ kind: 'nullif', left: int(1), right: int(2), eqFn: '=(int4,int4)', type: t.int4 }), 1);
  assert.equal(await evalExpr({ kind: 'greatest', args: [int(1), nul(t.int4), int(3)], cmpFn: '<(int4,int4)', type: t.int4 }), 3);
  assert.equal(await evalExpr({ kind: 'least', args: [int(1), nul(t.int4), int(3)], cmpFn: '<(int4,int4)', type: t.int4 }), 1);
});

test('string functions', async () => {
  assert.equal(await evalExpr(fn('length', text('héllo'))), 5);
  assert.equal(await evalExpr(fn('upper', text('abc'))), 'ABC');
  assert.equal(await evalExpr(fn('substring', text('hello'), int(0), int(3))), 'he');
  assert.equal(await evalExpr(fn('substring', text('hello'), int(2))), 'ello');
  // Characters, not UTF-16 code units, with or without a surrogate pair in the string.
  assert.equal(await evalExpr(fn('substring', text('a😀bc'), int(2), int(2))), '😀b');
  assert.equal(await evalExpr(fn('substring', text('a😀bc'), int(3))), 'bc');
  assert.equal(await evalExpr(fn('substring', text('héllo'), int(-1), int(4))), 'hé');
  assert.equal(await evalExpr(fn('substring', text('hello'), int(4), int(0))), '');
  assert.equal(await evalExpr(fn('position', text('hello'), text('ll'))), 3);
  assert.equal(await evalExpr(fn('btrim', text('xxhixx'), text('x'))), 'hi');
  assert.equal(await evalExpr(fn('ltrim', text('  hi'))), 'hi');
  assert.equal(await evalExpr(fn('replace', text('abcabc'), text('b'), text('X'))), 'aXcaXc');
  assert.equal(await evalExpr(fn('left', text('hello'), int(-2))), 'hel');
  assert.equal(await evalExpr(fn('right', text('hello'), int(2))), 'lo');
  assert.equal(await evalExpr(fn('lpad', text('7'), int(3), text('0'))), '007');
  assert.equal(await evalExpr(fn('rpad', text('hello'), int(3))), 'hel');
  assert.equal(await evalExpr(fn('split_part', text('a,b,c'), text(','), int(2))), 'b');
  assert.equal(await evalExpr(fn('split_part', text('a,b,c'), text(','), int(-1))), 'c');
  assert.equal(await evalExpr(fn('starts_with', text('hello'), text('he'))), true);
  assert.equal(await evalExpr(fn('regexp_replace', text('a1b22'), text('[0-9]+'), text('#'), text('g'))), 'a#b#');
  assert.equal(await evalExpr(fn('regexp_replace', text('John Smith'), text('(\\w+) (\\w+)'), text('\\2, \\1'))), 'Smith, John');
  assert.equal(await evalExpr(fn('concat', text('a'), nul(t.text), int(1))), 'a1');
  assert.equal(await evalExpr(op('||', text('a'), int(1))), 'a1');
  assert.equal(await evalExpr(op('||', text('a'), nul(t.text))), null);
  assert.equal(await evalExpr(fn('to_char', num('1234.5'), text('FM9999.00'))), '1234.50');
});

test('operator resolution follows PostgreSQL (unknown literals, implicit casts, result types)', async () => {
  const { resolveOperator, resolveFunction } = await import('../../src/exec/functions/function-registry.js');
  assert.equal(resolveOperator('=', t.text, t.unknown)?.id, '=(text,text)');
  assert.equal(resolveOperator('+', t.int4, t.numeric)?.returnType.kind, 'numeric');
  assert.equal(resolveOperator('+', t.int4, t.int8)?.returnType.kind, 'int8');
  assert.equal(resolveOperator('<', t.timestamptz, t.date)?.id, '<(timestamptz,timestamptz)');
  assert.equal(resolveFunction('sum', [t.int4])?.returnType.kind, 'int8');
  assert.equal(resolveFunction('sum', [t.int8])?.returnType.kind, 'numeric');
  assert.equal(resolveFunction('avg', [t.int4])?.returnType.kind, 'numeric');
  assert.equal(resolveFunction('avg', [t.float8])?.returnType.kind, 'float8');
  assert.equal(resolveFunction('count', [])?.returnType.kind, 'int8');
  assert.equal(resolveFunction('no_such_fn', [t.int4]), undefined);
});

test('reg* casts: type names built in, relations and functions through a registered resolver', async () => {
  const { registerRegTypeResolver } = await import('../../src/exec/index.js');
  assert.equal(await evalExpr(cast(text('integer'), { kind: 'regtype' })), 23);
  assert.equal(await evalExpr(cast(text('pg_catalog.int8'), { kind: 'regtype' })), 20);
  assert.equal(await evalExpr(cast(cast(lit(1043, { kind: 'oid' }), { kind: 'regtype' }), t.text)), 'character varying');
  assert.equal(await evalExpr(cast(text('1259'), { kind: 'regclass' })), 1259);
  await rejects(cast(text('no_such_table'), { kind: 'regclass' }), '42P01', 'relation "no_such_table" does not exist');
  registerRegTypeResolver({
    toOid: (kind, name) => (kind === 'regproc' && name === 'pg_catalog.array_in' ? 750 : undefined),
    toName: (kind, oid) => (kind === 'regproc' && oid === 750 ? 'array_in' : undefined),
  });
  assert.equal(await evalExpr(cast(text('pg_catalog.array_in'), { kind: 'regproc' })), 750);
  assert.equal(await evalExpr(cast(lit(750, { kind: 'regproc' }), t.text)), 'array_in');
});
