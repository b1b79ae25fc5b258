import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { oracleAndFloeForSuite } from '../harness/oracle-and-floe.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFloe } from '../harness/floe-server.js';
import { runPsql } from '../harness/run-psql.js';
import type { ConnectTarget } from '../harness/run-psql.js';

/**
 * Enum and shell types (CREATE / ALTER / DROP TYPE) through node-postgres and psql, each
 * statement run on PostgreSQL 15 first and Floe after, in the same order: command tags,
 * errors (SQLSTATE, message, DETAIL, HINT), NOTICEs, rows and the catalogs must agree.
 * Oids differ between the two servers, so types are compared by name.
 */
interface Outcome {
  readonly result?: string | readonly unknown[][];
  readonly types?: readonly string[];
  readonly error?: string;
  readonly notices: readonly string[];
}

async function runAll(url: string, statements: readonly string[]): Promise<Outcome[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  let notices: string[] = [];
  c.on('notice', (n) => notices.push(`${n.code}: ${n.message}${n.detail ? ` / ${n.detail}` : ''}`));
  const out: Outcome[] = [];
  try {
    for (const sql of statements) {
      notices = [];
      try {
        const r = await c.query({ text: sql, rowMode: 'array' });
        if (r.fields.length === 0) {
          out.push({ result: `${r.command}`, notices });
        } else {
          // Each column's type by name: an enum's own oid is different on each server.
          const names = await c.query({ text: 'SELECT oid, typname FROM pg_type WHERE oid = ANY($1::oid[])', values: [r.fields.map((f) => f.dataTypeID)] });
          const byOid = new Map(names.rows.map((x: { oid: number; typname: string }) => [Number(x.oid), x.typname]));
          out.push({ result: r.rows, types: r.fields.map((f) => `${f.name}:${byOid.get(f.dataTypeID) ?? f.dataTypeID}`), notices });
        }
      } catch (e) {
        const err = e as { code?: string; message?: string; detail?: string; hint?: string; position?: string };
        // pg_enum's unique index names the new type's oid in DETAIL.
        const detail = (err.detail ?? '').replace(/\(enumtypid, enumlabel\)=\(\d+,/, '(enumtypid, enumlabel)=(oid,');
        out.push({ error: `${err.code}: ${err.message} / ${detail} / ${err.hint ?? ''} / ${err.position ?? ''}`, notices });
      }
    }
  } finally {
    await c.end();
  }
  return out;
}

async function psql(target: ConnectTarget, command: string): Promise<string> {
  return (await runPsql(target, ['-c', command], { mergeStderr: true })).stdout;
}

const DDL = [
  "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
  "CREATE TYPE mood AS ENUM ('x')",
  "CREATE TYPE twice AS ENUM ('a', 'a')",
  "CREATE TYPE s2.mood AS ENUM ('a')",
  'CREATE SCHEMA s2',
  "CREATE TYPE s2.color AS ENUM ('red', 'green')",
  'CREATE TYPE shell_only',
  'CREATE TYPE shell_only',
  'CREATE TABLE uses_shell (s shell_only)',
  'CREATE TABLE t (id int PRIMARY KEY, m mood, c s2.color)',
  "ALTER TYPE mood ADD VALUE 'ok'",
  "ALTER TYPE mood ADD VALUE IF NOT EXISTS 'ok'",
  "ALTER TYPE mood ADD VALUE 'meh' BEFORE 'nope'",
  "ALTER TYPE mood ADD VALUE 'meh' AFTER 'sad'",
  "ALTER TYPE mood ADD VALUE 'numb' BEFORE 'sad'",
  "ALTER TYPE mood ADD VALUE 'ecstatic'",
  `ALTER TYPE mood ADD VALUE '${'x'.repeat(64)}'`,
  "ALTER TYPE shell_only ADD VALUE 'a'",
  "ALTER TYPE nope ADD VALUE 'a'",
  "ALTER TYPE s2.color RENAME VALUE 'nope' TO 'blue'",
  "ALTER TYPE s2.color RENAME VALUE 'red' TO 'green'",
  "CREATE TYPE spare AS ENUM ('a', 'b')",
  "ALTER TYPE spare RENAME VALUE 'a' TO 'z'",
  'ALTER TYPE spare RENAME TO mood',
  'ALTER TYPE spare RENAME TO spare2',
  'ALTER TYPE spare2 SET SCHEMA nope',
  'ALTER TYPE spare2 SET SCHEMA s2',
  "CREATE TYPE spare2 AS ENUM ('q')",
  'ALTER TYPE spare2 SET SCHEMA s2',
  'DROP TYPE mood',
  'DROP TYPE nope, spare2',
  'DROP TYPE IF EXISTS nope, spare2, nope2',
  'DROP TYPE s2.spare2 RESTRICT',
  'DROP TYPE shell_only CASCADE',
  "CREATE TYPE doomed AS ENUM ('x')",
  'CREATE TABLE victim (id int, d doomed, keep text)',
  'DROP TYPE doomed',
  'DROP TYPE doomed CASCADE',
  "SELECT column_name FROM information_schema.columns WHERE table_name = 'victim' ORDER BY ordinal_position",
];

const VALUES = [
  "INSERT INTO t VALUES (1, 'happy', 'red'), (2, 'sad', 'green'), (3, 'ok', NULL), (4, NULL, 'red'), (5, 'meh', 'green'), (6, 'numb', 'red')",
  "INSERT INTO t VALUES (7, 'bogus', 'red')",
  "INSERT INTO t VALUES (7, 'ok', 'blue')",
  'SELECT id, m, c FROM t ORDER BY m, id',
  'SELECT id, m FROM t ORDER BY m DESC NULLS LAST, id',
  "SELECT id FROM t WHERE m > 'sad' ORDER BY id",
  "SELECT id FROM t WHERE m <= 'meh' ORDER BY id",
  "SELECT id FROM t WHERE m = 'ok'",
  "SELECT id FROM t WHERE m = 'bogus'",
  "SELECT id FROM t WHERE m IN ('happy', 'numb') ORDER BY id",
  "SELECT id FROM t WHERE m BETWEEN 'numb' AND 'meh' ORDER BY id",
  'SELECT min(m), max(m), min(c), max(c) FROM t',
  'SELECT m, count(*) FROM t GROUP BY m ORDER BY m',
  "SELECT 'happy'::mood, 'x'::mood",
  "SELECT 'happy'::mood > 'ok'::mood, 'red'::s2.color < 'green'::s2.color, m::text FROM t WHERE id = 1",
  "SELECT 'blue'::s2.color",
  "UPDATE t SET m = 'ecstatic' WHERE id = 3",
  "UPDATE t SET m = 'glum' WHERE id = 3",
  'SELECT id, m FROM t WHERE id = 3',
  "SELECT ARRAY['ok', 'sad']::mood[] AS a, '{happy,numb}'::mood[] AS b",
  "SELECT '{happy,nope}'::mood[]",
  'CREATE TABLE hist (id int, ms mood[])',
  "INSERT INTO hist VALUES (1, '{sad,happy}'), (2, NULL), (3, '{}')",
  'SELECT id, ms FROM hist ORDER BY id',
  "ALTER TABLE hist ADD COLUMN extra mood DEFAULT 'ok'",
  "INSERT INTO hist (id) VALUES (4)",
  "INSERT INTO hist VALUES (5, NULL, 'numb')",
  'SELECT id, extra FROM hist ORDER BY extra, id',
];

const CATALOG = [
  `SELECT t.typname, t.typtype, t.typcategory, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typisdefined,
     n.nspname, a.typname AS array_name, e.typname AS elem_name
   FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
   LEFT JOIN pg_type a ON a.oid = t.typarray LEFT JOIN pg_type e ON e.oid = t.typelem
   WHERE t.typname IN ('mood', '_mood', 'color', '_color', 'spare') ORDER BY 1`,
  `SELECT t.typname, e.enumsortorder, e.enumlabel FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid ORDER BY 1, 2`,
  `SELECT attname, format_type(atttypid, atttypmod), attlen, attcollation FROM pg_attribute WHERE attrelid = 't'::regclass AND attnum > 0 ORDER BY attnum`,
  `SELECT column_name, data_type, udt_schema, udt_name, character_octet_length FROM information_schema.columns WHERE table_name = 't' ORDER BY ordinal_position`,
  // Kysely's introspector (getTables): each column's type and the type's schema.
  `SELECT a.attname AS column, c.relname AS table, ns.nspname AS schema, typ.typname AS type, dtns.nspname AS type_schema
   FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON a.attrelid = c.oid JOIN pg_catalog.pg_namespace ns ON c.relnamespace = ns.oid
   JOIN pg_catalog.pg_type typ ON a.atttypid = typ.oid JOIN pg_catalog.pg_namespace dtns ON typ.typnamespace = dtns.oid
   WHERE c.relkind IN ('r', 'v', 'p', 'f') AND ns.nspname !~ '^pg_' AND ns.nspname <> 'information_schema' AND a.attnum >= 0 AND a.attisdropped <> true
   ORDER BY ns.nspname, c.relname, a.attnum`,
];

describe('CREATE TYPE … AS ENUM, shell types, ALTER TYPE and DROP TYPE as PostgreSQL 15 does them', () => {
  let oracleTarget: ConnectTarget & { url: string };
  let floeTarget: ConnectTarget;
  let floe: { url: string; stop(): Promise<void>; dataDir: string };
  oracleAndFloeForSuite([], (s) => ({ oracleTarget, floeTarget, floe } = s));

  const same = async (statements: readonly string[]) => {
    const want = await runAll(oracleTarget.url, statements);
    const got = await runAll(floe.url, statements);
    statements.forEach((sql, i) => assert.deepEqual(got[i], want[i], sql));
    return want;
  };

  test('DDL: tags, errors, NOTICEs (IF EXISTS, IF NOT EXISTS, CASCADE) agree statement by statement', async () => {
    const want = await same(DDL);
    assert.ok(want.some((o) => o.error?.startsWith('2BP01')), 'the test is real: PostgreSQL refused a DROP with dependents');
    assert.ok(want.some((o) => o.notices.some((n) => n.includes('drop cascades to column d of table victim'))));
  });

  test('values: enum_in errors, sort order, comparisons, min/max, casts and result types', async () => {
    const want = await same(VALUES);
    const ordered = want[3]!.result as unknown[][];
    assert.deepEqual(ordered.map((r) => r[1]), ['numb', 'sad', 'meh', 'ok', 'happy', null], 'the test is real: sort order, not text order');
  });

  test('parameters take the enum type: a bound label is checked and compared in sort order', async () => {
    const run = async (url: string) => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        const ordered = await c.query({ text: 'SELECT id FROM t WHERE m >= $1 ORDER BY id', values: ['ok'], rowMode: 'array' });
        const bad = await c.query({ text: 'SELECT id FROM t WHERE m = $1', values: ['nope'] }).then(() => 'no error', (e: { code: string; message: string }) => `${e.code}: ${e.message}`);
        // An array of labels as a parameter: node-postgres sends its text form.
        const arrays = await c.query({ text: 'SELECT id FROM hist WHERE ms = $1 ORDER BY id', values: [['sad', 'happy']], rowMode: 'array' });
        return { rows: ordered.rows, bad, arrays: arrays.rows };
      } finally {
        await c.end();
      }
    };
    const want = await run(oracleTarget.url);
    assert.equal(want.bad, '22P02: invalid input value for enum mood: "nope"');
    assert.deepEqual(want.arrays, [[1]]);
    assert.deepEqual(await run(floe.url), want);
  });

  test('catalogs: pg_type, pg_enum, pg_attribute, information_schema.columns, the Kysely introspector', async () => {
    await same(CATALOG);
  });

  test('psql \\dT, \\dT+ and \\d t print what PostgreSQL prints', async () => {
    for (const cmd of ['\\dT', '\\dT+', '\\d t', '\\dT s2.*']) {
      const want = await psql(oracleTarget, cmd);
      assert.match(want, /mood|color/, cmd);
      assert.equal(await psql(floeTarget, cmd), want, cmd);
    }
  });
});

