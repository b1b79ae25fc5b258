import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteCheckpointer } from '../../src/lake/catalog/sqlite-checkpointer.js';
import { openWarehouse } from '../../src/lake/index.js';

test('the background checkpointer copies a WAL its writer never checkpoints into the database', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-checkpointer-'));
  const path = join(dir, 'c.db');
  const db = new Database(path);
  let checkpointer: SqliteCheckpointer | undefined;
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (b BLOB)');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    db.transaction(() => { for (let i = 0; i < 300; i++) insert.run(Buffer.alloc(8192, i)); })();
    const before = statSync(path).size;
    assert.ok(statSync(`${path}-wal`).size > 2_000_000, 'the rows are in the WAL');
    checkpointer = SqliteCheckpointer.start(path, 20);
    const deadline = Date.now() + 30_000;
    while (statSync(path).size <= before + 2_000_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(statSync(path).size > before + 2_000_000, `database grew from ${before} to ${statSync(path).size} bytes`);
    assert.equal((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n, 300);
  } finally {
    checkpointer?.stop();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a warehouse with background checkpoints commits, reads and closes as before', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-checkpointer-wh-'));
  try {
    const wh = await openWarehouse({ path: dir, backgroundCheckpoints: true });
    const t = await wh.createTable({
      namespace: 'public', name: 't', primaryKey: ['id'],
      columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
    });
    for (let i = 0; i < 20; i++) {
      const tx = await wh.begin();
      await tx.insert(t, 'main', [[i], [`v${i}`]]);
      await tx.commit();
    }
    assert.equal(wh.listSnapshots(t).length, 21);
    await wh.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
