import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, test } from 'node:test';
import type pg from 'pg';
import { serialize } from 'pg-protocol';
import { from as copyFrom } from 'pg-copy-streams';
import { RawClient } from '../wire/raw-client.js';
import { gatewayAndOracleForSuite, type GatewayAndOracle } from './gateway-and-oracle.js';

/**
 * Values are valid or refused (issue 22, item 2): the same literals, casts, INSERTs,
 * UPDATEs, parameters and COPYs run on Floe and on PostgreSQL 15, and each outcome
 * (ok with the rows as text, or SQLSTATE, message and DETAIL) must be the same.
 */

const setup = [
  'CREATE TABLE vd (id int, d date, ts timestamp, tz timestamptz, t time)',
  'CREATE TABLE vc (id int, v varchar(5), c char(5))',
  'CREATE TABLE vn (id int, n numeric(5,2), f float8, r real, i2 smallint, i4 int, i8 bigint)',
  'CREATE TABLE vt (id int, s text)',
];

type Step = string | { readonly sql: string; readonly values: readonly unknown[] } | { readonly copy: string; readonly data: Buffer | string };

async function outcome(c: pg.Client, step: Step): Promise<string> {
  try {
    if (typeof step === 'object' && 'copy' in step) {
      await pipeline(Readable.from([Buffer.from(step.data)]), c.query(copyFrom(step.copy)));
      return 'ok copy';
    }
    const r = typeof step === 'string'
      ? await c.query({ text: step, rowMode: 'array' })
      : await c.query({ text: step.sql, values: [...step.values], rowMode: 'array' });
    return `ok ${JSON.stringify(r.rows ?? [])}`;
  } catch (e) {
    const x = e as { code?: string; message: string; detail?: string };
    return `ERR ${x.code} ${x.message}${x.detail ? ` | ${x.detail}` : ''}`;
  }
}

const label = (s: Step): string => (typeof s === 'string' ? s : 'copy' in s ? `${s.copy} <${JSON.stringify(String(s.data))}>` : `${s.sql} ${JSON.stringify(s.values)}`);

/** Runs each step on both servers in order; fails listing every step whose outcomes differ. */
async function sameOutcomes(both: GatewayAndOracle, steps: readonly Step[]): Promise<void> {
  const diffs: string[] = [];
  for (const s of steps) {
    const [floe, postgres] = [await outcome(both.g.client, s), await outcome(both.oracle, s)];
    if (floe !== postgres) diffs.push(`${label(s)}\n  floe:       ${floe}\n  postgresql: ${postgres}`);
  }
  assert.deepEqual(diffs, [], `${diffs.length} of ${steps.length} outcomes differ:\n${diffs.join('\n')}`);
}

/** Asserts Floe's outcome for one step, and that PostgreSQL's is the same. */
async function expectOutcome(both: GatewayAndOracle, step: Step, expected: string): Promise<void> {
  assert.equal(await outcome(both.oracle, step), expected, 'the oracle disagrees with the expectation');
  assert.equal(await outcome(both.g.client, step), expected);
}

const dateLiterals = [
  '2024-02-29', '2023-02-29', '2024-02-30', '2024-04-31', '2024-13-01', '2024-00-10', '2024-01-00', '2024-01-32',
  '1900-02-29', '2000-02-29', '0000-01-01', '0000-01-01 BC', '0001-01-01 BC', '4713-01-01 BC', '4714-11-24 BC',
  '4714-11-23 BC', '5874897-12-31', '5874898-01-01', '2024-1-1', '12-25-99', '1-2-2024', '99-01-01', '20240101',
  'June 15, 2024', '15-Jun-2024', '6/15/2024', '2/30/2024', 'infinity', '-infinity', 'epoch', 'garbage', '2024-02-30 BC',
  ' 2024-03-01 ', '2024-06-15T00:00:00',
];

