import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { Catalog, SnapshotRecord } from '../catalog/catalog.js';
import type { TableMetadata } from '../table/table-metadata.js';
import type { SnapshotSelector } from './snapshot.js';

/** The snapshot a read targets; default: the head of branch main. */
export function resolveSnapshotRecord(catalog: Catalog, table: TableMetadata, selector?: SnapshotSelector): SnapshotRecord {
  if (catalog.getTableById(table.id) === undefined) {
    throw new FloeError(SqlState.undefinedTable, `relation "${table.namespace}.${table.name}" does not exist`);
  }
  const sel = selector ?? { kind: 'ref', name: 'main' };
  switch (sel.kind) {
    case 'ref': return byRef(catalog, table, sel.name);
    case 'snapshot': return byId(catalog, table, sel.id);
    case 'version': {
      // Iceberg's rule: a version that is a number is a snapshot id first.
      if (/^\d+$/.test(sel.value)) {
        const s = catalog.getSnapshot(table.id, BigInt(sel.value));
        if (s !== undefined) return live(s, table);
        if (catalog.wasSnapshotExpired(table.id, BigInt(sel.value))) return byId(catalog, table, BigInt(sel.value));
      }
      return byRef(catalog, table, sel.value);
    }
    case 'timestamp': {
      const main = catalog.getRef(table.id, 'main');
      if (main === undefined) throw new FloeError(SqlState.undefinedObject, `branch "main" of table "${table.name}" does not exist`);
      // Back from the head one snapshot at a time: the target is usually recent, and the
      // whole ancestor list is thousands long on a streaming table.
      for (let s = catalog.getSnapshot(table.id, main.snapshotId); s !== undefined; s = s.parentId === undefined ? undefined : catalog.getSnapshot(table.id, s.parentId)) {
        if (s.committedAtMicros <= sel.micros) return live(s, table);
        if (s.squashedFromMicros !== undefined && s.squashedFromMicros <= sel.micros) {
          throw new FloeError(SqlState.invalidParameterValue, `the snapshot of table "${table.name}" at that time is older than the retention period and has been expired`);
        }
      }
      throw new FloeError(SqlState.invalidParameterValue, `cannot time travel to a point before the first snapshot of table "${table.name}"`);
    }
  }
}

function byRef(catalog: Catalog, table: TableMetadata, name: string): SnapshotRecord {
  const ref = catalog.getRef(table.id, name);
  if (ref === undefined) throw new FloeError(SqlState.undefinedObject, `ref "${name}" of table "${table.name}" does not exist`);
  return catalog.getSnapshot(table.id, ref.snapshotId)!;
}

function byId(catalog: Catalog, table: TableMetadata, id: bigint): SnapshotRecord {
  const s = catalog.getSnapshot(table.id, id);
  if (s === undefined && catalog.wasSnapshotExpired(table.id, id)) {
    throw new FloeError(SqlState.invalidParameterValue, `snapshot ${id} of table "${table.name}" is older than the retention period and has been expired`);
  }
  if (s === undefined) throw new FloeError(SqlState.undefinedObject, `snapshot ${id} of table "${table.name}" does not exist`);
  return live(s, table);
}

function live(s: SnapshotRecord, table: TableMetadata): SnapshotRecord {
  if (s.expired) {
    throw new FloeError(SqlState.invalidParameterValue, `snapshot ${s.id} of table "${table.name}" is older than the retention period and has been expired`);
  }
  return s;
}
