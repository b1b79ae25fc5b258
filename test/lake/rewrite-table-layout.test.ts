import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { isFloeError } from '../../src/common/floe-error.js';
import { SqliteCatalog } from '../../src/lake/catalog/sqlite/sqlite-catalog.js';
import { openWarehouse } from '../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { columnsOf, readRows, tempWarehouse } from './helpers/read-table.js';

/**
 * ALTER TABLE ADD PRIMARY KEY and its removal as the lake does them
 * (src/lake/table/rewrite-table-layout.ts): the rows move into the other layout in one
 * commit, and a failure at any point before that commit leaves the table as it was.
 */

const sqlstate = (code: string) => (e: unknown) => isFloeError(e) && e.sqlstate === code;

async function appendTable(wh: Warehouse, rows: readonly { id: number | null; v: string | null }[]): Promise<TableMetadata> {
  const t = await wh.createTable({
    namespace: 'public', name: 't',
    columns: [{ name: 'id', type: { kind: 'int4' }, nullable: true }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
  // Two commits and a deletion vector, so the rewrite reads more than one file and merges deletes.
  for (const part of [rows.slice(0, 2), rows.slice(2)]) {
    const tx = await wh.begin();
    await tx.insert(t, 'main', columnsOf(t, [...part, { id: 999, v: 'deleted' }]));
    await tx.commit();
  }
  const doomed = (await readRows(wh, { table: t, projection: ['id', '_row_id'] })).filter((r) => r['id'] === 999);
  const tx = await wh.begin();
  await tx.deleteRows(t, 'main', doomed.map((r) => r['_row_id'] as bigint));
  await tx.commit();
  return wh.getTable('public', 't')!;
}

/** What must not change when a rewrite fails: metadata, snapshots, files and rows. */
async function state(wh: Warehouse, t: TableMetadata): Promise<unknown> {
  const table = wh.getTableById(t.id)!;
  return {
    table, snapshots: wh.listSnapshots(table).map((s) => s.id), files: wh.listFiles(table).map((f) => f.path),
    rows: await readRows(wh, { table }),
  };
}

const ROWS = [{ id: 1, v: 'a' }, { id: 2, v: 'b' }, { id: 3, v: 'c' }, { id: 4, v: 'd' }];

test('ADD PRIMARY KEY rewrites an append table into a keyed one: same rows, keyed behaviour, NOT NULL, old snapshots expired', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const before = await appendTable(wh, ROWS);
    const oldHead = wh.resolveSnapshot(before)!.id;
    const t = await wh.alterTable('public', 't', { kind: 'addPrimaryKey', columns: ['id'] });
    assert.deepEqual(t.primaryKey, ['id']);
    assert.deepEqual(t.columns.map((c) => [c.name, c.nullable]), [['id', false], ['v', true]]);
    assert.ok(t.schemaId > before.schemaId);
    assert.deepEqual(await readRows(wh, { table: t }), ROWS);
    assert.deepEqual([...new Set(wh.listFiles(t).map((f) => f.store))], ['change']);
    // Keyed now: a plain insert of a live key is 23505, an upsert replaces the row.
    const dup = await wh.begin();
    await assert.rejects(dup.insert(t, 'main', columnsOf(t, [{ id: 2, v: 'again' }])), sqlstate('23505'));
    await dup.abort();
    const up = await wh.begin();
    await up.upsert(t, 'main', columnsOf(t, [{ id: 2, v: 'B' }]));
    await up.commit();
    assert.deepEqual(await readRows(wh, { table: t }), [ROWS[0], { id: 2, v: 'B' }, ROWS[2], ROWS[3]]);
    // Snapshots before the rewrite hold files of the append layout: not readable any more.
    assert.throws(() => wh.resolveSnapshot(t, { kind: 'snapshot', id: oldHead }), sqlstate('22023'));
    await assert.rejects(wh.alterTable('public', 't', { kind: 'addPrimaryKey', columns: ['v'] }), sqlstate('42P16'));
  } finally { await cleanup(); }
});

test('duplicate keys (23505, PostgreSQL\'s message and detail) and NULL keys (23502) leave the table unchanged', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await appendTable(wh, [...ROWS, { id: 3, v: 'c2' }, { id: null, v: 'n' }, { id: 5, v: null }]);
    const unchanged = await state(wh, t);
    await assert.rejects(wh.alterTable('public', 't', { kind: 'addPrimaryKey', columns: ['id'] }), (e: unknown) => {
      assert.ok(isFloeError(e));
      assert.equal(e.sqlstate, '23505');
      assert.equal(e.message, 'could not create unique index "t_pkey"');
      assert.equal(e.detail, 'Key (id)=(3) is duplicated.');
      return true;
    });
    assert.deepEqual(await state(wh, t), unchanged);
    await assert.rejects(wh.alterTable('public', 't', { kind: 'addPrimaryKey', columns: ['v'] }), (e: unknown) => {
      assert.ok(isFloeError(e));
      assert.equal(e.sqlstate, '23502');
      assert.equal(e.message, 'column "v" of relation "t" contains null values');
      return true;
    });
    assert.deepEqual(await state(wh, t), unchanged);
    await assert.rejects(wh.alterTable('public', 't', { kind: 'addPrimaryKey', columns: ['zz'] }), sqlstate('42703'));
  } finally { await cleanup(); }
});

