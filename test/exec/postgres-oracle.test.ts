import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { FloeError } from '../../src/common/floe-error.js';
import type { Expr } from '../../src/exec/expr/expr.js';
import { startPostgres } from '../harness/postgres-server.js';
import type { PostgresServer } from '../harness/postgres-server.js';
import { formatValue } from '../../src/exec/types/text-io.js';
import type { OutputColumn, PhysicalPlan, SortKey } from '../../src/exec/plan/physical-plan.js';
import type { SqlType } from '../../src/common/sql-type.js';
import { aggId, cast, col, evalExpr, fn, int, lit, nul, num, op, rowsOf, t, text, values } from './exec-test-helpers.js';

/**
 * The same scalar expressions evaluated by PostgreSQL 15 and by the executor,
 * compared as text (or by SQLSTATE when PostgreSQL raises an error).
 */
const d = (s: string) => cast(text(s), t.date);
const ts = (s: string) => cast(text(s), t.timestamp);
const tz = (s: string) => cast(text(s), t.timestamptz);
const iv = (s: string) => cast(text(s), t.interval);
const f8 = (x: number) => lit(x, t.float8);
const i8 = (x: bigint) => lit(x, t.int8);

const cases: [string, Expr][] = [
  ['1::numeric / 3', op('/', num('1'), num('3'))],
  ['2::numeric / 3 * 3', op('*', op('/', num('2'), num('3')), num('3'))],
  ['123.456::numeric / 0.7', op('/', num('123.456'), num('0.7'))],
  ['0.001::numeric / 7', op('/', num('0.001'), num('7'))],
  ['100000::numeric / 3', op('/', num('100000'), num('3'))],
  ['10.50::numeric * 3.125', op('*', num('10.50'), num('3.125'))],
  ['1.10::numeric + 2.205', op('+', num('1.10'), num('2.205'))],
  ['round(2.345::numeric, 2)', fn('round', num('2.345'), int(2))],
  ['round(-2.5::numeric)', fn('round', num('-2.5'))],
  ['round(1234.5::numeric, -2)', fn('round', num('1234.5'), int(-2))],
  ['sqrt(2::numeric)', fn('sqrt', num('2'))],
  ['sqrt(12345.678::numeric)', fn('sqrt', num('12345.678'))],
  ['power(2::numeric, 10::numeric)', fn('power', num('2'), num('10'))],
  ['7 / 2', op('/', int(7), int(2))],
  ['(-7) / 2', op('/', int(-7), int(2))],
  ['(-7) % 3', op('%', int(-7), int(3))],
  ['2147483647 + 1', op('+', int(2147483647), int(1))],
  ['1 / 0', op('/', int(1), int(0))],
  ['9223372036854775807::int8 * 2', op('*', i8(9223372036854775807n), i8(2n))],
  ['0.1::float8 + 0.2::float8', op('+', f8(0.1), f8(0.2))],
  ['1e300::float8 * 1e10::float8', op('*', f8(1e300), f8(1e10))],
  ['1::float8 / 3', op('/', f8(1), f8(3))],
  ['123456789012345678::float8', f8(123456789012345678)],
  ['0.00001234::float8', f8(0.00001234)],
  ['2.5::float8::int4', cast(f8(2.5), t.int4)],
  ['3.5::float8::int4', cast(f8(3.5), t.int4)],
  ['(-2.5)::numeric::int4', cast(num('-2.5'), t.int4)],
  ['0.1::float8::numeric', cast(f8(0.1), t.numeric)],
  ['1.0e-5::float8::numeric', cast(f8(1e-5), t.numeric)],
  ["'x'::int4", cast(text('x'), t.int4)],
  ["' 12 '::int2", cast(text(' 12 '), t.int2)],
  ["'40000'::int2", cast(text('40000'), t.int2)],
  ["'1e3'::numeric", cast(text('1e3'), t.numeric)],
  ["'2024-02-30'::date", cast(text('2024-02-30'), t.date)],
  ["'2024-01-31'::date + interval '1 month'", op('+', d('2024-01-31'), iv('1 month'))],
  ["'2024-03-31'::date - '2024-02-29'::date", op('-', d('2024-03-31'), d('2024-02-29'))],
  ["'2024-03-01 00:00'::timestamp - '2024-01-01 12:30'::timestamp", op('-', ts('2024-03-01 00:00'), ts('2024-01-01 12:30'))],
  ["interval '1 year 2 months 3 days 04:05:06.789'", iv('1 year 2 months 3 days 04:05:06.789')],
  ["interval '-1 year -2 mons +3 days -04:05:06'", iv('-1 year -2 mons +3 days -04:05:06')],
  ["interval '36 hours' * 1.5::float8", op('*', iv('36 hours'), f8(1.5))],
  ["interval '1 month' / 3::float8", op('/', iv('1 month'), f8(3))],
  ["extract(epoch from interval '1 month 1 day')", fn('extract', text('epoch'), iv('1 month 1 day'))],
  ["extract(second from '2024-03-01 10:11:12.345'::timestamp)", fn('extract', text('second'), ts('2024-03-01 10:11:12.345'))],
  ["extract(isodow from '2024-03-03'::date)", fn('extract', text('isodow'), d('2024-03-03'))],
  ["extract(year from '1995-12-31'::date)", fn('extract', text('year'), d('1995-12-31'))],
  ["extract(YEAR from '0044-03-15 BC'::date)", fn('extract', text('YEAR'), d('0044-03-15 BC'))],
  ["extract(month from '2000-02-29'::date)", fn('extract', text('month'), d('2000-02-29'))],
  ["extract(day from '1900-03-01'::date)", fn('extract', text('day'), d('1900-03-01'))],
  // The same day by other fields and spellings after its year (results are kept per field).
  ["extract(month from '1995-12-31'::date)", fn('extract', text('month'), d('1995-12-31'))],
  ["extract(Day from '1995-12-31'::date)", fn('extract', text('Day'), d('1995-12-31'))],
  ["extract(year from '1995-12-31'::date)", fn('extract', text('year'), d('1995-12-31'))],
  ["extract(year from 'infinity'::date)", fn('extract', text('year'), d('infinity'))],
  ["extract(month from '-infinity'::date)", fn('extract', text('month'), d('-infinity'))],
  ["extract(epoch from '-infinity'::timestamp)", fn('extract', text('epoch'), ts('-infinity'))],
  ["extract(day from 'infinity'::timestamp)", fn('extract', text('day'), ts('infinity'))],
  ["date_part('month', 'infinity'::date)", fn('date_part', text('month'), d('infinity'))],
  ["date_part('year', '-infinity'::date)", fn('date_part', text('year'), d('-infinity'))],
  ["extract(week from '2021-01-01'::date)", fn('extract', text('week'), d('2021-01-01'))],
  ["extract(doy from '2024-12-31'::date)", fn('extract', text('doy'), d('2024-12-31'))],
  ["extract(epoch from '2024-03-01 10:11:12.5+02'::timestamptz)", fn('extract', text('epoch'), tz('2024-03-01 10:11:12.5+02'))],
  ["date_trunc('quarter', '2024-05-17 10:11:12'::timestamp)", fn('date_trunc', text('quarter'), ts('2024-05-17 10:11:12'))],
  ["date_trunc('day', '2024-05-17 10:11:12+00'::timestamptz)", fn('date_trunc', text('day'), tz('2024-05-17 10:11:12+00'))],
  ["age('2024-03-31'::timestamp, '2023-02-28 10:00'::timestamp)", fn('age', ts('2024-03-31'), ts('2023-02-28 10:00'))],
  ["'2024-03-01 10:00:00.120'::timestamp", ts('2024-03-01 10:00:00.120')],
  ["'0044-03-15 BC'::date", d('0044-03-15 BC')],
  ["'infinity'::timestamp", ts('infinity')],
  ["to_char('2024-03-05 14:07:09'::timestamp, 'YYYY-MM-DD HH24:MI:SS Dy Month DDD')", fn('to_char', ts('2024-03-05 14:07:09'), text('YYYY-MM-DD HH24:MI:SS Dy Month DDD'))],
  ["substring('hello world', 3, 4)", fn('substring', text('hello world'), int(3), int(4))],
  ["substring('hello', -1, 3)", fn('substring', text('hello'), int(-1), int(3))],
  ["position('lo' in 'hello')", fn('position', text('hello'), text('lo'))],
  ["split_part('a,b,,c', ',', 3)", fn('split_part', text('a,b,,c'), text(','), int(3))],
  ["lpad('hello', 8, 'xy')", fn('lpad', text('hello'), int(8), text('xy'))],
  ["rtrim('xxhixx', 'x')", fn('rtrim', text('xxhixx'), text('x'))],
  ["regexp_replace('foo bar baz', 'ba(.)', 'X\\1', 'g')", fn('regexp_replace', text('foo bar baz'), text('ba(.)'), text('X\\1'), text('g'))],
  ["initcap('hello wORLD-foo')", fn('initcap', text('hello wORLD-foo'))],
  ["concat('a', NULL, 1, true)", fn('concat', text('a'), nul(t.text), int(1), lit(true, t.bool))],
  ["'abc' || NULL", op('||', text('abc'), nul(t.text))],
  ["'ab'::varchar(5)::bpchar(5) || '|'", op('||', cast(cast(text('ab'), { kind: 'bpchar', length: 5 }), t.text), text('|'))],
  ["true::text", cast(lit(true, t.bool), t.text)],
  ["'{1,NULL,\"a b\"}'::text[]", cast(text('{1,NULL,"a b"}'), { kind: 'array', element: t.text })],
  ["'\\x0aff'::bytea", cast(text('\\x0aff'), { kind: 'bytea' })],
  ["'{\"b\": 1, \"a\": [1,2]}'::jsonb", cast(text('{"b": 1, "a": [1,2]}'), { kind: 'jsonb' })],
  ["3.14159::float4", lit(Math.fround(3.14159), { kind: 'float4' })],
  ['power(2::numeric, -2::numeric)', fn('power', num('2'), num('-2'))],
  ['power(2::numeric, 0.5::numeric)', fn('power', num('2'), num('0.5'))],
  ['power(123.45::numeric, 3::numeric)', fn('power', num('123.45'), num('3'))],
  ["'a' || true", op('||', text('a'), lit(true, t.bool))],
  ["interval '1 day -04:05:06'", iv('1 day -04:05:06')],
  ["interval '-1 mons +3 days'", iv('-1 mons +3 days')],
];