const timestampLiterals = [
  '2024-01-01 24:00:00', '2024-01-01 25:00:00', '2024-01-01 23:60:00', '2024-01-01 23:59:60', '2024-01-01 12:00:60.5',
  '2024-02-30 10:00:00', '2023-02-29 00:00', '2024-06-15T12:00', '2024-06-15 12:00:00.1234567', '2024-06-15',
  '4714-11-24 00:00:00 BC', '4714-11-23 23:59:59 BC', '2024-01-01 24:00:01', '2024-01-01 10:61', 'infinity', '-infinity',
  '2024-13-01 00:00', 'not a time',
];

const timestamptzLiterals = [
  '2024-02-30 10:00:00+00', '2024-04-31 01:00+02', '2024-06-15 12:00:00+14', '2024-06-15 12:00:00+15:59',
  '2024-06-15 12:00:00+16', '2024-06-15 12:00:00-25', '2024-06-15 12:00:00 America/New_York', '2024-01-01T10:00:00Z',
  '2024-02-29 12:00+05', '2024-02-30 10:00:00',
];

const timeLiterals = ['24:00:00', '24:00:01', '25:00:00', '12:60', '23:59:60', '23:59:60.5', '12:00 pm', 'allballs', '-1:00', '10:30:15.5'];

describe('values are valid or refused, as in PostgreSQL 15', () => {
  let both!: GatewayAndOracle;
  gatewayAndOracleForSuite(setup, (b) => { both = b; });

  test("today 1: '2024-02-30'::date is 22008, not 2024-03-01", async () => {
    await expectOutcome(both, "SELECT '2024-02-30'::date", 'ERR 22008 date/time field value out of range: "2024-02-30"');
    await expectOutcome(both, "INSERT INTO vd (id, d) VALUES (1, '2024-13-01')", 'ERR 22008 date/time field value out of range: "2024-13-01"');
    await expectOutcome(both, 'SELECT count(*) FROM vd', 'ok [["0"]]');
  });

  test("today 2: varchar(5) given 'too long value' is 22001, not 'too l'", async () => {
    await expectOutcome(both, "INSERT INTO vc (id, v) VALUES (1, 'too long value')", 'ERR 22001 value too long for type character varying(5)');
    await expectOutcome(both, 'SELECT count(*) FROM vc', 'ok [["0"]]');
    // PostgreSQL decides an overlong literal while planning: the UPDATE fails with no row to write.
    await expectOutcome(both, "UPDATE vc SET v = 'too long value' WHERE id > 100", 'ERR 22001 value too long for type character varying(5)');
    // Compared, not assigned: an operator's argument has no length to check.
    await expectOutcome(both, "SELECT count(*) FROM vc WHERE v IN ('too long value') OR v = 'too long value'", 'ok [["0"]]');
  });

  test("today 3: '1e400'::float8 and 1e131072::numeric are 22003", async () => {
    await expectOutcome(both, "SELECT '1e400'::float8", 'ERR 22003 "1e400" is out of range for type double precision');
    await expectOutcome(both, 'SELECT 1e131072::numeric', 'ERR 22003 value overflows numeric format');
  });

  test("today 4: E'\\xff' is 22021, not 42601", async () => {
    await expectOutcome(both, "SELECT E'\\xff'", 'ERR 22021 invalid byte sequence for encoding "UTF8": 0xff');
  });

  test('dates: literals, casts and typed literals', async () => {
    await sameOutcomes(both, dateLiterals.flatMap((d) => [`SELECT '${d}'::date`, `SELECT date '${d}'`]));
    await sameOutcomes(both, ["SELECT '2024-02-30'::date + 1", "SELECT make_date(2024, 2, 30)", 'SELECT make_date(0, 1, 1)', 'SELECT make_date(-1, 2, 29)',
      "SELECT to_date('2024-02-30', 'YYYY-MM-DD')", "SELECT to_date('2024-02-29', 'YYYY-MM-DD')", "SELECT make_timestamp(2024, 2, 30, 0, 0, 0)"]);
  });

  test('timestamps, timestamptz and time: literals and casts', async () => {
    await sameOutcomes(both, [
      ...timestampLiterals.flatMap((t) => [`SELECT '${t}'::timestamp`, `SELECT timestamp '${t}'`]),
      ...timestamptzLiterals.map((t) => `SELECT '${t}'::timestamptz`),
      ...timeLiterals.map((t) => `SELECT '${t}'::time`),
    ]);
  });

  test('dates and timestamps: INSERT values, parameters, UPDATE and COPY', async () => {
    let id = 100;
    await sameOutcomes(both, [
      ...dateLiterals.map((d) => `INSERT INTO vd (id, d) VALUES (${id++}, '${d}')`),
      ...timestampLiterals.map((t) => `INSERT INTO vd (id, ts) VALUES (${id++}, '${t}')`),
      ...timestamptzLiterals.map((t) => `INSERT INTO vd (id, tz) VALUES (${id++}, '${t}')`),
      ...timeLiterals.map((t) => `INSERT INTO vd (id, t) VALUES (${id++}, '${t}')`),
      ...['2024-02-29', '2024-02-30', '2023-02-29', '0000-01-01', '2024-12-31'].map((d) => ({ sql: 'INSERT INTO vd (id, d) VALUES ($1, $2)', values: [id++, d] })),
      ...['2024-02-29 10:00', '2024-02-30 10:00', '2024-01-01 25:00'].map((t) => ({ sql: 'INSERT INTO vd (id, ts) VALUES ($1, $2)', values: [id++, t] })),
      ...['2024-02-30', '2024-02-28'].map((d) => ({ sql: 'SELECT $1::date', values: [d] })),
      "UPDATE vd SET d = '2024-02-30' WHERE id = 100",
      "UPDATE vd SET ts = '2024-01-01 23:60' WHERE id = 100",
      { copy: 'COPY vd (id, d) FROM STDIN', data: '900\t2024-02-29\n901\t2024-02-30\n' },
      { copy: 'COPY vd (id, ts) FROM STDIN WITH (FORMAT csv)', data: '902,2024-01-01 25:00:00\n' },
      { copy: 'COPY vd (id, t) FROM STDIN WITH (FORMAT csv)', data: '903,24:00:00\n904,10:00\n' },
      'SELECT id, d, ts, tz, t FROM vd ORDER BY id',
    ]);
  });

  test('text parameters take every form a cast takes, and are refused where it refuses', async () => {
    let id = 2000;
    await sameOutcomes(both, [
      ...['June 15, 2024', '12-25-99', 'Feb 30, 2024', '2024-02-30', '0000-01-01', 'infinity', ' 2024-03-01 '].map((d) => ({ sql: 'SELECT $1::date', values: [d] })),
      ...['June 15, 2024 10:00', '2024-01-01 24:00', '2024-01-01 23:60', '4714-11-23 23:59:59 BC'].map((t) => ({ sql: 'SELECT $1::timestamp', values: [t] })),
      ...['2024-06-15 10:00 America/New_York', '2024-06-15 12:00+16', '2024-02-30 00:00+00'].map((t) => ({ sql: 'SELECT $1::timestamptz', values: [t] })),
      ...['10:00 pm', '24:00', '24:00:01', '23:59:60.5'].map((t) => ({ sql: 'SELECT $1::time', values: [t] })),
      { sql: 'INSERT INTO vd (id, d, ts) VALUES ($1, $2, $3)', values: [id++, 'June 15, 2024', 'June 15, 2024 10:00'] },
      { sql: 'INSERT INTO vd (id, d) VALUES ($1, $2)', values: [id++, 'Feb 30, 2024'] },
      { sql: 'SELECT id, d, ts FROM vd WHERE d = $1 ORDER BY id', values: ['June 15, 2024'] },
    ]);
  });

  test('the session TimeZone: a wall-clock time in a DST gap or overlap reads as PostgreSQL reads it', async () => {
    await sameOutcomes(both, [
      "SET TimeZone = 'America/New_York'",
      "SELECT '2024-03-10 02:30'::timestamptz", "SELECT '2024-11-03 01:30'::timestamptz", "SELECT '2024-02-30 01:30'::timestamptz",
      { sql: 'SELECT $1::timestamptz', values: ['2024-03-10 02:30'] },
      "SELECT '2024-03-10'::date::timestamptz", "SELECT timestamp '2024-03-10 02:30' AT TIME ZONE 'America/New_York'",
      'RESET TimeZone',
    ]);
  });

  test('MERGE assigns as INSERT and UPDATE do', async () => {
    await sameOutcomes(both, [
      "INSERT INTO vc (id, v) VALUES (3000, 'abc')",
      "MERGE INTO vc USING (SELECT 3000 AS id, 'way too long' AS v) s ON vc.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v",
      "MERGE INTO vc USING (SELECT 3001 AS id, 'way too long' AS v) s ON vc.id = s.id WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)",
      "MERGE INTO vc USING (SELECT 3001 AS id, 'ok     ' AS v) s ON vc.id = s.id WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)",
      "MERGE INTO vd USING (SELECT 3002 AS id, '2024-02-30' AS d) s ON vd.id = s.id WHEN NOT MATCHED THEN INSERT (id, d) VALUES (s.id, s.d::date)",
      "MERGE INTO vn USING (SELECT 3003 AS id) s ON vn.id = s.id WHEN NOT MATCHED THEN INSERT (id, n) VALUES (s.id, 1234.5)",
      'SELECT id, v FROM vc WHERE id >= 3000 ORDER BY id',
    ]);
  });

  test('char(n) and varchar(n): overflow on assignment, trailing spaces, explicit casts, characters not bytes', async () => {
    let id = 100;
    const values = ['abcde', 'abcdef', 'abc       ', 'abcde ', 'abcdef ', 'ééééé', 'éééééé', 'ab  c', ''];
    await sameOutcomes(both, [
      ...values.flatMap((v) => [`INSERT INTO vc (id, v) VALUES (${id++}, '${v}')`, `INSERT INTO vc (id, c) VALUES (${id++}, '${v}')`]),
      `INSERT INTO vc (id, v) VALUES (${id++}, 'too long'::varchar(5))`,
      `INSERT INTO vc (id, v) VALUES (${id++}, 'too long'::text)`,
      `INSERT INTO vc (id, v) VALUES (${id++}, 12345678)`,
      `INSERT INTO vc (id, c) VALUES (${id++}, 'too long'::char(5))`,
      `INSERT INTO vc (id, v) SELECT ${id++}, 'abcdefgh'`,
      { sql: 'INSERT INTO vc (id, v) VALUES ($1, $2)', values: [id++, 'too long'] },
      { sql: 'INSERT INTO vc (id, v) VALUES ($1, $2)', values: [id++, 'fits '] },
      { sql: 'INSERT INTO vc (id, c) VALUES ($1, $2)', values: [id++, 'abcdefg'] },
      { sql: 'SELECT $1::varchar(3)', values: ['abcdef'] },
      "UPDATE vc SET v = 'way too long' WHERE id = 100",
      "UPDATE vc SET v = v || 'xxxxxx' WHERE id = 100",
      "UPDATE vc SET v = 'ok   ' WHERE id = 100",
      { copy: 'COPY vc (id, v) FROM STDIN', data: '900\tabc\n901\ttoo long\n' },
      { copy: 'COPY vc (id, v, c) FROM STDIN WITH (FORMAT csv)', data: '902,abc   ,"x     "\n' },
      "SELECT 'too long'::varchar(5), 'too long'::char(5), cast('too long value' as varchar(5)), 'abc  '::varchar(2), 'ab'::char(4) || '|'",
      "SELECT 'éééééé'::varchar(5), length('éééééé'::varchar(5))",
      'SELECT id, v, c, length(v), octet_length(v) FROM vc ORDER BY id',
    ]);
  });

  test('numeric(p,s): rounding and overflow with its DETAIL; numeric format limits', async () => {
    let id = 100;
    await sameOutcomes(both, [
      'SELECT 123.456::numeric(5,2)', 'SELECT 1234.5::numeric(5,2)', 'SELECT 999.995::numeric(5,2)', 'SELECT 999.994::numeric(5,2)',
      "SELECT 'nan'::numeric(5,2)", 'SELECT -999.995::numeric(5,2)', 'SELECT 0.005::numeric(3,2)', 'SELECT 12345::numeric(5,0)', 'SELECT 123456::numeric(5,0)',
      "SELECT '1e131071'::numeric IS NOT NULL", "SELECT '1e131072'::numeric", "SELECT '1e-16383'::numeric = 0", "SELECT '1e-16384'::numeric",
      "SELECT '0.1e-16383'::numeric", 'SELECT 1e131071::numeric * 10', "SELECT '1e2147483647'::numeric", 'SELECT 1e3', 'SELECT 1.50e1',
      ...['12.345', '1234.5', '999.995', '-999.99', "'99999'", "'abc'"].map((v) => `INSERT INTO vn (id, n) VALUES (${id++}, ${v})`),
      { sql: 'INSERT INTO vn (id, n) VALUES ($1, $2)', values: [id++, '1234.5'] },
      { sql: 'INSERT INTO vn (id, n) VALUES ($1, $2)', values: [id++, '12.345'] },
      'UPDATE vn SET n = 99999 WHERE id = 100',
      'UPDATE vn SET n = n * 100 WHERE id = 100',
      { copy: 'COPY vn (id, n) FROM STDIN', data: '900\t1.005\n901\t1000\n' },
      'SELECT id, n FROM vn ORDER BY id',
    ]);
  });

  test('float8 and real: text input overflow and underflow, arithmetic overflow and underflow', async () => {
    let id = 300;
    await sameOutcomes(both, [
      "SELECT '1e400'::float8", "SELECT '-1e400'::float8", "SELECT '1e-400'::float8", "SELECT '0e-400'::float8", "SELECT '1e-310'::float8",
      "SELECT '1e39'::float4", "SELECT '3.5e38'::float4", "SELECT '3.4e38'::float4", "SELECT '1e-46'::float4", "SELECT '1e-45'::float4",
      "SELECT '1e-40'::float4", "SELECT 'Infinity'::float8", "SELECT '-inf'::float8", "SELECT 'NaN'::float4",
      'SELECT 1e400::float8', 'SELECT 1e-400::float8', 'SELECT 1e39::float4', 'SELECT 1e-50::float4', 'SELECT 1.5::float8',
      'SELECT 1e308::float8 * 10', 'SELECT (-1e308)::float8 * 10', 'SELECT 1e-308::float8 * 1e-308', 'SELECT 1e-308::float8 / 1e308',
      'SELECT 0::float8 * 1e-308', 'SELECT 1e308::float8 + 1e308', "SELECT 'Infinity'::float8 * 2", 'SELECT 1e-200::float8 - 1e-200',
      `INSERT INTO vn (id, f) VALUES (${id++}, '1e400')`, `INSERT INTO vn (id, r) VALUES (${id++}, '1e39')`, `INSERT INTO vn (id, r) VALUES (${id++}, 1e39)`,
      `INSERT INTO vn (id, f) VALUES (${id++}, '1e-400')`, `INSERT INTO vn (id, f) VALUES (${id++}, 1e-310)`,
      { sql: 'INSERT INTO vn (id, f) VALUES ($1, $2)', values: [id++, '1e400'] },
      { copy: 'COPY vn (id, f) FROM STDIN', data: '901\t1e400\n' },
      'SELECT id, f, r FROM vn WHERE id >= 300 ORDER BY id',
    ]);
  });

  test('int2, int4, int8: overflow in casts, literals, arithmetic and assignment', async () => {
    let id = 500;
    await sameOutcomes(both, [
      'SELECT 32767::int2 + 1::int2', 'SELECT 2147483647 + 1', 'SELECT 9223372036854775807 + 1', 'SELECT 70000::int2', 'SELECT 3000000000::int4',
      "SELECT '3000000000'::int4", "SELECT '40000'::int2", "SELECT '9223372036854775808'::int8", 'SELECT 1e19::int8', 'SELECT (-2147483648) * -1',
      'SELECT abs(-2147483648)', 'SELECT -2147483648', 'SELECT 2147483647::int4 * 2', 'SELECT (-9223372036854775808)::int8 * -1', "SELECT 1e10::float8::int4",
      'SELECT 32767.5::int2', 'SELECT 32766.5::int2', 'SELECT gcd(-2147483648, 0)', 'SELECT gcd(-9223372036854775808, 0)', 'SELECT gcd(12, -18)',
      'SELECT (-32768)::int2 * -1::int2', 'SELECT abs(-9223372036854775808)', 'SELECT (-9223372036854775808) / -1', "SELECT 'NaN'::float8::int4",
      `INSERT INTO vn (id, i2) VALUES (${id++}, 40000)`, `INSERT INTO vn (id, i2) VALUES (${id++}, '40000')`, `INSERT INTO vn (id, i4) VALUES (${id++}, 3000000000)`,
      `INSERT INTO vn (id, i8) VALUES (${id++}, 9223372036854775808)`,
      { copy: 'COPY vn (id, i2) FROM STDIN', data: '901\t40000\n' },
      'SELECT id, i2, i4, i8 FROM vn WHERE id >= 500 ORDER BY id',
    ]);
  });

  test("invalid UTF-8: E'' escapes, convert_from, COPY data", async () => {
    await sameOutcomes(both, [
      "SELECT E'\\xff'", "SELECT E'\\xc3\\x28'", "SELECT E'\\xc3'", "SELECT E'\\xe2\\x82'", "SELECT E'\\xed\\xa0\\x80'", "SELECT E'\\xf8\\x88\\x80\\x80\\x80'",
      "SELECT E'\\xc3\\xa9'", "SELECT E'\\u00e9'", "SELECT E'\\x00'",
      "SELECT convert_from('\\xff'::bytea, 'UTF8')", "SELECT convert_from('\\xc3a9'::bytea, 'UTF8')", "SELECT convert_from('\\xc328'::bytea, 'utf-8')",
      "SELECT convert_from('\\xe9'::bytea, 'LATIN1')", "SELECT convert_from('abc'::bytea, 'nope')", "SELECT convert_to('é', 'UTF8')",
      "INSERT INTO vt (id, s) VALUES (1, E'ok \\xc3\\xa9')", "INSERT INTO vt (id, s) VALUES (2, E'bad \\xff')",
      { copy: 'COPY vt (id, s) FROM STDIN', data: Buffer.from([...Buffer.from('10\tbad '), 0xff, 0x0a]) },
      { copy: 'COPY vt (id, s) FROM STDIN', data: '11\tescaped \\xff\n' },
      { copy: 'COPY vt (id, s) FROM STDIN', data: '12\tescaped \\xc3\\xa9 and \\303\\251\n' },
      { copy: 'COPY vt (id, s) FROM STDIN WITH (FORMAT csv)', data: Buffer.from([...Buffer.from('13,"bad '), 0xc3, 0x28, ...Buffer.from('"\n')]) },
      { copy: 'COPY vt (id, s) FROM STDIN WITH (FORMAT csv)', data: '14,"fine é"\n' },
      'SELECT id, s FROM vt ORDER BY id',
    ]);
  });

  test('binary parameters: out-of-range dates and timestamps are refused as date_recv/timestamp_recv do', async () => {
    const int32 = (v: number) => { const b = Buffer.alloc(4); b.writeInt32BE(v); return b; };
    const int64 = (v: bigint) => { const b = Buffer.alloc(8); b.writeBigInt64BE(v); return b; };
    await sameOutcomes(both, [
      // Days since 2000-01-01: 0, the first and last valid dates, one past each end, and the infinities.
      ...[0, -2451545, 2147483493 - 2451545, -2451546, 2147483494 - 2451545, 0x7fffffff, -0x80000000].map((v) => ({ sql: 'SELECT $1::date', values: [int32(v)] })),
      // Microseconds since 2000-01-01: 0, PostgreSQL's minimum, one below it, and values Floe's 1970-based int64 cannot hold.
      ...[0n, -211813488000000000n, -211813488000000001n, 2n ** 63n - 1n, -(2n ** 63n)].flatMap((v) => [
        { sql: 'SELECT $1::timestamp', values: [int64(v)] }, { sql: 'SELECT $1::timestamptz', values: [int64(v)] },
      ]),
      { sql: 'INSERT INTO vd (id, d) VALUES (1000, $1)', values: [int32(2147483494 - 2451545)] },
      { sql: 'INSERT INTO vd (id, d) VALUES (1001, $1)', values: [int32(8826)] },
      { sql: 'SELECT $1::time', values: [int64(86_400_000_000n)] },
      'SELECT id, d FROM vd WHERE id >= 1000 ORDER BY id',
    ]);
  });

  test('binary parameters past Floe\'s timestamp range are refused, not wrapped', async () => {
    // PostgreSQL accepts 294276-12-31 (its range ends at 294277), which Floe's 1970-based int64 cannot hold:
    // Floe refuses it with the same SQLSTATE instead of storing a wrapped value.
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(9223371331200000000n - 1n);
    await assert.rejects(both.g.client.query('SELECT $1::timestamp', [b]), (e: { code?: string; message: string }) => e.code === '22008' && e.message === 'timestamp out of range');
  });

  test('invalid UTF-8 on the wire: query text and text parameters are 22021, and the session goes on', async () => {
    const targets = [
      { port: both.g.server.port, user: 'floe', database: 'floe' },
      { port: both.oracle.port, user: both.oracle.user!, database: both.oracle.database! },
    ];
    const results: string[][] = [];
    for (const t of targets) {
      const c = await RawClient.open(t.port);
      try {
        c.send(serialize.startup({ user: t.user, database: t.database }));
        await c.until('readyForQuery');
        const seen: string[] = [];
        const errorOf = async (from: number): Promise<string> => {
          const ms = await c.until('readyForQuery', from);
          const err = ms.find((m) => m.name === 'error') as { code?: string; message?: string } | undefined;
          return err === undefined ? `ok ${ms.filter((m) => m.name === 'dataRow').map((m) => JSON.stringify((m as unknown as { fields: unknown[] }).fields)).join(',')}` : `ERR ${err.code} ${err.message}`;
        };
        // A simple Query whose text holds a lone 0xff byte.
        let from = c.messages.length;
        c.send(rawMessage('Q', Buffer.concat([Buffer.from("SELECT 'a"), Buffer.from([0xff]), Buffer.from("b'"), Buffer.from([0])])));
        seen.push(await errorOf(from));
        // Parse with invalid bytes in the statement text.
        from = c.messages.length;
        c.send(rawMessage('P', Buffer.concat([Buffer.from([0]), Buffer.from("SELECT 'a"), Buffer.from([0xc3, 0x28]), Buffer.from("'"), Buffer.from([0, 0, 0])])), serialize.sync());
        seen.push(await errorOf(from));
        // A text-format parameter that is not UTF-8.
        from = c.messages.length;
        c.send(serialize.parse({ text: 'SELECT $1::text', types: [25] }), textBind([Buffer.from([0x61, 0xe2, 0x82])]), serialize.execute({}), serialize.sync());
        seen.push(await errorOf(from));
        // The session is still usable.
        from = c.messages.length;
        c.send(serialize.query('SELECT 1'));
        seen.push(await errorOf(from));
        results.push(seen);
      } finally {
        c.close();
      }
    }
    assert.deepEqual(results[0], [
      'ERR 22021 invalid byte sequence for encoding "UTF8": 0xff',
      'ERR 22021 invalid byte sequence for encoding "UTF8": 0xc3 0x28',
      'ERR 22021 invalid byte sequence for encoding "UTF8": 0xe2 0x82',
      'ok ["1"]',
    ]);
    assert.deepEqual(results[0], results[1]);
  });
});

function rawMessage(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** Bind of the unnamed statement with every parameter in text format, the bytes sent as they are. */
function textBind(params: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from([0, 0])]; // portal "", statement ""
  const counts = Buffer.alloc(4);
  counts.writeInt16BE(1, 0); // one format code…
  counts.writeInt16BE(0, 2); // …text, for all
  parts.push(counts);
  const n = Buffer.alloc(2);
  n.writeInt16BE(params.length);
  parts.push(n);
  for (const p of params) {
    const len = Buffer.alloc(4);
    len.writeInt32BE(p.length);
    parts.push(len, p);
  }
  parts.push(Buffer.from([0, 0])); // no result format codes
  return rawMessage('B', Buffer.concat(parts));
}
