import { Field, Int64, Utf8, makeData } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { mapInLanes } from '../../common/map-in-lanes.js';
import { SqlState } from '../../common/sqlstate.js';
import { arrowFieldOf } from '../arrow/arrow-type.js';
import type { RecordBatch } from 'apache-arrow';
import { batchFromData, buildColumnData } from '../arrow/batch-builder.js';
import { takeBatch } from '../arrow/take-rows.js';
import type { FileRecord } from '../catalog/catalog.js';
import { readDataFile } from '../format/data-file-reader.js';
import type { Storage } from '../storage/storage.js';
import { MAX_CACHED_CHANGE_FILE_BYTES, batchBytes, sharedRowGroupCache } from '../scan/row-group-cache.js';
import { filesWithRowsOf } from '../log/tiered-files.js';
import { changeFileExtras, tieredRows } from '../log/tiered-rows.js';
import type { LakeContext } from '../warehouse/lake-context.js';
import type { ChangeBatch } from '../warehouse/warehouse.js';
import { OP_COLUMN, physicalName } from './table-layout.js';
import type { ColumnMetadata, TableMetadata } from './table-metadata.js';

/** Change files read at once by one readChanges. */
const CHANGE_FILES_IN_FLIGHT = 4;

/**
 * table_changes / t$audit_log: the change rows committed by the snapshots after
 * `from` up to `to` on `to`'s lineage, in commit order, then in offset order within the
 * commit's transaction (a tiered file's rows by their `_offset`).
 * On append tables a delete is a deletion vector, not a change row: its newly deleted
 * positions are read back from the target file and reported as -D rows, before the
 * rows the same snapshot added (an UPDATE deletes the old version, then writes the new).
 */
export async function readChanges(ctx: LakeContext, table: TableMetadata, from: bigint | undefined, to: bigint): Promise<ChangeBatch[]> {
  const { catalog, storage } = ctx;
  if (catalog.getSnapshot(table.id, to) === undefined) throw new FloeError(SqlState.undefinedObject, `snapshot ${to} of table "${table.name}" does not exist`);
  const snaps = from === undefined ? catalog.ancestors(table.id, to).reverse() : lineageAfter(ctx, table.id, from, to);
  const out: ChangeBatch[] = [];
  const written = snaps.filter((sid) => catalog.getSnapshot(table.id, sid)!.operation !== 'optimize');
  // Tiered files hold several of these commits: each is read once, its rows dealt out by `_snapshot`.
  const bySnapshot = filesBySnapshot(filesWithRowsOf(catalog, table.id, written));
  // Each commit's change files in (seq, offset) order, sorted once.
  const changeFiles = new Map(written.map((sid) => [sid, (bySnapshot.get(sid) ?? [])
    .filter((f) => f.path !== '' && f.store !== 'dv')
    .sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : a.firstOffset - b.firstOffset))]));
  // The files are read first, four at a time. Read one after another as they were dealt out,
  // each read waited for its own turn of a busy event loop: a refresh's check of five commits'
  // changes took a median 16 ms, about 3 of them work.
  const toRead = new Map<string, FileRecord>();
  for (const sid of written) for (const f of changeFiles.get(sid)!) if (!toRead.has(f.path)) toRead.set(f.path, f);
  const files = [...toRead.values()];
  const read = await mapInLanes(files, CHANGE_FILES_IN_FLIGHT, (f) => decodedChangeFile(storage, f.path, table.columns, changeFileExtras(f, OP_COLUMN, true)));
  const decoded = new Map(files.map((f, i) => [f.path, read[i]!]));
  for (const sid of written) {
    const snap = catalog.getSnapshot(table.id, sid)!;
    for (const d of await deletedRows(ctx, table, bySnapshot.get(sid) ?? [], snap.parentId)) {
      out.push({ snapshotId: sid, seq: d.seq, batch: changeBatch(table, d.rows, '-D', d.seq, sid), firstOffset: undefined });
    }
    const pieces: ChangeBatch[] = [];
    for (const f of changeFiles.get(sid)!) {
      const batches = decoded.get(f.path)!;
      // A plain change file holds one transaction's rows at offsets firstOffset, firstOffset + 1, …
      let offset = f.firstOffset;
      for (const b of batches) {
        const rows = tieredRows(b, f.snapshots === undefined ? undefined : [sid]);
        const firstOffset = offset;
        offset += b.numRows;
        if (rows.batch.numRows === 0) continue;
        // A tiered file's rows of one commit share one transaction's seq.
        const seq = rows.seqs === undefined ? f.seq : rows.seqs[0]!;
        const batch = changeBatch(table, rows.batch, undefined, seq, sid);
        if (f.snapshots === undefined) pieces.push({ snapshotId: sid, seq, batch, firstOffset });
        else pieces.push(...offsetRuns(sid, seq, batch, rows.offsets));
      }
    }
    out.push(...inOffsetOrder(pieces));
  }
  return out;
}

