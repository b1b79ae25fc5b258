import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { hashKeyBatch } from '../bucket/key-hash.js';
import type { Catalog } from '../catalog/catalog.js';
import { readDataFile } from '../format/data-file-reader.js';
import { filesWithRowsOf } from '../log/tiered-files.js';
import { changeFileExtras, tieredRows } from '../log/tiered-rows.js';
import { snapshotsSince } from '../refs/snapshots-since.js';
import type { Storage } from '../storage/storage.js';
import { OP_COLUMN, keyColumnsOf, keyTypesOf, physicalName } from '../table/table-layout.js';
import type { TableMetadata } from '../table/table-metadata.js';

/**
 * Snapshot-isolation check of a read-modify-write commit: fails with 40001 when a
 * snapshot committed on the branch after `pinned` (and now part of `head`'s history)
 * wrote a key this transaction writes. Keys are compared by their 32-bit bucket hash,
 * so a hash collision can cause a spurious (retryable) 40001, never a missed conflict.
 * Optimizer snapshots rewrite data without changing it and are skipped.
 */
export async function checkKeyConflicts(
  catalog: Catalog, storage: Storage, table: TableMetadata, pinned: bigint, head: bigint,
  writtenHashes: ReadonlySet<number>, rowsDeletedSince: number,
): Promise<void> {
  if (head === pinned) return;
  const newer = snapshotsSince(catalog, table.id, head, pinned)
    .filter((s) => catalog.getSnapshot(table.id, s)?.operation !== 'optimize');
  if (newer.length === 0) return;
  const files = filesWithRowsOf(catalog, table.id, newer);
  const fail = (): never => {
    throw new FloeError(SqlState.serializationFailure, 'could not serialize access due to concurrent update', {
      detail: `Table "${table.name}" was changed by a transaction that committed after this one's snapshot.`,
      hint: 'Retry the transaction.',
    });
  };
  if (table.primaryKey.length === 0) {
    // Append tables: a row this transaction deletes was deleted by a later commit (deletes-at-head.ts).
    if (rowsDeletedSince > 0) fail();
    return;
  }
  const keyCols = keyColumnsOf(table);
  const keyNames = keyCols.map((c) => physicalName(c.fieldId));
  for (const f of files) {
    if (f.store !== 'change') continue;
    for (const decoded of await readDataFile(storage, f.path, keyCols, changeFileExtras(f, OP_COLUMN))) {
      const b = tieredRows(decoded, f.snapshots).batch;
      const hashes = hashKeyBatch(b, keyNames, keyTypesOf(table));
      for (const h of hashes) if (writtenHashes.has(h)) fail();
    }
  }
}
