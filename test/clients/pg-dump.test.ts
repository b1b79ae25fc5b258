import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { startPostgres, withClient } from '../harness/postgres-server.js';
import type { PostgresServer } from '../harness/postgres-server.js';
import { startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';
import { prepareOracle } from '../harness/prepare-oracle.js';
import { runCommand } from '../harness/run-command.js';
import { runPsql } from '../harness/run-psql.js';
import type { ConnectTarget } from '../harness/run-psql.js';

const PG_DUMP = '/usr/lib/postgresql/15/bin/pg_dump';

/**
 * One schema with what pg_dump must carry: keyed and append tables, UNIQUE, CHECK,
 * FOREIGN KEY, serial and identity columns with their sequence values, a free
 * sequence, defaults, NOT NULL, a plain index, and rows of many types.
 */
const SCHEMA = [
  `CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, email varchar(100) UNIQUE, tier text DEFAULT 'basic',
     credit numeric(10,2) CHECK (credit >= 0), joined date, active boolean DEFAULT true)`,
  `CREATE TABLE orders (id bigserial PRIMARY KEY, customer_id int REFERENCES customers (id), placed timestamptz NOT NULL,
     amount numeric(12,2), note text)`,
  'CREATE TABLE events (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, kind text NOT NULL, payload jsonb, at timestamp)',
  'CREATE TABLE readings (sensor text, ts timestamp, value double precision, ok boolean)',
  'CREATE SEQUENCE counter START 100 INCREMENT 5',
  'CREATE INDEX orders_placed_idx ON orders (placed)',
  `INSERT INTO customers VALUES (1, 'Ada', 'ada@example.com', 'gold', 120.50, '2024-01-02', true),
     (2, 'Bob ''the'' Builder', NULL, DEFAULT, 0, NULL, false), (3, E'Tab\\there', 'c@example.com', 'basic', NULL, '1999-12-31', DEFAULT)`,
  `INSERT INTO orders (customer_id, placed, amount, note) VALUES (1, '2024-03-01 10:00:00+00', 10.25, 'first'),
     (1, '2024-03-02 11:30:00+00', 99.99, NULL), (3, '2024-03-03 00:00:00+00', 0.01, 'a,b;c')`,
  `INSERT INTO events (kind, payload, at) VALUES ('login', '{"ip": "10.0.0.1"}', '2024-05-01 08:00:00'), ('logout', NULL, NULL),
     ('error', '[1, 2, {"x": null}]', '2024-05-02 09:15:30.5')`,
  `INSERT INTO readings VALUES ('s1', '2024-01-01 00:00:00', 1.5, true), ('s1', '2024-01-01 00:01:00', -0.25, NULL),
     (NULL, NULL, NULL, NULL), ('s2', '2024-01-01 00:00:00', 1e10, false)`,
  "SELECT nextval('counter')",
  "SELECT nextval('counter')",
  // An enum whose sort order is not its creation order, a column of it and an array of it.
  "CREATE TYPE ticket_state AS ENUM ('open', 'closed')",
  "ALTER TYPE ticket_state ADD VALUE 'triage' BEFORE 'open'",
  'CREATE TABLE tickets (id int PRIMARY KEY, state ticket_state NOT NULL, history ticket_state[])',
  "INSERT INTO tickets VALUES (1, 'open', '{triage,open}'), (2, 'triage', NULL), (3, 'closed', '{}')",
];

const TABLES = ['customers', 'orders', 'events', 'readings', 'tickets'];

/** Row count and an order-independent hash of every row's text (the same query on both servers). */
async function checksums(url: string): Promise<Record<string, { rows: number; hash: string }>> {
  return withClient(url, async (c) => {
    const out: Record<string, { rows: number; hash: string }> = {};
    for (const t of TABLES) {
      const count = await c.query({ text: `SELECT count(*) AS n FROM ${t}`, rowMode: 'array' });
      const rows = await c.query({ text: `SELECT * FROM ${t}`, rowMode: 'array', types: { getTypeParser: () => (v: string) => v } });
      const lines = rows.rows.map((r: unknown[]) => JSON.stringify(r)).sort();
      out[t] = { rows: Number(count.rows[0][0]), hash: createHash('sha256').update(lines.join('\n')).digest('hex') };
    }
    return out;
  }).then(async (tables) => ({
    ...tables,
    counter: await withClient(url, async (c) => {
      const r = await c.query({ text: 'SELECT last_value, is_called FROM counter', rowMode: 'array' });
      return { rows: 1, hash: JSON.stringify(r.rows[0]) };
    }),
  }));
}

/** What the restored schema declares: columns, constraints, sequences, indexes, as information_schema and pg_indexes show them. */
async function declared(url: string): Promise<string[]> {
  return withClient(url, async (c) => {
    const q = async (text: string) => (await c.query({ text, rowMode: 'array' })).rows.map((r: unknown[]) => r.join(' | '));
    return [
      ...await q(`SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity, identity_generation
                  FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`),
      ...await q(`SELECT table_name, constraint_name, constraint_type FROM information_schema.table_constraints
                  WHERE table_schema = 'public' AND constraint_type <> 'CHECK' OR constraint_name LIKE '%credit%' ORDER BY 1, 2`),
      ...await q(`SELECT sequence_name, data_type, start_value, increment FROM information_schema.sequences ORDER BY 1`),
      ...await q(`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2`),
      ...await q(`SELECT t.typname, e.enumlabel FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid ORDER BY 1, e.enumsortorder`),
      ...await q(`SELECT table_name, column_name, udt_name FROM information_schema.columns WHERE data_type IN ('USER-DEFINED', 'ARRAY') ORDER BY 1, 2`),
    ];
  });
}

async function dump(target: ConnectTarget, args: readonly string[]): Promise<string> {
  const r = await runCommand(PG_DUMP, ['-h', target.host ?? '127.0.0.1', '-p', String(target.port), '-U', target.user ?? 'floe', ...args, target.database ?? 'floe'],
    { env: { PGCONNECT_TIMEOUT: '10' } });
  assert.equal(r.code, 0, `pg_dump failed:\n${r.stderr}`);
  return r.stdout;
}

async function restore(target: ConnectTarget, script: string): Promise<void> {
  const r = await runPsql(target, ['-v', 'ON_ERROR_STOP=1', '-q', '-f', '-'], { input: script, mergeStderr: true });
  assert.equal(r.code, 0, `restore failed:\n${r.stdout}`);
}

describe('pg_dump 15 of a Floe database restores into PostgreSQL 15', () => {
  let origin: PostgresServer;
  let restored: PostgresServer;
  let floe: FloeServer;
  let originTarget: ConnectTarget;
  let restoredTarget: ConnectTarget;
  let floeTarget: ConnectTarget;

  before(async () => {
    origin = await startPostgres();
    restored = await startPostgres();
    originTarget = await prepareOracle(origin);
    restoredTarget = await prepareOracle(restored);
    floe = await startFloe();
    floeTarget = { port: floe.port };
    for (const sql of SCHEMA) {
      await withClient(origin.url, (c) => c.query(sql));
      await withClient(floe.url, (c) => c.query(sql));
    }
  });
  after(async () => {
    await floe?.stop();
    await origin?.stop();
    await restored?.stop();
  });

  test('the test is real: PostgreSQL dumps the schema and a dump restores', async () => {
    const schemaOnly = await dump(originTarget, ['--schema-only']);
    assert.match(schemaOnly, /CREATE TABLE public\.customers/);
    assert.match(schemaOnly, /ADD GENERATED ALWAYS AS IDENTITY/);
    assert.match(await dump(originTarget, []), /COPY public\.orders/);
  });

  test('pg_dump --schema-only runs on Floe and the schema restores as PostgreSQL declares it', async () => {
    const schemaOnly = await dump(floeTarget, ['--schema-only']);
    assert.match(schemaOnly, /CREATE TABLE public\.customers/);
    assert.match(schemaOnly, /PRIMARY KEY \(id\)/);
    assert.match(schemaOnly, /CREATE INDEX orders_placed_idx ON public\.orders USING btree \(placed\)/);
    await restore(restoredTarget, schemaOnly);
    assert.deepEqual(await declared(restored.url), await declared(origin.url));
    await withClient(restored.url, (c) => c.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public'));
  });

  test('a full pg_dump of Floe restores into PostgreSQL 15 with the same rows, sequences and declarations', async (t) => {
    // pg_dump's data pass asks for materialized-view dependencies WITH RECURSIVE, which another part of issue 25 builds.
    const recursive = await withClient(floe.url, (c) => c.query('WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r WHERE n < 2) SELECT count(*) FROM r').then(() => true, () => false));
    if (!recursive) t.todo('needs WITH RECURSIVE on Floe');
    const full = await dump(floeTarget, []);
    await restore(restoredTarget, full);
    const want = await checksums(origin.url);
    assert.deepEqual(await checksums(floe.url), want, 'Floe holds what PostgreSQL holds');
    assert.deepEqual(await checksums(restored.url), want, 'the restored copy holds the same');
    // Floe does not check foreign keys, so its dump declares them NOT VALID; otherwise the same schema.
    const expected = await declared(origin.url);
    assert.deepEqual(await declared(restored.url), expected);
    // The sequences go on where they were: the next serial and identity values agree.
    const next = async (url: string) => withClient(url, async (c) => [
      (await c.query(`INSERT INTO orders (customer_id, placed) VALUES (2, now()) RETURNING id`)).rows[0].id,
      (await c.query(`INSERT INTO events (kind) VALUES ('x') RETURNING id`)).rows[0].id,
      (await c.query(`SELECT nextval('counter') AS v`)).rows[0].v,
    ]);
    assert.deepEqual(await next(restored.url), await next(origin.url));
  });
});
