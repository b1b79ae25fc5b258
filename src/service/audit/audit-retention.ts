import type { Vector } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import { ROW_ID_COLUMN, dataReader, executeScanTask } from '../../lake/index.js';
import type { TableMetadata } from '../../lake/index.js';
import type { AuditWarehouse } from './audit-table.js';

/**
 * Deletes the audit rows whose `at` is before `cutoffMicros`, in one commit, and returns
 * how many went. The table is an append table, so this is DELETE … WHERE at < cutoff as
 * the lake runs it: row ids read inside the transaction (the filter prunes the days after
 * the cutoff), then deletion vectors. The rows stay in older snapshots until those expire.
 */
export async function deleteAuditRowsBefore(warehouse: AuditWarehouse, table: TableMetadata, cutoffMicros: bigint): Promise<number> {
  const txn = await warehouse.begin();
  try {
    const plan = await warehouse.planScan({
      table, txn, projection: ['at', ROW_ID_COLUMN], filters: [{ column: 'at', op: '<', value: cutoffMicros }],
    });
    const rowIds: bigint[] = [];
    for (const task of plan.tasks) {
      for await (const batch of executeScanTask(task)) {
        const at = chunksOf(batch.getChildAt(0)!, { kind: 'timestamptz' });
        const ids = chunksOf(batch.getChildAt(1)!, { kind: 'int8' });
        // The filter may be applied only to files' bounds: each row is checked again.
        for (let i = 0; i < batch.numRows; i++) {
          const t = at(i);
          if (typeof t === 'bigint' && t < cutoffMicros) rowIds.push(ids(i) as bigint);
        }
      }
    }
    if (rowIds.length === 0) {
      await txn.abort();
      return 0;
    }
    await txn.deleteRows(table, 'main', rowIds);
    await txn.commit();
    return rowIds.length;
  } catch (e) {
    if (txn.state === 'open') await txn.abort().catch(() => undefined);
    throw e;
  }
}

/** Row i of a column that may come in several chunks, as a canonical value. */
function chunksOf(vector: Vector, type: SqlType): (i: number) => unknown {
  const chunks = vector.data;
  if (chunks.length === 1) {
    const r = dataReader(chunks[0]!, type);
    return (i) => r.get(i);
  }
  const readers = chunks.map((d) => ({ length: d.length, r: dataReader(d, type) }));
  return (i) => {
    let at = i;
    for (const c of readers) {
      if (at < c.length) return c.r.get(at);
      at -= c.length;
    }
    return null;
  };
}
