/**
 * Child process for the append-compaction concurrency test: `rounds` rounds of an INSERT
 * of 5 new rows, a DELETE of an older row and an UPDATE of another (each its own
 * transaction, read-modify-write), while the parent compacts the table. Any error is a
 * writer failed by the compaction: it exits 1 with the message.
 * `node --import tsx append-writer-child.ts <dir> <table> <rounds>`.
 */
import { openWarehouse } from '../../../src/lake/index.js';
import { deleteWhere, insertIds, updateWhere } from './append-table.js';
import { deletedAt, updatedAt } from './append-writer-schedule.js';

const [dir, name, roundsText] = process.argv.slice(2);
const wh = await openWarehouse({ path: dir! });
const t = wh.getTable('public', name!)!;
try {
  for (let i = 0; i < Number(roundsText); i++) {
    await insertIds(wh, t, [0, 1, 2, 3, 4].map((k) => i * 5 + k));
    const del = deletedAt(i);
    if (del !== undefined) {
      const txn = await wh.begin();
      if (await deleteWhere(wh, t, txn, (id) => id === del) !== 1) throw new Error(`row ${del} was not found to delete`);
      await txn.commit();
    }
    const upd = updatedAt(i);
    if (upd !== undefined) {
      const txn = await wh.begin();
      if (await updateWhere(wh, t, txn, (id) => id === upd, `u${i}`) !== 1) throw new Error(`row ${upd} was not found to update`);
      await txn.commit();
    }
  }
  await wh.close();
} catch (e) {
  process.stderr.write(`writer failed: ${(e as Error).stack}\n`);
  process.exit(1);
}
