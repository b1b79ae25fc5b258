import type { SnapshotRecord } from '../catalog/catalog.js';
import type { Snapshot } from './snapshot.js';

export function toSnapshot(r: SnapshotRecord): Snapshot {
  return {
    tableId: r.tableId, id: r.id, parentId: r.parentId, branch: r.branch, committedAtMicros: r.committedAtMicros,
    operation: r.operation as Snapshot['operation'], summary: r.summary, schemaId: r.schemaId,
  };
}
