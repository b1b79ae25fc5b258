import type { TableMetadata, Warehouse } from '../lake/index.js';
import { idText } from './json-values.js';

/** Snapshots back from the head whose changes a table page reads: bounds the work, whatever the table's age. */
const SNAPSHOTS_BACK = 20;
/** Change rows a table page shows, newest first. */
const ROW_LIMIT = 20;

/** t$audit_log's spelling of a change row's `_op`. */
const CHANGE_TYPES: Readonly<Record<string, string>> = { '+I': 'INSERT', '-U': 'UPDATE_BEFORE', '+U': 'UPDATE_AFTER', '-D': 'DELETE' };

/** One t$audit_log row: the table's columns, then the change columns. */
export interface ChangeRow {
  readonly changeType: string;
  readonly seq: string;
  readonly snapshotId: string;
  readonly values: Readonly<Record<string, unknown>>;
}

/**
 * The newest rows of t$audit_log, read the way the system table reads them
 * (Warehouse.readChanges up to the head), over the last few snapshots only.
 */
export async function recentChanges(warehouse: Warehouse, t: TableMetadata): Promise<ChangeRow[]> {
  const head = warehouse.resolveSnapshot(t);
  if (head === undefined) return [];
  const snapshots = warehouse.listSnapshots(t).filter((s) => s.branch === head.branch);
  const from = snapshots.length > SNAPSHOTS_BACK ? snapshots[snapshots.length - SNAPSHOTS_BACK - 1]!.id : undefined;
  const rows: ChangeRow[] = [];
  for (const { batch } of await warehouse.readChanges(t, from, head.id)) {
    const names = batch.schema.fields.map((f) => f.name);
    for (let r = 0; r < batch.numRows; r++) {
      const values: Record<string, unknown> = {};
      t.columns.forEach((c, i) => { values[c.name] = jsonValue(batch.getChildAt(i)?.get(r)); });
      const change = (name: string) => batch.getChildAt(names.indexOf(name))?.get(r);
      rows.push({
        changeType: CHANGE_TYPES[String(change('_change_type'))] ?? String(change('_change_type')),
        seq: String(change('_seq')), snapshotId: idText(change('_commit_snapshot_id') as bigint) ?? '', values,
      });
    }
  }
  return rows.slice(-ROW_LIMIT).reverse();
}

/** JSON has no bigint, bytes or dates: such values travel as text. */
function jsonValue(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return `\\x${Buffer.from(v).toString('hex')}`;
  if (v instanceof Date) return v.toISOString();
  if (v !== null && typeof v === 'object') return String(v);
  return v ?? null;
}
