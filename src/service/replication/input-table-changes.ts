import { vectorToValues } from '../../exec/index.js';
import { executeScanTask } from '../../lake/index.js';
import type { Snapshot, TableMetadata, Warehouse } from '../../lake/index.js';
import { keyString } from '../subscriptions/value-identity.js';

/** What a commit did to one key, as a publication sends it. */
export interface KeyChange {
  readonly kind: 'insert' | 'update' | 'delete';
  /** The new row of an insert or update; the key of a delete (other columns null). */
  readonly row: readonly unknown[];
  /** An update that changed the key: the old key (other columns null). */
  readonly oldKey?: readonly unknown[];
  /** The key's whole row at the commit's parent, for an update or delete. */
  readonly oldRow?: readonly unknown[];
}

/**
 * A commit on a keyed table whose changelog producer is `input`: its change rows do not say
 * whether a blind upsert replaced a row (it is a +I either way), and a PostgreSQL subscriber
 * applying an INSERT of an existing key stops on the duplicate. So each key the commit wrote
 * is read at the commit's parent and at the commit (a slot holds both back from expiry), and
 * sent as what happened to it: present at both, an update; only after, an insert; only
 * before, a delete; at neither (a delete of nothing, or a write the merge rule hid), nothing.
 * Keys go in the order the commit first wrote them; a key written twice is sent once.
 * `moved` are the commit's key changes (old key, new key), recorded by its UPDATEs: one whose
 * old key is sent as a delete and new key as an insert is sent as one update instead, at the
 * old key's place, as PostgreSQL sends it (a key moved on again in the same commit is not).
 */
export async function inputTableChanges(
  warehouse: Warehouse, table: TableMetadata, snapshot: Snapshot, written: readonly (readonly unknown[])[],
  moved: readonly (readonly [readonly unknown[], readonly unknown[]])[] = [],
): Promise<KeyChange[]> {
  const keyIdx = table.primaryKey.map((k) => table.columns.findIndex((c) => c.name === k));
  const keys = new Map<string, readonly unknown[]>();
  for (const row of written) {
    const key = keyIdx.map((i) => row[i]);
    const s = keyString(key);
    if (!keys.has(s)) keys.set(s, key);
  }
  if (keys.size === 0) return [];
  const before = snapshot.parentId === undefined ? new Map<string, unknown[]>() : await liveRows(warehouse, table, snapshot.parentId, keys, keyIdx);
  const after = await liveRows(warehouse, table, snapshot.id, keys, keyIdx);
  const changes = new Map<string, KeyChange>();
  for (const [s, key] of keys) {
    const was = before.get(s);
    const is = after.get(s);
    if (is !== undefined) changes.set(s, was === undefined ? { kind: 'insert', row: is } : { kind: 'update', row: is, oldRow: was });
    else if (was !== undefined) changes.set(s, { kind: 'delete', row: table.columns.map((_, i) => (keyIdx.includes(i) ? key[keyIdx.indexOf(i)] : null)), oldRow: was });
  }
  for (const [oldKey, newKey] of moved) {
    const from = changes.get(keyString(oldKey));
    const to = changes.get(keyString(newKey));
    if (from?.kind !== 'delete' || to?.kind !== 'insert') continue;
    changes.set(keyString(oldKey), { kind: 'update', row: to.row, oldKey: from.row, oldRow: from.oldRow });
    changes.delete(keyString(newKey));
  }
  return [...changes.values()];
}

/**
 * Up to this many first-key values, the scan filters on them (files pruned by min/max and
 * bitmaps, each row tested against the list); past it the list costs more per row than
 * it saves, and the snapshot is read whole.
 */
const IN_LIST_MAX = 256;

/** The live rows of `keys` at a snapshot, by key string: a scan filtered on the first key column's values. */
async function liveRows(
  warehouse: Warehouse, table: TableMetadata, snapshotId: bigint, keys: ReadonlyMap<string, readonly unknown[]>, keyIdx: readonly number[],
): Promise<Map<string, unknown[]>> {
  const firstValues = new Map<string, unknown>();
  for (const key of keys.values()) firstValues.set(keyString([key[0]]), key[0]);
  const plan = await warehouse.planScan({
    table, at: { kind: 'snapshot', id: snapshotId }, projection: table.columns.map((c) => c.name),
    ...(firstValues.size <= IN_LIST_MAX ? { filters: [{ column: table.primaryKey[0]!, op: 'in' as const, values: [...firstValues.values()] }] } : {}),
  });
  const out = new Map<string, unknown[]>();
  for (const task of plan.tasks) {
    for await (const b of executeScanTask(task)) {
      const cols = table.columns.map((c, i) => vectorToValues(b.getChildAt(i)!, c.type));
      for (let r = 0; r < b.numRows; r++) {
        const row = cols.map((c) => c[r] ?? null);
        // The filter may be inexact, and holds only the first key column: keep the keys asked for.
        const s = keyString(keyIdx.map((i) => row[i]));
        if (keys.has(s)) out.set(s, row);
      }
    }
  }
  return out;
}
