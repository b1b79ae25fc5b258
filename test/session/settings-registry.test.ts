import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openWarehouse } from '../../src/lake/index.js';
import type { Warehouse } from '../../src/lake/index.js';
import { createFloeSession } from '../../src/session/index.js';
import { loadSqlParser } from '../../src/sql/index.js';
import { createSystemCatalog, registerCatalogFunctions } from '../../src/sql/system-catalog/index.js';
import type { SessionHandler } from '../../src/wire/session-handler.js';
import { startPostgres } from '../harness/postgres-server.js';
import type { PostgresServer } from '../harness/postgres-server.js';

/**
 * The settings registry against PostgreSQL 15: every setting SHOW ALL and pg_settings
 * list has PostgreSQL's name, type, unit and context; SET refuses what PostgreSQL
 * refuses, with its SQLSTATE; and a value SET keeps reads back as PostgreSQL prints it.
 */

let warehouse: Warehouse;
let oracle: PostgresServer;
let client: pg.Client;

before(async () => {
  await loadSqlParser();
  registerCatalogFunctions();
  warehouse = await openWarehouse({ path: mkdtempSync(join(tmpdir(), 'floe-settings-')) });
  oracle = await startPostgres();
  client = new pg.Client({ connectionString: oracle.url });
  await client.connect();
});

after(async () => {
  await client?.end();
  await oracle?.stop();
});

async function floeSession(): Promise<SessionHandler> {
  const s = createFloeSession({
    warehouse, catalog: createSystemCatalog(),
    startup: { user: 'floe', database: 'floe', parameters: {}, remoteAddress: '127.0.0.1', processId: 42 },
  });
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  return s;
}

type Outcome = { ok: true; rows: unknown[][] } | { ok: false; code: string };

async function onFloe(s: SessionHandler, sql: string): Promise<Outcome> {
  try {
    const rows: unknown[][] = [];
    for await (const r of s.simpleQuery(sql, new AbortController().signal)) {
      if (r.kind === 'rows') for await (const b of r.batches) for (let i = 0; i < b.numRows; i++) rows.push(b.columns.map((c) => c.get(i)));
    }
    return { ok: true, rows };
  } catch (e) {
    return { ok: false, code: (e as { sqlstate?: string }).sqlstate ?? String(e) };
  }
}

async function onPostgres(sql: string): Promise<Outcome> {
  try {
    const r = await client.query({ text: sql, rowMode: 'array' });
    return { ok: true, rows: (Array.isArray(r) ? r.at(-1) : r).rows as unknown[][] };
  } catch (e) {
    return { ok: false, code: (e as { code?: string }).code ?? String(e) };
  }
}

const rowsOf = (o: Outcome): unknown[][] => {
  if (!o.ok) throw new Error(`failed with ${o.code}`);
  return o.rows;
};

test("SHOW ALL lists only settings PostgreSQL 15 has, under PostgreSQL's spelling", async () => {
  const s = await floeSession();
  const floe = rowsOf(await onFloe(s, 'SHOW ALL')).map((r) => r[0] as string);
  const postgres = new Set(rowsOf(await onPostgres('SHOW ALL')).map((r) => r[0] as string));
  assert.ok(floe.length > 30, `SHOW ALL listed ${floe.length} settings`);
  assert.deepEqual(floe.filter((n) => !postgres.has(n)), []);
  // Neither lists the settings PostgreSQL keeps out of SHOW ALL.
  assert.ok(!floe.includes('is_superuser') && !postgres.has('is_superuser'));
  await s.close();
});

test('pg_settings: name, vartype, unit, context and enum values as PostgreSQL 15 has them', async () => {
  const s = await floeSession();
  const sql = 'SELECT name, vartype, unit, context, enumvals FROM pg_settings ORDER BY name';
  const floe = rowsOf(await onFloe(s, sql));
  const postgres = new Map(rowsOf(await onPostgres(sql)).map((r) => [r[0] as string, r]));
  assert.ok(floe.length > 30, `pg_settings listed ${floe.length} settings`);
  for (const row of floe) {
    const name = row[0] as string;
    const expected = postgres.get(name);
    assert.ok(expected !== undefined, `${name} is not in PostgreSQL's pg_settings`);
    assert.deepEqual(row.slice(1), expected.slice(1), name);
  }
  await s.close();
});

/** Statements each run alone on a fresh session; each either succeeds or fails with an SQLSTATE, the same on both. */
const CHECKED = [
  'SET extra_float_digits = 10', "SET extra_float_digits = 'abc'", 'SET extra_float_digits = 3',
  "SET statement_timeout = 'abc'", "SET statement_timeout = '5 parsecs'", 'SET statement_timeout = -1', "SET statement_timeout = '1.5s'",
  "SET work_mem = '10kB'", "SET work_mem = 'lots'", 'SET work_mem = 65536', "SET work_mem = '1GB'",
  "SET bytea_output = 'base64'", "SET bytea_output = 'ESCAPE'",
  "SET client_min_messages = 'loud'", "SET client_min_messages = 'WARNING'",
  "SET intervalstyle = 'roman'", "SET intervalstyle = 'iso_8601'",
  "SET jit = 'maybe'", 'SET jit = true', "SET row_security = 'no'",
  "SET default_transaction_isolation = 'sometimes'", "SET default_transaction_isolation = 'serializable'",
  "SET server_version = '16'", 'SET block_size = 4096', 'SET port = 1', 'SET max_connections = 5', 'RESET server_encoding',
  'SHOW no_such_setting', 'SET search_path = a, b', 'SET TimeZone = default',
];

test('SET refuses a bad value or a server-set parameter with PostgreSQL 15\'s SQLSTATE (22023, 55P02, 42704)', async () => {
  for (const sql of CHECKED) {
    const s = await floeSession();
    const floe = await onFloe(s, sql);
    await s.close();
    await client.query('RESET ALL');
    const postgres = await onPostgres(sql);
    assert.deepEqual(floe.ok ? 'ok' : floe.code, postgres.ok ? 'ok' : postgres.code, sql);
  }
});

test('a value SET keeps reads back as PostgreSQL 15 prints it, in SHOW and in pg_settings', async () => {
  const cases: [string, string][] = [
    ['SET extra_float_digits = 3', 'extra_float_digits'], ["SET statement_timeout = '1.5s'", 'statement_timeout'],
    ['SET statement_timeout = 1500', 'statement_timeout'], ["SET lock_timeout = '2h'", 'lock_timeout'],
    ['SET work_mem = 65536', 'work_mem'], ["SET work_mem = '1GB'", 'work_mem'], ["SET bytea_output = 'ESCAPE'", 'bytea_output'],
    ["SET client_min_messages = 'WARNING'", 'client_min_messages'], ['SET jit = true', 'jit'], ["SET row_security = 'no'", 'row_security'],
    ["SET default_transaction_isolation = 'SERIALIZABLE'", 'default_transaction_isolation'],
  ];
  for (const [set, name] of cases) {
    const s = await floeSession();
    await client.query('RESET ALL');
    const read = [`SHOW ${name}`, `SELECT setting, unit FROM pg_settings WHERE name = '${name}'`];
    const floe: unknown[] = [];
    const postgres: unknown[] = [];
    rowsOf(await onFloe(s, set));
    rowsOf(await onPostgres(set));
    for (const sql of read) {
      floe.push(rowsOf(await onFloe(s, sql)));
      postgres.push(rowsOf(await onPostgres(sql)));
    }
    await s.close();
    assert.deepEqual(floe, postgres, set);
  }
  await client.query('RESET ALL');
});
