/**
 * One commit of the log crash test's workload (log-crash-model.ts), as the writer child
 * runs it and as the checker runs the last one: client c's commit i, in one transaction.
 */
import { ROW_ID_COLUMN } from '../../../src/lake/index.js';
import type { Warehouse } from '../../../src/lake/index.js';
import { readRows } from '../helpers/read-table.js';
import { appendDeletedCommit, appendIdRange, appendRows, appendTableName, commitDeletes, commitRows } from './log-crash-model.js';

export async function commitWorkload(wh: Warehouse, c: number, i: number): Promise<void> {
  const t = wh.getTable('public', 'logcrash')!;
  const a = wh.getTable('public', appendTableName(c))!;
  const tx = await wh.begin();
  try {
    const victim = appendDeletedCommit(i);
    if (victim !== undefined) {
      // DELETE … WHERE id in commit victim's range, as the executor runs it: row ids read in the transaction.
      const [from, to] = appendIdRange(c, victim);
      tx.markReadModifyWrite(a, 'main');
      const hit = (await readRows(wh, {
        table: a, txn: tx, projection: ['id', ROW_ID_COLUMN],
        filters: [{ column: 'id', op: '>=', value: from }, { column: 'id', op: '<', value: to }],
      })).filter((r) => (r['id'] as bigint) >= from && (r['id'] as bigint) < to);
      await tx.deleteRows(a, 'main', hit.map((r) => r[ROW_ID_COLUMN] as bigint));
    }
    await tx.insert(a, 'main', appendRows(c, i));
    await tx.upsert(t, 'main', commitRows(c, i));
    const deletes = commitDeletes(c, i);
    if (deletes.length > 0) await tx.deleteKeys(t, 'main', [deletes]);
    await tx.commit();
  } catch (e) {
    await tx.abort();
    throw e;
  }
}
