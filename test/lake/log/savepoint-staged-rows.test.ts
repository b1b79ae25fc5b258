import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse } from '../../../src/lake/index.js';
import { readRows } from '../helpers/read-table.js';

/**
 * A rollback to a savepoint keeps exactly what was staged before it, wherever those rows
 * are now: still in memory, stored as files by a read inside the transaction, or beside a
 * later statement that passed the log's limit and went to Parquet directly.
 */
for (const later of ['read inside', 'past the log limit'] as const) {
  test(`rollback to a savepoint keeps the rows staged before it (${later})`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'floe-savepoint-'));
    const wh = await openWarehouse({ path: dir, log: { maxTransactionBytes: 2000 } });
    try {
      const t = await wh.createTable({
        namespace: 'public', name: 't', primaryKey: ['id'],
        columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
      });
      const tx = await wh.begin();
      const read = async () => (await readRows(wh, { table: t, at: { kind: 'ref', name: 'main' }, txn: tx })).map((r) => `${r['id']}=${r['v']}`);
      await tx.upsert(t, 'main', [[1n], ['kept']]);
      const mark = tx.savepoint();
      if (later === 'read inside') {
        await tx.upsert(t, 'main', [[2n], ['dropped']]);
        assert.deepEqual(await read(), ['1=kept', '2=dropped']);
      } else {
        const n = 40;
        await tx.upsert(t, 'main', [Array.from({ length: n }, (_, i) => BigInt(100 + i)), Array.from({ length: n }, () => 'x'.repeat(100))]);
      }
      await tx.rollbackTo(mark);
      assert.deepEqual(await read(), ['1=kept']);
      await tx.commit();
      assert.deepEqual((await readRows(wh, { table: t })).map((r) => `${r['id']}=${r['v']}`), ['1=kept']);
    } finally {
      await wh.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