let server: PostgresServer;
let client: pg.Client;
before(async () => {
  server = await startPostgres();
  client = new pg.Client({ connectionString: server.url });
  await client.connect();
  await client.query("SET TimeZone = 'UTC'; SET DateStyle = 'ISO, MDY'; SET IntervalStyle = 'postgres'; SET extra_float_digits = 1");
});
after(async () => {
  await client?.end();
  await server?.stop();
});

test('scalar expressions match PostgreSQL 15 (value text or SQLSTATE)', async () => {
  const mismatches: string[] = [];
  for (const [sql, expr] of cases) {
    let expected: string;
    try {
      const r = await client.query({ text: `SELECT (${sql})::text AS v`, rowMode: 'array' });
      expected = `= ${(r.rows[0] as unknown[])[0] as string | null}`;
    } catch (e) {
      expected = `! ${(e as { code?: string }).code}`;
    }
    let actual: string;
    try {
      actual = `= ${(await evalExpr(cast(expr, t.text), { settings: new Map([['timezone', 'UTC']]) })) as string | null}`;
    } catch (e) {
      actual = e instanceof FloeError ? `! ${e.sqlstate}` : `!! ${(e as Error).message}`;
    }
    if (actual !== expected) mismatches.push(`${sql}: PostgreSQL ${expected}, Floe ${actual}`);
  }
  assert.deepEqual(mismatches, []);
});

