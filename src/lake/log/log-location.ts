import type { Storage } from '../storage/storage.js';
import type { CommitLog, RecoveredRecord } from './commit-log.js';
import { ObjectCommitLog, recoverObjectCommitLog } from './object-commit-log.js';
import { openCommitLog, recoverCommitLog } from './segmented-commit-log.js';

/**
 * Where a warehouse's log store keeps its writers' logs: segment files in a local directory
 * (one host: every process reads them by path), or objects in the warehouse's object store
 * (several hosts: every gateway reads them by key). Readers of the rows do not care: both
 * name a record's bytes by the same `log/<writer>/<segment>.wal` key, read through Storage.
 */
export type LogLocation =
  | { readonly kind: 'directory'; readonly root: string }
  | { readonly kind: 'objects'; readonly storage: Storage };

/** Opens a new writer's log. */
export function openWriterLog(location: LogLocation, writerId: string, segmentBytes?: number): Promise<CommitLog> {
  switch (location.kind) {
    case 'directory': return openCommitLog({ root: location.root, writerId, ...(segmentBytes === undefined ? {} : { segmentBytes }) });
    case 'objects': return Promise.resolve(new ObjectCommitLog(location.storage, writerId));
  }
}

/** The records of a writer's log from `fromLsn` on (the writer is gone). */
export function recoverWriterLog(location: LogLocation, writerId: string, fromLsn: bigint): AsyncIterable<RecoveredRecord> {
  switch (location.kind) {
    case 'directory': return recoverCommitLog(location.root, writerId, fromLsn);
    case 'objects': return recoverObjectCommitLog(location.storage, writerId, fromLsn);
  }
}
