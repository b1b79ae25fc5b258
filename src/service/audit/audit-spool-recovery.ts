import { renameSync, rmSync } from 'node:fs';
import { vectorToValues } from '../../exec/index.js';
import { executeScanTask, type TableMetadata } from '../../lake/index.js';
import { AuditSpool } from './audit-spool.js';
import { auditColumns, ensureAuditTable, type AuditRow, type AuditWarehouse } from './audit-table.js';

/** What tells two rows apart well enough: the microsecond, who, what, and how it ended. */
function rowKey(at: unknown, user: unknown, action: unknown, statement: unknown, sqlstate: unknown, outcome: unknown): string {
  return JSON.stringify([String(at), user, action, statement, sqlstate, outcome]);
}

/** The table's rows from `earliest` on, as a count per key. */
async function rowsFrom(warehouse: AuditWarehouse, table: TableMetadata, earliest: bigint): Promise<Map<string, number>> {
  const columns = ['at', 'user_name', 'action', 'statement', 'sqlstate', 'outcome'];
  const plan = await warehouse.planScan({ table, projection: columns, filters: [{ column: 'at', op: '>=', value: earliest }] });
  const out = new Map<string, number>();
  for (const task of plan.tasks) {
    for await (const batch of executeScanTask(task)) {
      const values = columns.map((name, i) => vectorToValues(batch.getChildAt(i)!, table.columns.find((c) => c.name === name)!.type));
      for (let r = 0; r < batch.numRows; r++) {
        const key = rowKey(...(values.map((v) => v[r]) as [unknown, unknown, unknown, unknown, unknown, unknown]));
        out.set(key, (out.get(key) ?? 0) + 1);
      }
    }
  }
  return out;
}

/**
 * At start: the rows the spools of processes that died before flushing them still hold
 * (AuditSpool.leftovers), committed in one commit. A row already in the table (its process
 * was killed after its flush committed and before it cut the file back) is left out, so
 * none is lost and none doubled. A spool is claimed by renaming it first, so two gateways
 * starting on one directory do not both take it. Returns how many rows went in.
 */
export async function recoverAuditSpools(warehouse: AuditWarehouse, dir: string): Promise<number> {
  const claimed: { path: string; rows: readonly AuditRow[] }[] = [];
  for (const s of AuditSpool.leftovers(dir)) {
    const path = `${s.base}.recovering-${process.pid}`;
    try {
      renameSync(s.path, path);
    } catch {
      continue;
    }
    claimed.push({ path, rows: s.rows });
  }
  const rows = claimed.flatMap((c) => c.rows);
  let written = 0;
  if (rows.length > 0) {
    const table = await ensureAuditTable(warehouse);
    const earliest = rows.reduce((min, r) => (r.at < min ? r.at : min), rows[0]!.at);
    const present = await rowsFrom(warehouse, table, earliest);
    const missing = rows.filter((r) => {
      const key = rowKey(r.at, r.userName, r.action, r.statement, r.sqlstate, r.outcome);
      const n = present.get(key) ?? 0;
      if (n === 0) return true;
      present.set(key, n - 1);
      return false;
    });
    if (missing.length > 0) {
      const txn = await warehouse.begin();
      try {
        await txn.insert(table, 'main', auditColumns(table, missing));
        await txn.commit();
      } finally {
        if (txn.state === 'open') await txn.abort().catch(() => undefined);
      }
    }
    written = missing.length;
  }
  for (const c of claimed) rmSync(c.path, { force: true });
  return written;
}
