import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { SQLITE_SCHEMA } from '../../src/lake/catalog/sqlite/sqlite-schema.js';
import { POSTGRES_MIGRATIONS } from '../../src/lake/catalog/postgres/postgres-migrations.js';
import { PostgresCatalog } from '../../src/lake/catalog/postgres/postgres-catalog.js';
import { startPostgres, withClient, type PostgresServer } from '../harness/postgres-server.js';

/*
 * The catalog's tables exist twice: SQLite's schema (sqlite/sqlite-schema.ts) and
 * PostgreSQL's migrations (postgres/postgres-migrations.ts). The same statements run on
 * both, so both must have the same tables with the same columns in the same order
 * (`SELECT *` rows and `INSERT … VALUES` depend on it), and a column added to one alone
 * fails here. PostgreSQL's catalog is created by its migrations, each once, and a catalog
 * migrated by a newer Floe is refused.
 */

let server: PostgresServer;
before(async () => { server = await startPostgres(); });
after(async () => { await server?.stop(); });

function sqliteColumns(): Map<string, string[]> {
  const db = new Database(':memory:');
  try {
    db.exec(SQLITE_SCHEMA);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    return new Map(tables.map((t) => [t, (db.prepare(`PRAGMA table_info(${t})`).all() as { name: string }[]).map((c) => c.name)]));
  } finally {
    db.close();
  }
}

async function postgresColumns(schema: string): Promise<Map<string, string[]>> {
  const rows = await withClient(server.url, async (c) => (await c.query(
    'SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, ordinal_position', [schema],
  )).rows as { table_name: string; column_name: string }[]);
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.table_name, [...(out.get(r.table_name) ?? []), r.column_name]);
  return out;
}

test('PostgreSQL\'s migrated catalog has SQLite\'s tables and columns, in order, plus its bookkeeping', async () => {
  new PostgresCatalog({ url: server.url, schema: 'same_tables' }).close();
  const pgTables = await postgresColumns('same_tables');
  assert.deepEqual(pgTables.get('schema_migrations'), ['version', 'applied_at']);
  assert.deepEqual(pgTables.get('catalog_version'), ['version']);
  pgTables.delete('schema_migrations');
  pgTables.delete('catalog_version');
  const sqlite = sqliteColumns();
  assert.deepEqual([...pgTables.keys()].sort(), [...sqlite.keys()].sort());
  for (const [table, columns] of sqlite) assert.deepEqual(pgTables.get(table), columns, `columns of ${table}`);
});

test('migrations run once each, and a catalog migrated by a newer Floe is refused with both versions', async () => {
  const first = new PostgresCatalog({ url: server.url, schema: 'versions' });
  first.createNamespace('kept', false);
  first.close();
  // Opening again applies nothing and keeps what was there.
  const again = new PostgresCatalog({ url: server.url, schema: 'versions' });
  assert.ok(again.listNamespaces().includes('kept'));
  again.close();
  const recorded = await withClient(server.url, async (c) => (await c.query('SELECT version FROM versions.schema_migrations ORDER BY version')).rows.map((r) => Number(r.version)));
  assert.deepEqual(recorded, POSTGRES_MIGRATIONS.map((m) => m.version));

  const newer = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]!.version + 1;
  await withClient(server.url, (c) => c.query(`INSERT INTO versions.schema_migrations (version) VALUES (${newer})`));
  assert.throws(() => new PostgresCatalog({ url: server.url, schema: 'versions' }), (e: unknown) => {
    const err = e as { sqlstate?: string; message?: string };
    assert.equal(err.sqlstate, 'XX000');
    assert.equal(err.message, `the catalog in schema "versions" is at version ${newer}, newer than this Floe knows (${newer - 1})`);
    return true;
  });
});

test('an unreachable catalog fails the open with 08006, not a hang', () => {
  const url = new URL(server.url);
  url.port = '1';
  assert.throws(() => new PostgresCatalog({ url: url.toString() }), { sqlstate: '08006' });
});


test('a lost catalog connection is opened again: reads and writes after the loss go on', async () => {
  const c = new PostgresCatalog({ url: server.url, schema: 'reconnects' });
  const other = new PostgresCatalog({ url: server.url, schema: 'reconnects' });
  try {
    c.createNamespace('before', false);
    const terminate = () => withClient(server.url, (admin) => admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'floe catalog' AND datname = current_database() AND pid <> pg_backend_pid()"));
    await terminate();
    // A read outside a transaction is tried again on a new connection.
    assert.ok(c.listNamespaces().includes('before'));
    assert.ok(other.listNamespaces().includes('before'));
    // Writes go on, and each connection sees the other's.
    c.createNamespace('after', false);
    await new Promise((r) => setImmediate(r));
    assert.ok(other.listNamespaces().includes('after'));
    // A write transaction begun after the loss begins again on a new connection.
    await terminate();
    c.createNamespace('later', false);
    assert.ok(other.listNamespaces().includes('later'));
  } finally {
    c.close();
    other.close();
  }
});
