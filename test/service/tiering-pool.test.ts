import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { isLogPath } from '../../src/lake/log/log-locator.js';
import { LogTieringService } from '../../src/service/log-tiering/log-tiering-service.js';
import { createTieringPool, TIERING_NICENESS } from '../../src/service/log-tiering/tiering-pool.js';
import { columnsOf, readRows, tempWarehouse } from '../lake/helpers/read-table.js';
import { changeFilesToLogFiles } from '../lake/log/log-file-helper.js';
import { threadNiceness } from '../harness/thread-niceness.js';

async function loggedTable(wh: Warehouse, dir: string, name: string): Promise<TableMetadata> {
  const t = await wh.createTable({
    namespace: 'public', name, primaryKey: ['id'], properties: { 'log.tier-size': '1' },
    columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
  for (let i = 0; i < 4; i++) {
    const tx = await wh.begin();
    await tx.upsert(t, 'main', columnsOf(t, [{ id: i, v: `v${i}` }, { id: 1, v: `one after ${i}` }, { id: 100 + i, v: null }]));
    await tx.commit();
  }
  const tx = await wh.begin();
  await tx.deleteKeys(t, 'main', [[2]]);
  await tx.commit();
  await changeFilesToLogFiles(dir, t);
  return t;
}

const shape = (wh: Warehouse, t: TableMetadata) => wh.listFiles(t).map((f) => ({ log: isLogPath(f.path), store: f.store, rows: f.rowCount, stats: f.columnStats }));

test('tiering through its thread swaps in what tiering on the calling thread does, and the thread runs at the tiering nice value', { skip: process.platform !== 'linux' }, async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  let pool: ReturnType<typeof createTieringPool> | undefined;
  try {
    // One table tiered on this thread, then one alike through the tiering thread.
    const here = await loggedTable(wh, dir, 'here');
    const expected = await readRows(wh, { table: here });
    const before = threadNiceness();
    await new LogTieringService(wh).runOnce(true);
    assert.equal(threadNiceness().size, before.size, 'tiering on the calling thread started no thread');
    pool = createTieringPool();
    assert.equal(await pool.load(), true, 'the thread loads');
    const there = await loggedTable(wh, dir, 'there');
    assert.ok(wh.listFiles(there).some((f) => isLogPath(f.path)), 'the table starts with log files');
    assert.equal((await new LogTieringService(wh, { rewriteChangeGroup: pool.rewriteChangeGroup }).runOnce(true)).tablesTiered, 1);
    assert.ok(pool.groupsOnThread > 0, 'the groups were rewritten on the thread');
    assert.deepEqual(shape(wh, there), shape(wh, here));
    assert.ok(shape(wh, there).every((f) => !f.log), 'no log file is left');
    assert.deepEqual(await readRows(wh, { table: there }), expected);
    assert.deepEqual(await readRows(wh, { table: here }), expected);

    const added = [...threadNiceness()].filter(([tid]) => !before.has(tid)).map(([, nice]) => nice);
    assert.equal(TIERING_NICENESS, 10);
    assert.ok(added.includes(TIERING_NICENESS), `the tiering thread's nice value among the new threads: ${added.join(', ')}`);
  } finally {
    await pool?.close();
    await cleanup();
  }
});
