import { isLogPath } from '../log/log-locator.js';
import { deleteKeys } from '../storage/delete-keys.js';
import type { TableMetadata } from '../table/table-metadata.js';
import { filesVisibleAtAny } from './files-visible-at-any.js';
import type { LakeContext } from '../warehouse/lake-context.js';
import { nowMicros } from '../warehouse/lake-context.js';
import { firstSnapshotFrom } from '../replication/replication-lsn.js';

/**
 * Expires snapshots older than the cut-off that nothing needs, and deletes the files
 * only they could read. Kept: every ref head; the newest `retainLast` snapshots of each
 * branch; snapshots within a branch's own retention; tags within theirs (an expired
 * tag is dropped); and, for open transactions, everything committed since the oldest
 * one began plus each branch's head at that moment (their read snapshots); and, for
 * durable replication slots, every snapshot the slot has not confirmed yet plus the one
 * before them (a commit's changes are read against its parent).
 * Expired snapshot rows stay as lineage links but can no longer be read (22023).
 * The catalog commit comes before file deletion: a crash in between leaves orphans,
 * never a reference to a missing file.
 */
export async function expireSnapshots(ctx: LakeContext, table: TableMetadata, opts: { olderThanMicros: bigint; retainLast?: number }): Promise<{ expiredSnapshots: number; deletedFiles: number }> {
  const { catalog, storage } = ctx;
  const now = nowMicros();
  // A stale transaction is aborted rather than allowed to pin snapshots forever.
  catalog.abortStaleTxns(now - BigInt(ctx.staleTransactionMs) * 1000n);
  const snaps = catalog.listSnapshots(table.id);
  const byId = new Map(snaps.map((s) => [s.id, s]));
  const keep = new Set<bigint>();
  const retainLast = Math.max(1, opts.retainLast ?? 1);
  const txns = catalog.listTxns();
  const oldestTxn = txns.length === 0 ? undefined : txns.reduce((m, t) => (t.startedMicros < m ? t.startedMicros : m), txns[0]!.startedMicros);
  const slotsFrom = catalog.replication.listSlots().map((s) => firstSnapshotFrom(s.confirmedFlushLsn));
  const oldestSlot = slotsFrom.length === 0 ? undefined : slotsFrom.reduce((m, s) => (s < m ? s : m));
  for (const ref of catalog.listRefs(table.id)) {
    if (ref.kind === 'tag') {
      const head = byId.get(ref.snapshotId);
      if (ref.retainMicros !== undefined && head !== undefined && head.committedAtMicros + ref.retainMicros < now) {
        catalog.deleteRef(table.id, ref.name);
        continue;
      }
      keep.add(ref.snapshotId);
      continue;
    }
    const chain = catalog.ancestors(table.id, ref.snapshotId);
    const cutoff = ref.retainMicros !== undefined && now - ref.retainMicros < opts.olderThanMicros ? now - ref.retainMicros : opts.olderThanMicros;
    let txnHeadKept = false;
    let slotBaseKept = false;
    chain.forEach((id, i) => {
      const s = byId.get(id);
      if (s === undefined || s.expired) return;
      if (i < retainLast || s.committedAtMicros >= cutoff) keep.add(id);
      if (oldestSlot !== undefined) {
        if (id >= oldestSlot) keep.add(id);
        else if (!slotBaseKept) { keep.add(id); slotBaseKept = true; }
      }
      if (oldestTxn !== undefined) {
        if (s.committedAtMicros >= oldestTxn) keep.add(id);
        else if (!txnHeadKept) { keep.add(id); txnHeadKept = true; }
      }
    });
  }
  const toExpire = snaps.filter((s) => !s.expired && !keep.has(s.id) && s.committedAtMicros < opts.olderThanMicros).map((s) => s.id);
  if (toExpire.length === 0) return { expiredSnapshots: 0, deletedFiles: 0 };
  const expiring = new Set(toExpire);
  const live = snaps.filter((s) => !s.expired && !expiring.has(s.id));

  const files = catalog.allFiles(table.id);
  const needed = filesVisibleAtAny(snaps, files, catalog.fileRemovals(table.id), new Set(live.map((s) => s.id)));
  const dead = files.filter((f) => !needed.has(f.fileId));
  catalog.expire(table.id, toExpire, dead.map((f) => f.fileId));
  const deleted = dead.filter((f) => f.path !== '');
  // A log file's bytes lie in its writer's log segment, deleted once no file row points into it (LogStore.releaseSegments).
  await deleteKeys(storage, deleted.filter((f) => !isLogPath(f.path)).map((f) => f.path));
  return { expiredSnapshots: toExpire.length, deletedFiles: deleted.length };
}
