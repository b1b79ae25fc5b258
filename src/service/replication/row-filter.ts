import type { TableMetadata } from '../../lake/index.js';
import { keyOnlyRow, type TableChange } from './change-feed.js';

/** Which of a table's rows the streaming role may see: one answer per row, in order. */
export type RowVisibility = (rows: readonly (readonly unknown[])[]) => Promise<readonly boolean[]>;

/**
 * The row filter of a table for this stream, or undefined when every row is sent. It may
 * throw to stop the stream (a table the role may not read).
 */
export type RowFilterOf = (table: TableMetadata) => RowVisibility | undefined;

/**
 * A transaction's changes as a filtered stream sends them. Each table's rows are tested in
 * one batch per transaction: the new row of inserts and updates, the old row of updates and
 * deletes.
 */
export async function filteredChanges(changes: readonly TableChange[], filterOf: RowFilterOf): Promise<TableChange[]> {
  const tables = new Map<number, { filter: RowVisibility | undefined; rows: (readonly unknown[])[]; seen?: readonly boolean[] }>();
  const tested = changes.map((c) => {
    let t = tables.get(c.table.id);
    if (t === undefined) tables.set(c.table.id, t = { filter: filterOf(c.table), rows: [] });
    const table = t;
    const at = (row: readonly unknown[] | undefined) => (table.filter === undefined || row === undefined ? undefined : table.rows.push(row) - 1);
    return { table, newAt: c.kind === 'delete' ? undefined : at(c.row), oldAt: c.kind === 'insert' ? undefined : at(c.oldRow) };
  });
  for (const t of tables.values()) if (t.filter !== undefined && t.rows.length > 0) t.seen = await t.filter(t.rows);
  const out: TableChange[] = [];
  changes.forEach((c, i) => {
    const { table, newAt, oldAt } = tested[i]!;
    const visible = (at: number | undefined) => (at === undefined ? undefined : table.seen?.[at] === true);
    const sent = table.filter === undefined ? c : visibleChange(c, visible(oldAt), visible(newAt));
    if (sent !== undefined) out.push(sent);
  });
  return out;
}

/**
 * What one change becomes when the role sees the old row or not, and the new row or not
 * (undefined: the feed does not know that row), by PostgreSQL 15's rules for publication
 * row filters: an update seen before and after stays an update, one only seen before is a
 * delete of the old row, one only seen after an insert of the new row, one seen at neither
 * nothing. A delete whose old row is unknown is withheld (it might reveal a hidden row's
 * key); an update whose old row is unknown goes by its new row and stays an update, which a
 * subscriber without the row skips, where an insert could duplicate a key it holds.
 */
export function visibleChange(c: TableChange, oldVisible: boolean | undefined, newVisible: boolean | undefined): TableChange | undefined {
  switch (c.kind) {
    case 'insert': return newVisible === true ? c : undefined;
    case 'delete': return oldVisible === true ? c : undefined;
    case 'update': {
      if (oldVisible === undefined || oldVisible === newVisible) return newVisible === true ? c : undefined;
      if (newVisible === true) return { table: c.table, kind: 'insert', row: c.row };
      const keyed = c.table.primaryKey.length > 0;
      return { table: c.table, kind: 'delete', row: keyed ? keyOnlyRow(c.table)(c.oldRow!) : c.oldRow!, oldRow: c.oldRow! };
    }
  }
}