describe('enum types on Floe alone: persistence and the RENAME VALUE rule', () => {
  test('types, labels added BEFORE/AFTER and enum rows survive a restart of the gateway', async () => {
    // A directory of the test's own: a gateway deletes the one it made when it stops.
    const dataDir = mkdtempSync(join(tmpdir(), 'floe-enum-'));
    const first = await startFloe({ dataDir });
    try {
      await runAll(first.url, [
        "CREATE TYPE lvl AS ENUM ('low', 'high')", "ALTER TYPE lvl ADD VALUE 'mid' AFTER 'low'",
        'CREATE TABLE readings (id int PRIMARY KEY, l lvl)', "INSERT INTO readings VALUES (1, 'high'), (2, 'low'), (3, 'mid')",
      ]);
    } finally {
      await first.stop();
    }
    const second = await startFloe({ dataDir });
    try {
      const [labels, rows, bad] = await runAll(second.url, [
        "SELECT enumlabel FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid WHERE t.typname = 'lvl' ORDER BY enumsortorder",
        'SELECT id FROM readings ORDER BY l',
        "INSERT INTO readings VALUES (4, 'max')",
      ]);
      assert.deepEqual(labels!.result, [['low'], ['mid'], ['high']]);
      assert.deepEqual(rows!.result, [[2], [3], [1]]);
      assert.match(bad!.error ?? '', /^22P02: invalid input value for enum lvl: "max"/);
    } finally {
      await second.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('RENAME VALUE of a label a column may hold is refused (0A000); an unused type renames', async () => {
    const f = await startFloe();
    try {
      const out = await runAll(f.url, [
        "CREATE TYPE used AS ENUM ('a', 'b')", 'CREATE TABLE holder (u used)', "ALTER TYPE used RENAME VALUE 'a' TO 'z'",
        "CREATE TYPE free AS ENUM ('a', 'b')", "ALTER TYPE free RENAME VALUE 'a' TO 'z'",
        "SELECT enumlabel FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid WHERE t.typname = 'free' ORDER BY enumsortorder",
      ]);
      assert.match(out[2]!.error ?? '', /^0A000: ALTER TYPE … RENAME VALUE is not supported/);
      assert.equal(out[4]!.result, 'ALTER');
      assert.deepEqual(out[5]!.result, [['z'], ['b']]);
    } finally {
      await f.stop();
    }
  });
});
