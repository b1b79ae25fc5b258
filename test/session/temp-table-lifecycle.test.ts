import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';

/**
 * Where a session's temporary tables live (src/session/session-warehouse.ts): a private
 * warehouse under <data>/temp/, never the shared catalog; gone when the session ends, and
 * after a crash, at the next start. (What clients see is compared with PostgreSQL 15 in
 * test/clients/temp-tables.test.ts.)
 */

function sessionDirs(dataDir: string): string[] {
  const root = join(dataDir, 'temp');
  return existsSync(root) ? readdirSync(root) : [];
}

async function pollUntil(what: string, check: () => boolean, deadlineMs = 20_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > until) assert.fail(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function sharedCatalogTables(dataDir: string): string[] {
  const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
  try {
    return (db.prepare('SELECT namespace, name FROM tables').all() as { namespace: string; name: string }[]).map((r) => `${r.namespace}.${r.name}`);
  } finally {
    db.close();
  }
}

async function connect(server: FloeServer): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  return c;
}

describe('temporary tables: a session-private warehouse', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'floe-temp-'));
  let server: FloeServer | undefined;
  after(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('the rows live under <data>/temp/, never in the shared catalog, and go with the session', async () => {
    server = await startFloe({ dataDir });
    const c = await connect(server);
    await c.query('CREATE TABLE keep (a integer)');
    await c.query('CREATE TEMP TABLE gone (id integer PRIMARY KEY, v text)');
    await c.query("INSERT INTO gone VALUES (1, 'x'), (2, 'y')");
    assert.equal((await c.query('SELECT count(*)::int AS n FROM gone')).rows[0].n, 2);
    assert.equal(sessionDirs(dataDir).length, 1);
    assert.deepEqual(sharedCatalogTables(dataDir), ['public.keep']);
    await c.end();
    await pollUntil('the session directory is removed', () => sessionDirs(dataDir).length === 0);
  });

  test('after a crash, the next start removes what the dead process left, and nobody sees its tables', async () => {
    server ??= await startFloe({ dataDir });
    const c = await connect(server);
    c.on('error', () => undefined);
    await c.query('CREATE TEMP TABLE crashed (a integer)');
    await c.query('INSERT INTO crashed VALUES (1)');
    const [dir] = sessionDirs(dataDir);
    assert.ok(dir !== undefined);
    const pid = Number(dir.split('-')[0]);
    process.kill(pid, 'SIGKILL');
    await pollUntil('the gateway is gone', () => { try { process.kill(pid, 0); return false; } catch { return true; } });
    assert.deepEqual(sessionDirs(dataDir), [dir]);
    await server.stop();
    server = await startFloe({ dataDir });
    assert.deepEqual(sessionDirs(dataDir), []);
    const d = await connect(server);
    try {
      await assert.rejects(d.query('SELECT * FROM crashed'), { code: '42P01' });
      assert.equal((await d.query("SELECT count(*)::int AS n FROM pg_class WHERE relname = 'crashed'")).rows[0].n, 0);
    } finally {
      await d.end();
    }
  });
});
