import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { Catalog } from '../catalog/catalog.js';
import type { TableMetadata } from '../table/table-metadata.js';
import { resolveSnapshotRecord } from './resolve-snapshot.js';
import type { CreateRefOptions } from './snapshot.js';

/** Branches and tags: create, drop, fast-forward, rollback. All are single catalog writes. */
export function createRef(catalog: Catalog, table: TableMetadata, name: string, kind: 'branch' | 'tag', opts: CreateRefOptions = {}): void {
  const existing = catalog.getRef(table.id, name);
  if (existing !== undefined) {
    if (opts.ifNotExists === true) return;
    if (opts.orReplace !== true) throw new FloeError(SqlState.duplicateObject, `${existing.kind} "${name}" of table "${table.name}" already exists`);
    if (existing.kind !== kind) throw new FloeError(SqlState.duplicateObject, `"${name}" is a ${existing.kind} of table "${table.name}", not a ${kind}`);
    if (name === 'main' && kind === 'branch' && opts.fromSnapshot === undefined) return;
  }
  const snapshot = opts.fromSnapshot === undefined
    ? resolveSnapshotRecord(catalog, table)
    : resolveSnapshotRecord(catalog, table, { kind: 'snapshot', id: opts.fromSnapshot });
  catalog.putRef({ tableId: table.id, name, kind, snapshotId: snapshot.id, retainMicros: opts.retainMicros },
    { mustNotExist: opts.orReplace !== true && opts.ifNotExists !== true });
}

export function dropRef(catalog: Catalog, table: TableMetadata, name: string, opts: { ifExists?: boolean; kind?: 'branch' | 'tag' } = {}): void {
  const ref = catalog.getRef(table.id, name);
  if (ref === undefined || (opts.kind !== undefined && ref.kind !== opts.kind)) {
    if (opts.ifExists === true) return;
    throw new FloeError(SqlState.undefinedObject, `${opts.kind ?? 'ref'} "${name}" of table "${table.name}" does not exist`);
  }
  if (name === 'main') throw new FloeError(SqlState.objectNotInPrerequisiteState, 'cannot drop branch "main"');
  catalog.deleteRef(table.id, name);
}

export function fastForward(catalog: Catalog, table: TableMetadata, target: string, source: string): void {
  const t = catalog.getRef(table.id, target);
  const s = catalog.getRef(table.id, source);
  if (t === undefined) throw new FloeError(SqlState.undefinedObject, `branch "${target}" of table "${table.name}" does not exist`);
  if (s === undefined) throw new FloeError(SqlState.undefinedObject, `ref "${source}" of table "${table.name}" does not exist`);
  if (t.kind !== 'branch') throw new FloeError(SqlState.objectNotInPrerequisiteState, `"${target}" is a tag; only branches can be fast-forwarded`);
  if (!catalog.ancestors(table.id, s.snapshotId).includes(t.snapshotId)) {
    throw new FloeError(SqlState.objectNotInPrerequisiteState,
      `cannot fast-forward "${target}" to "${source}": the head of "${target}" is not an ancestor of "${source}"`);
  }
  catalog.putRef({ ...t, snapshotId: s.snapshotId }, { expect: t.snapshotId });
}

/** Moves a branch back to one of its ancestors; later snapshots stay until expired. */
export function rollbackTo(catalog: Catalog, table: TableMetadata, snapshotId: bigint, ref: string): void {
  const b = catalog.getRef(table.id, ref);
  if (b === undefined || b.kind !== 'branch') throw new FloeError(SqlState.undefinedObject, `branch "${ref}" of table "${table.name}" does not exist`);
  const target = resolveSnapshotRecord(catalog, table, { kind: 'snapshot', id: snapshotId });
  if (!catalog.ancestors(table.id, b.snapshotId).includes(target.id)) {
    throw new FloeError(SqlState.objectNotInPrerequisiteState, `snapshot ${snapshotId} is not an ancestor of the head of branch "${ref}"`);
  }
  catalog.putRef({ ...b, snapshotId: target.id }, { expect: b.snapshotId });
}

export function rollbackToTimestamp(catalog: Catalog, table: TableMetadata, micros: bigint, ref: string): void {
  const b = catalog.getRef(table.id, ref);
  if (b === undefined || b.kind !== 'branch') throw new FloeError(SqlState.undefinedObject, `branch "${ref}" of table "${table.name}" does not exist`);
  for (const id of catalog.ancestors(table.id, b.snapshotId)) {
    const s = catalog.getSnapshot(table.id, id)!;
    if (s.committedAtMicros <= micros) {
      rollbackTo(catalog, table, s.id, ref);
      return;
    }
    if (s.squashedFromMicros !== undefined && s.squashedFromMicros <= micros) {
      throw new FloeError(SqlState.invalidParameterValue, `the snapshot of table "${table.name}" at that time is older than the retention period and has been expired`);
    }
  }
  throw new FloeError(SqlState.invalidParameterValue, `cannot roll back to a point before the first snapshot of table "${table.name}"`);
}