/** Runs `sql` in PostgreSQL (all values as text) and `plan` in the executor, formatting with the same output functions. */
async function compareQuery(sql: string, plan: PhysicalPlan): Promise<void> {
  const r = await client.query({ text: sql, rowMode: 'array', types: { getTypeParser: () => (v: string) => v } as never });
  const expected = (r.rows as (string | null)[][]).map((row) => row.map((v) => v ?? 'NULL').join(' | '));
  const rows = await rowsOf(plan, { settings: new Map([['timezone', 'UTC']]) });
  const actual = rows.map((row) => row.map((v, i) => (v === null ? 'NULL' : formatValue(v, plan.columns[i]!.type, { timeZone: 'UTC' }))).join(' | '));
  assert.deepEqual(actual, expected, sql);
}

function aggPlan(input: PhysicalPlan, calls: { name: string; args: import('../../src/exec/expr/expr.js').Expr[]; distinct?: boolean; orderBy?: SortKey[] }[]): PhysicalPlan {
  const aggs = calls.map((c) => {
    const a = aggId(c.name, ...c.args.map((x) => x.type));
    return { fn: a.id, args: c.args, distinct: c.distinct ?? false, orderBy: c.orderBy, type: a.type };
  });
  return { kind: 'hashAggregate', input, groupBy: [], aggregates: aggs, columns: aggs.map((a, i) => ({ name: `a${i}`, type: a.type })) };
}