/**
 * A change file (Parquet, or a log locator's range) decoded whole, through the process's
 * row-group cache: files are immutable, and one change set is read by every view over the
 * table at its refresh (and by the refresh's own checks), a tiered file by every reader
 * of any commit it holds.
 */
async function decodedChangeFile(storage: Storage, path: string, columns: readonly ColumnMetadata[], extras: readonly string[]): Promise<readonly RecordBatch[]> {
  const cache = sharedRowGroupCache();
  const key = `${path}\u0000changes\u0000${JSON.stringify([columns.map((c) => [c.fieldId, c.type]), extras])}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const batches = await readDataFile(storage, path, columns, extras);
  if (batches.reduce((n, b) => n + batchBytes(b), 0) <= MAX_CACHED_CHANGE_FILE_BYTES) cache.put(key, batches);
  return batches;
}

/**
 * A tiered file's rows of one commit cut where their `_offset`s stop following each other, so
 * each piece's offsets are firstOffset, firstOffset + 1, … (a tiered file written before
 * `_offset` existed, or rows whose offset is -1: one piece, offsets not known).
 */
function offsetRuns(snapshotId: bigint, seq: bigint, batch: RecordBatch, offsets: BigInt64Array | undefined): ChangeBatch[] {
  if (offsets === undefined) return [{ snapshotId, seq, batch, firstOffset: undefined }];
  const out: ChangeBatch[] = [];
  for (let start = 0; start < offsets.length;) {
    const first = offsets[start]!;
    let end = start + 1;
    if (first < 0n) while (end < offsets.length && offsets[end]! < 0n) end++;
    else while (end < offsets.length && offsets[end] === first + BigInt(end - start)) end++;
    out.push({ snapshotId, seq, batch: batch.slice(start, end), firstOffset: first < 0n ? undefined : Number(first) });
    start = end;
  }
  return out;
}

/**
 * One commit's pieces in its transaction's offset order: a tiered file holds one node's
 * rows, so a statement that wrote several nodes reads back as it was written, not node by
 * node. Pieces whose offsets are not known keep the order they were read in.
 */
function inOffsetOrder(pieces: ChangeBatch[]): ChangeBatch[] {
  if (pieces.some((p) => p.firstOffset === undefined)) return pieces;
  return pieces.sort((a, b) => a.firstOffset! - b.firstOffset!);
}

/**
 * The snapshots after `from` up to `to` on `to`'s lineage, oldest first, walked back from `to`
 * only as far as `from` (a change feed reads one commit at a time: its history is not read).
 */
function lineageAfter(ctx: LakeContext, tableId: number, from: bigint, to: bigint): bigint[] {
  const out: bigint[] = [];
  for (let id: bigint | undefined = to; id !== from; id = ctx.catalog.getSnapshot(tableId, id)?.parentId) {
    // A parent's id is below its child's: past `from`, it is not on the lineage.
    if (id === undefined || id < from) throw new FloeError(SqlState.invalidParameterValue, `snapshot ${from} is not an ancestor of snapshot ${to}`);
    out.push(id);
  }
  return out.reverse();
}

/** Files by the snapshot whose rows they hold: a plain file by the one that added it, a tiered one by each commit it holds. */
function filesBySnapshot(files: readonly FileRecord[]): Map<bigint, FileRecord[]> {
  const out = new Map<bigint, FileRecord[]>();
  const add = (sid: bigint, f: FileRecord): void => {
    let l = out.get(sid);
    if (l === undefined) out.set(sid, l = []);
    l.push(f);
  };
  for (const f of files) {
    if (f.snapshots === undefined) add(f.addedIn, f);
    else for (const sid of f.snapshots) add(sid, f);
  }
  return out;
}

/** Table columns plus _change_type (from the file's _op, or `op` for every row), _seq and _commit_snapshot_id. */
function changeBatch(table: TableMetadata, b: RecordBatch, op: string | undefined, seq: bigint, sid: bigint): RecordBatch {
  const fields = table.columns.map((c) => arrowFieldOf({ name: c.name, type: c.type, fieldId: c.fieldId, nullable: true }));
  const children = table.columns.map((c) => b.data.children[b.schema.fields.findIndex((x) => x.name === physicalName(c.fieldId))]!);
  const opIdx = b.schema.fields.findIndex((x) => x.name === OP_COLUMN);
  const n = b.numRows;
  const ops = op === undefined && opIdx >= 0 ? b.data.children[opIdx]! : buildColumnData({ kind: 'text' }, new Array<string>(n).fill(op ?? '+I'), '_change_type', false);
  fields.push(new Field('_change_type', new Utf8(), false));
  children.push(ops);
  fields.push(new Field('_seq', new Int64(), false));
  children.push(makeData({ type: new Int64(), length: n, data: new BigInt64Array(n).fill(seq) }));
  fields.push(new Field('_commit_snapshot_id', new Int64(), false));
  children.push(makeData({ type: new Int64(), length: n, data: new BigInt64Array(n).fill(sid) }));
  return batchFromData(fields, children, n);
}

/**
 * The rows a snapshot deleted through deletion vectors, from the files it added (read for
 * every snapshot at once: a query a snapshot cost a refresh's table_changes of 50 commits
 * as many catalog reads): a DV holds every deleted position of its target file, so the new
 * ones are those missing from the DV it replaced.
 */
async function deletedRows(ctx: LakeContext, table: TableMetadata, addedFiles: readonly FileRecord[], parentId: bigint | undefined): Promise<{ seq: bigint; rows: RecordBatch }[]> {
  const added = addedFiles.filter((f) => f.store === 'dv' && f.dvTarget !== undefined);
  if (added.length === 0) return [];
  const before: FileRecord[] = parentId === undefined ? [] : ctx.catalog.visibleFiles(table.id, parentId);
  const out: { seq: bigint; rows: RecordBatch }[] = [];
  for (const dv of added) {
    const target = before.find((f) => f.fileId === dv.dvTarget);
    if (target === undefined) continue; // a DV on a file this snapshot also added: nothing visible was deleted
    const old = new Set(before.find((f) => f.store === 'dv' && f.dvTarget === dv.dvTarget)?.dvPositions ?? []);
    const fresh = [...(dv.dvPositions ?? [])].filter((p) => !old.has(p)).sort((a, b) => a - b);
    if (fresh.length === 0) continue;
    let start = 0;
    let k = 0;
    for (const b of await readDataFile(ctx.storage, target.path, table.columns)) {
      const take: number[] = [];
      while (k < fresh.length && fresh[k]! < start + b.numRows) take.push(fresh[k++]! - start);
      if (take.length > 0) out.push({ seq: dv.seq, rows: takeBatch(b, Int32Array.from(take)) });
      start += b.numRows;
    }
  }
  return out;
}
