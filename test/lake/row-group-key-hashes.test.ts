import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFloeError } from '../../src/common/floe-error.js';
import { holdsAnyHash, rowGroupKeyHashStats } from '../../src/lake/txn/row-group-key-hashes.js';
import { columnsOf, readRows, tempWarehouse } from './helpers/read-table.js';

type Warehouse = Awaited<ReturnType<typeof tempWarehouse>>['wh'];
const keyedTable = (wh: Warehouse) => wh.createTable({
  namespace: 'public', name: 'h', primaryKey: ['id'],
  columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
});

test('holdsAnyHash finds a hash in a sorted list by search, unsigned hashes included', () => {
  const sorted = Uint32Array.from([3, 17, 0x7fffffff, 0x80000001, 0xfffffffe]).sort();
  assert.equal(holdsAnyHash(sorted, [17]), true);
  assert.equal(holdsAnyHash(sorted, [4, 0x80000001]), true);
  assert.equal(holdsAnyHash(sorted, Uint32Array.from([0xfffffffe])), true);
  // a negative int32 is the same 32 bits
  assert.equal(holdsAnyHash(sorted, [-2]), true);
  assert.equal(holdsAnyHash(sorted, [0, 2, 18, 0xffffffff]), false);
  assert.equal(holdsAnyHash(new Uint32Array(0), [1]), false);
});

test('the insert check keeps a base row group\'s key hashes: new keys are ruled out without decoding it again, live keys still fail', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await keyedTable(wh);
    const commit = async (rows: { id: bigint; v: string }[]) => {
      const tx = await wh.begin();
      try { await tx.insert(t, 'main', columnsOf(t, rows)); await tx.commit(); } catch (e) { await tx.abort(); throw e; }
    };
    await commit(Array.from({ length: 5000 }, (_, i) => ({ id: BigInt(i * 2), v: `r${i}` })));
    await wh.optimize(t);
    assert.ok(wh.listFiles(t).some((f) => f.store === 'base'), 'the rows are in a base file');

    const before = rowGroupKeyHashStats().entries;
    await commit([{ id: 1n, v: 'new' }]);
    const after = rowGroupKeyHashStats().entries;
    assert.ok(after > before, `the check kept the row group's hashes (${before} → ${after})`);
    // more new keys: the same groups, no new entries
    await commit([{ id: 3n, v: 'new' }, { id: 5n, v: 'new' }, { id: 99_999n, v: 'new' }]);
    assert.equal(rowGroupKeyHashStats().entries, after);
    // a key that is there is still found, through the cached hashes and then its row
    await assert.rejects(commit([{ id: 7n, v: 'x' }, { id: 4_000n, v: 'dup' }]), (e: unknown) => {
      assert.ok(isFloeError(e), String(e));
      assert.equal(e.sqlstate, '23505');
      assert.equal(e.detail, 'Key (id)=(4000) already exists.');
      return true;
    });
    const rows = await readRows(wh, { table: t });
    assert.equal(rows.length, 5004);
    assert.equal(rows.filter((r) => r.v === 'new').length, 4);
  } finally { await cleanup(); }
});

test('writers that miss the same new base row group at once share one decode of its key hashes', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await keyedTable(wh);
    const load = await wh.begin();
    await load.insert(t, 'main', columnsOf(t, Array.from({ length: 5000 }, (_, i) => ({ id: BigInt(i * 2), v: `r${i}` }))));
    await load.commit();
    await wh.optimize(t);
    // 5,000 rows: one row group in each base file.
    const groups = wh.listFiles(t).filter((f) => f.store === 'base').length;
    // Eight writers of new keys at once: each check reaches the base file's groups before any decode ends.
    const before = rowGroupKeyHashStats().decodes;
    const writers = await Promise.all(Array.from({ length: 8 }, () => wh.begin()));
    await Promise.all(writers.map(async (tx, i) => {
      await tx.insert(t, 'main', columnsOf(t, [{ id: BigInt(2 * i + 1), v: 'new' }]));
      await tx.commit();
    }));
    const decoded = rowGroupKeyHashStats().decodes - before;
    assert.ok(decoded > 0 && decoded <= groups, `${decoded} decodes for ${groups} row group(s) and 8 writers`);
    const rows = await readRows(wh, { table: t });
    assert.equal(rows.filter((r) => r.v === 'new').length, 8);
  } finally { await cleanup(); }
});