const stats = ['sum', 'avg', 'count', 'min', 'max', 'stddev', 'variance', 'stddev_pop', 'var_pop'];

test('aggregates match PostgreSQL 15 (result types and scales)', async () => {
  const relations: [string, SqlType, unknown[]][] = [
    ['int4', t.int4, [1, 2, 4, null]],
    ['int8', t.int8, [10n, 20n, 25n, null]],
    ['numeric', t.numeric, ['1.5', '2.25', null, '10']],
    ['float8', t.float8, [1.5, 2.25, null, 10]],
  ];
  for (const [name, type, vals] of relations) {
    const C: OutputColumn[] = [{ name: 'x', type }];
    const input = values(C, vals.map((v) => [v]));
    const sqlValues = vals.map((v) => `(${v === null ? 'NULL' : String(v)}::${name})`).join(', ');
    await compareQuery(
      `SELECT ${stats.map((f) => `${f}(x)`).join(', ')}, count(*) FROM (VALUES ${sqlValues}) v(x)`,
      aggPlan(input, [...stats.map((f) => ({ name: f, args: [col(0, type)] })), { name: 'count', args: [] }]),
    );
  }
  // Ties that print differently: PostgreSQL's min/max keep the later of equal numerics and floats.
  for (const [name, type, vals] of [
    ['numeric', t.numeric, ['0.00', '1.5', '0', '1.50', '0.0', '1.500']],
    ['float8', t.float8, [0, -0, 2, 2]],
  ] as [string, SqlType, unknown[]][]) {
    const input = values([{ name: 'x', type }], vals.map((v) => [v]));
    const sqlValues = vals.map((v) => `('${Object.is(v, -0) ? '-0' : String(v)}'::${name})`).join(', ');
    await compareQuery(
      `SELECT min(x), max(x) FROM (VALUES ${sqlValues}) v(x)`,
      aggPlan(input, [{ name: 'min', args: [col(0, type)] }, { name: 'max', args: [col(0, type)] }]),
    );
  }
  const W: OutputColumn[] = [{ name: 's', type: t.text }];
  const words = values(W, [['b'], ['a'], [null], ['c'], ['a']]);
  const asc: SortKey = { expr: col(0, t.text), descending: false, nullsFirst: false };
  const desc: SortKey = { expr: col(0, t.text), descending: true, nullsFirst: true };
  await compareQuery(
    "SELECT string_agg(s, ',' ORDER BY s DESC), array_agg(s ORDER BY s), count(DISTINCT s), string_agg(DISTINCT s, '-' ORDER BY s) FROM (VALUES ('b'), ('a'), (NULL), ('c'), ('a')) v(s)",
    aggPlan(words, [
      { name: 'string_agg', args: [col(0, t.text), lit(',', t.text)], orderBy: [desc] },
      { name: 'array_agg', args: [col(0, t.text)], orderBy: [asc] },
      { name: 'count', args: [col(0, t.text)], distinct: true },
      { name: 'string_agg', args: [col(0, t.text), lit('-', t.text)], distinct: true, orderBy: [asc] },
    ]),
  );
});