test('a failure at the commit (after the new files are written) leaves the table as it was, readable, and a retry succeeds', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  const original = SqliteCatalog.prototype.rewriteTable;
  try {
    const t = await appendTable(wh, ROWS);
    const unchanged = await state(wh, t);
    SqliteCatalog.prototype.rewriteTable = function failing() {
      throw new Error('simulated crash at the catalog commit');
    };
    await assert.rejects(wh.alterTable('public', 't', { kind: 'addPrimaryKey', columns: ['id'] }), /simulated crash/);
    SqliteCatalog.prototype.rewriteTable = original;
    assert.deepEqual(await state(wh, t), unchanged);
    for (const f of wh.listFiles(t)) assert.ok(existsSync(join(dir, f.path.split('#')[0]!)), `missing ${f.path}`);
    const keyed = await wh.alterTable('public', 't', { kind: 'addPrimaryKey', columns: ['id'] });
    assert.deepEqual(await readRows(wh, { table: keyed }), ROWS);
  } finally {
    SqliteCatalog.prototype.rewriteTable = original;
    await cleanup();
  }
});

test('a writer that began on the old layout cannot commit after the rewrite (40001)', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await appendTable(wh, ROWS);
    const late = await wh.begin();
    await late.insert(t, 'main', columnsOf(t, [{ id: 2, v: 'late duplicate' }]));
    await wh.alterTable('public', 't', { kind: 'addPrimaryKey', columns: ['id'] });
    await assert.rejects(late.commit(), sqlstate('40001'));
    assert.deepEqual(await readRows(wh, { table: wh.getTable('public', 't')! }), ROWS);
  } finally { await cleanup(); }
});

test('a table with a branch or tag is refused (0A000), unchanged', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await appendTable(wh, ROWS);
    await wh.createTag(t, 'v1');
    const unchanged = await state(wh, t);
    await assert.rejects(wh.alterTable('public', 't', { kind: 'addPrimaryKey', columns: ['id'] }), sqlstate('0A000'));
    assert.deepEqual(await state(wh, t), unchanged);
  } finally { await cleanup(); }
});

test('DROP CONSTRAINT t_pkey and DROP COLUMN of a key column make the table an append table again, rows kept', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    await appendTable(wh, ROWS);
    let t = await wh.alterTable('public', 't', { kind: 'addPrimaryKey', columns: ['id'] });
    t = await wh.alterTable('public', 't', { kind: 'dropConstraint', name: 't_pkey' });
    assert.deepEqual(t.primaryKey, []);
    // PostgreSQL keeps the NOT NULL the key set.
    assert.equal(t.columns[0]!.nullable, false);
    assert.deepEqual(await readRows(wh, { table: t }), ROWS);
    assert.deepEqual([...new Set(wh.listFiles(t).map((f) => f.store))], ['base']);
    const dup = await wh.begin();
    await dup.insert(t, 'main', columnsOf(t, [{ id: 1, v: 'a twin' }]));
    await dup.commit();
    assert.equal((await readRows(wh, { table: t })).length, 5);
    const twin = (await readRows(wh, { table: t, projection: ['v', '_row_id'] })).find((r) => r['v'] === 'a twin')!;
    const del = await wh.begin();
    await del.deleteRows(t, 'main', [twin['_row_id'] as bigint]);
    await del.commit();
    t = await wh.alterTable('public', 't', { kind: 'addPrimaryKey', columns: ['id', 'v'] });
    t = await wh.alterTable('public', 't', { kind: 'dropColumn', name: 'v' });
    assert.deepEqual(t.primaryKey, []);
    assert.deepEqual(await readRows(wh, { table: t }), ROWS.map((r) => ({ id: r.id })));
  } finally { await cleanup(); }
});

/** Runs the child that adds the primary key and kills it `afterMs` after it starts; true when it finished first. */
function addPrimaryKeyKilled(dir: string, afterMs: number): Promise<boolean> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./helpers/add-primary-key-child.ts', import.meta.url)), dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const deadline = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (d: Buffer) => {
      const before = out;
      out += d.toString();
      if (!before.includes('start') && out.includes('start')) setTimeout(() => child.kill('SIGKILL'), afterMs);
    });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.on('exit', (code, signal) => {
      clearTimeout(deadline);
      if (signal === 'SIGKILL') resolve(out.includes('done'));
      else if (code === 0) resolve(true);
      else reject(new Error(`child failed (${code}): ${err}`));
    });
  });
}

test('a process killed at any moment of the rewrite leaves the table either as it was or fully keyed', async (ctx) => {
  const rows = Array.from({ length: 3000 }, (_, i) => ({ id: 1000 + i, v: `v${i}` }));
  const outcomes: string[] = [];
  for (const afterMs of [0, 40, 120, 400]) {
    const { wh, dir, cleanup } = await tempWarehouse();
    try {
      await appendTable(wh, rows);
      await wh.close();
      const finished = await addPrimaryKeyKilled(dir, afterMs);
      const again = await openWarehouse({ path: dir });
      try {
        const t = again.getTable('public', 't')!;
        const got = (await readRows(again, { table: t })).sort((a, b) => (a['id'] as number) - (b['id'] as number));
        assert.deepEqual(got, rows, `rows after a kill at ${afterMs} ms`);
        assert.ok(t.primaryKey.length === 0 || t.primaryKey[0] === 'id');
        const stores = new Set(again.listFiles(t).map((f) => f.store));
        assert.deepEqual([...stores].sort(), t.primaryKey.length > 0 ? ['change'] : ['base']);
        for (const f of again.listFiles(t)) if (f.path !== '') assert.ok(existsSync(join(dir, f.path.split('#')[0]!)), `missing ${f.path}`);
        if (finished) assert.deepEqual(t.primaryKey, ['id']);
        outcomes.push(t.primaryKey.length > 0 ? 'keyed' : 'unchanged');
        ctx.diagnostic(`killed after ${afterMs} ms: ${outcomes[outcomes.length - 1]}`);
      } finally { await again.close(); }
    } finally { await cleanup().catch(() => undefined); }
  }
  assert.equal(outcomes.length, 4);
});
