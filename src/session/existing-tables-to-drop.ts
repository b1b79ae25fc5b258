import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import type { Warehouse } from '../lake/index.js';
import type { TableName } from '../sql/index.js';

/**
 * DROP TABLE's targets that exist, checked before anything is dropped: a
 * missing one is 42P01 named as the statement spelled it (`table "missing"
 * does not exist`, without its schema), or with IF EXISTS a NOTICE and skipped, as in PostgreSQL.
 */
export function existingTablesToDrop(
  w: Warehouse,
  c: { readonly tables: readonly TableName[]; readonly ifExists: boolean; readonly writtenNames?: readonly string[] },
  notice: (message: string) => void,
): TableName[] {
  const out: TableName[] = [];
  c.tables.forEach((t, i) => {
    if (w.getTable(t.namespace, t.name) !== undefined) { out.push(t); return; }
    const shown = c.writtenNames?.[i] ?? t.name;
    if (!c.ifExists) throw new FloeError(SqlState.undefinedTable, `table "${shown}" does not exist`);
    notice(`table "${shown}" does not exist, skipping`);
  });
  return out;
}