test('DISTINCT aggregates over int2/int4 arguments match PostgreSQL 15, per group (and over numeric, equal at another scale)', async () => {
  const C: OutputColumn[] = [{ name: 'g', type: t.text }, { name: 'x', type: t.int4 }, { name: 'y', type: t.int2 }, { name: 'z', type: t.numeric }];
  const data: [string, number | null, number | null, string | null][] = [
    ['a', 3, 1, '1.0'], ['a', 1, 1, '1.00'], ['a', 3, null, '2'], ['a', null, 2, null], ['a', -7, 2, '2.0'],
    ['b', 2, null, null], ['b', null, null, '0'], ['b', 2, 5, '-0.0'], ['c', null, null, null],
  ];
  const sqlValues = data.map(([g, x, y, z]) => `('${g}', ${x ?? 'NULL'}::int4, ${y ?? 'NULL'}::int2, ${z ?? 'NULL'}::numeric)`).join(', ');
  const plan = aggPlan(values(C, data), [
    { name: 'count', args: [col(1, t.int4)], distinct: true },
    { name: 'sum', args: [col(1, t.int4)], distinct: true },
    { name: 'avg', args: [col(2, t.int2)], distinct: true },
    { name: 'count', args: [col(2, t.int2)] },
    { name: 'count', args: [col(3, t.numeric)], distinct: true },
  ]);
  const grouped: PhysicalPlan = { ...plan, groupBy: [col(0, t.text)], columns: [C[0]!, ...plan.columns] } as PhysicalPlan;
  await compareQuery(
    `SELECT g, count(DISTINCT x), sum(DISTINCT x), avg(DISTINCT y), count(y), count(DISTINCT z) FROM (VALUES ${sqlValues}) v(g, x, y, z) GROUP BY g ORDER BY g`,
    grouped,
  );
});

test('array_agg and string_agg with DISTINCT list their values sorted, as PostgreSQL 15 does', async () => {
  const C: OutputColumn[] = [{ name: 'x', type: t.int4 }, { name: 's', type: t.text }];
  const data: [number | null, string | null][] = [[3, 'b'], [1, 'é'], [null, 'a'], [3, null], [2, 'b'], [-1, 'B'], [1, 'a']];
  const sqlValues = data.map(([x, s]) => `(${x ?? 'NULL'}::int4, ${s === null ? 'NULL' : `'${s}'`}::text)`).join(', ');
  await compareQuery(
    `SELECT array_agg(DISTINCT x), string_agg(DISTINCT s, ','), array_agg(DISTINCT s), count(DISTINCT x) FROM (VALUES ${sqlValues}) v(x, s)`,
    aggPlan(values(C, data), [
      { name: 'array_agg', args: [col(0, t.int4)], distinct: true },
      { name: 'string_agg', args: [col(1, t.text), lit(',', t.text)], distinct: true },
      { name: 'array_agg', args: [col(1, t.text)], distinct: true },
      { name: 'count', args: [col(0, t.int4)], distinct: true },
    ]),
  );
});

