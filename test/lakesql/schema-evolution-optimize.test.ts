import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openWarehouse } from '../../src/lake/index.js';
import { startFloe } from '../harness/floe-server.js';

async function withGateway<T>(dataDir: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const server = await startFloe({ dataDir });
  const c = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'floe', database: 'floe', types: { getTypeParser: () => (v: string) => v } });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => undefined);
    await server.stop();
  }
}

const rows = async (c: pg.Client, sql: string) => (await c.query({ text: sql, rowMode: 'array' })).rows;

test('a column added with a DEFAULT keeps its value for old rows across the optimizer, which writes it into the new base files', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'floe-schema-opt-'));
  try {
    const before = await withGateway(dataDir, async (c) => {
      await c.query('CREATE TABLE so (id int PRIMARY KEY, v text)');
      await c.query("INSERT INTO so VALUES (1, 'a'), (2, 'b'), (3, 'c')");
      await c.query("UPDATE so SET v = 'bb' WHERE id = 2");
      await c.query('DELETE FROM so WHERE id = 3');
      await c.query("ALTER TABLE so ADD COLUMN c text NOT NULL DEFAULT 'dflt', ADD COLUMN n bigint DEFAULT 42");
      await c.query("ALTER TABLE so ALTER COLUMN c SET DEFAULT 'later'");
      await c.query("INSERT INTO so (id, v) VALUES (4, 'd')");
      return rows(c, 'SELECT * FROM so ORDER BY id');
    });
    assert.deepEqual(before, [['1', 'a', 'dflt', '42'], ['2', 'bb', 'dflt', '42'], ['4', 'd', 'later', '42']]);
    const wh = await openWarehouse({ path: dataDir });
    try {
      const t = wh.getTable('public', 'so')!;
      await wh.optimize(t);
      // The optimizer's base files now hold the column itself, so the rows no longer depend on the initial default.
      const files = await wh.planScan({ table: t, projection: ['id'] });
      assert.ok(files.tasks.every((task) => task.changeFiles.length === 0), 'optimize folded every change file');
    } finally {
      await wh.close();
    }
    const after = await withGateway(dataDir, (c) => rows(c, 'SELECT * FROM so ORDER BY id'));
    assert.deepEqual(after, before);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