test('window functions match PostgreSQL 15', async () => {
  const C: OutputColumn[] = [{ name: 'g', type: t.text }, { name: 'x', type: t.int4 }];
  const data: [string, number | null][] = [['a', 3], ['a', 1], ['a', 3], ['a', 7], ['b', 2], ['b', null], ['b', 5]];
  const sqlValues = data.map(([g, x]) => `('${g}', ${x === null ? 'NULL' : x})`).join(', ');
  const part = [col(0, t.text)];
  const ord: SortKey[] = [{ expr: col(1, t.int4), descending: false, nullsFirst: false }, ];
  const w = (name: string, args: import('../../src/exec/expr/expr.js').Expr[], frame?: import('../../src/exec/plan/physical-plan.js').WindowFrame, orderBy = ord) => {
    const a = aggId(name, ...args.map((x) => x.type));
    return { fn: a.id, args, partitionBy: part, orderBy, frame, type: a.type };
  };
  const x = col(1, t.int4);
  const fns = [
    w('row_number', []), w('rank', []), w('dense_rank', []), w('percent_rank', []), w('cume_dist', []), w('ntile', [int(3)]),
    w('lag', [x]), w('lead', [x, int(2), int(0)]), w('first_value', [x]), w('last_value', [x]),
    w('sum', [x]), w('avg', [x]), w('count', []),
    w('sum', [x], { mode: 'rows', start: { kind: 'preceding', offset: lit(1n, t.int8) }, end: { kind: 'following', offset: lit(1n, t.int8) } }),
    w('max', [x], { mode: 'rows', start: { kind: 'currentRow' }, end: { kind: 'unboundedFollowing' } }),
    w('sum', [x], { mode: 'range', start: { kind: 'preceding', offset: lit(2, t.int4) }, end: { kind: 'currentRow' } }),
    w('count', [x], { mode: 'groups', start: { kind: 'preceding', offset: lit(1n, t.int8) }, end: { kind: 'currentRow' } }),
    w('sum', [x], undefined, []),
  ];
  const plan: PhysicalPlan = {
    kind: 'sort', keys: [{ expr: col(0, t.text), descending: false, nullsFirst: false }, ...ord, { expr: col(2, t.int8), descending: false, nullsFirst: false }],
    columns: [],
    input: { kind: 'window', input: values(C, data), functions: fns, columns: [...C, ...fns.map((f, i) => ({ name: `w${i}`, type: f.type }))] },
  };
  const fixed = { ...plan, columns: (plan as unknown as { input: { columns: OutputColumn[] } }).input.columns } as PhysicalPlan;
  const W = 'PARTITION BY g ORDER BY x';
  await compareQuery(
    `SELECT g, x, row_number() OVER (${W}), rank() OVER (${W}), dense_rank() OVER (${W}), percent_rank() OVER (${W}), cume_dist() OVER (${W}),
       ntile(3) OVER (${W}), lag(x) OVER (${W}), lead(x, 2, 0) OVER (${W}), first_value(x) OVER (${W}), last_value(x) OVER (${W}),
       sum(x) OVER (${W}), avg(x) OVER (${W}), count(*) OVER (${W}),
       sum(x) OVER (${W} ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), max(x) OVER (${W} ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
       sum(x) OVER (${W} RANGE BETWEEN 2 PRECEDING AND CURRENT ROW), count(x) OVER (${W} GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW),
       sum(x) OVER (PARTITION BY g)
     FROM (VALUES ${sqlValues}) v(g, x) ORDER BY g, x, 3`,
    fixed,
  );
});

test('time zones: timestamptz I/O, AT TIME ZONE, DST-aware arithmetic match PostgreSQL 15', async () => {
  const zone = 'America/New_York';
  await client.query(`SET TimeZone = '${zone}'`);
  const tzCases: [string, Expr][] = [
    ["'2024-03-10 01:30'::timestamptz", tz('2024-03-10 01:30')],
    ["'2024-03-10 12:00'::timestamptz", tz('2024-03-10 12:00')],
    ["'2024-03-09 12:00'::timestamptz + interval '1 day'", op('+', tz('2024-03-09 12:00'), iv('1 day'))],
    ["'2024-03-09 12:00'::timestamptz + interval '24 hours'", op('+', tz('2024-03-09 12:00'), iv('24 hours'))],
    ["date_trunc('day', '2024-11-03 15:00'::timestamptz)", fn('date_trunc', text('day'), tz('2024-11-03 15:00'))],
    ["'2024-07-01 12:00+00'::timestamptz AT TIME ZONE 'Asia/Kolkata'", fn('timezone', text('Asia/Kolkata'), tz('2024-07-01 12:00+00'))],
    ["'2024-07-01 12:00'::timestamp AT TIME ZONE 'UTC'", fn('timezone', text('UTC'), ts('2024-07-01 12:00'))],
    ["extract(hour from '2024-07-01 12:00+00'::timestamptz)", fn('extract', text('hour'), tz('2024-07-01 12:00+00'))],
    ["'2024-07-01'::date::timestamptz", cast(d('2024-07-01'), t.timestamptz)],
    ["'2024-07-01 23:30+00'::timestamptz::date", cast(tz('2024-07-01 23:30+00'), t.date)],
  ];
  const mismatches: string[] = [];
  try {
    for (const [sql, expr] of tzCases) {
      const r = await client.query({ text: `SELECT (${sql})::text`, rowMode: 'array' });
      const expected = (r.rows[0] as unknown[])[0];
      const actual = await evalExpr(cast(expr, t.text), { settings: new Map([['timezone', zone]]) });
      if (actual !== expected) mismatches.push(`${sql}: PostgreSQL ${String(expected)}, Floe ${String(actual)}`);
    }
  } finally {
    await client.query("SET TimeZone = 'UTC'");
  }
  assert.deepEqual(mismatches, []);
});
