/**
 * One writer's write-ahead log: append-only segments of checksummed records in
 * `log/<writer>/` (docs/design-notes.md, "Log store"). The log knows records and bytes,
 * not tables: the log store (log-store.ts) decides what a record says.
 */

/** What a record is; the payload's meaning belongs to the log store. */
export type LogRecordKind = 'commit' | 'void';

export interface AppendedRecord {
  /** LSN of the record's first byte (its header). */
  readonly lsn: bigint;
  /** LSN just past the record: what a reader that has applied it has seen up to. */
  readonly end: bigint;
  /** Storage key of the segment holding the record (relative to the warehouse root). */
  readonly segmentKey: string;
  /** Byte offset within that segment of the payload's first byte. */
  readonly payloadOffset: number;
}

export interface RecoveredRecord extends AppendedRecord {
  readonly kind: LogRecordKind;
  readonly payload: Uint8Array;
}

export interface CommitLog {
  readonly writerId: string;
  /** LSN where the next record will start. */
  readonly nextLsn: bigint;
  /**
   * Adds a record to the write buffer and returns where it will lie. Not durable, and not
   * readable by others, until a sync that started after this call resolves. A record
   * never spans two segments; a new segment starts when the current one would pass its size.
   */
  append(kind: LogRecordKind, payload: Uint8Array | readonly Uint8Array[]): AppendedRecord;
  /**
   * Writes everything appended so far and fdatasyncs it. Callers that arrive while one
   * sync runs share the next (group commit): at most one write+fsync is in flight.
   * Rejects when the write or fsync fails; the log is then unusable (PostgreSQL's rule:
   * after a failed fsync nobody knows what reached the disk) and every later call rejects.
   */
  sync(): Promise<void>;
  /** Deletes whole segments that end at or below `lsn` (never the one being written). */
  truncateBelow(lsn: bigint): Promise<void>;
  /** Segment keys with the LSN range each covers, oldest first. */
  segments(): readonly { readonly key: string; readonly firstLsn: bigint; readonly endLsn: bigint }[];
  /** Flushes what is buffered and closes the files. */
  close(): Promise<void>;
}

export interface OpenCommitLogOptions {
  /** The warehouse root on local disk (a log in the data store is object-commit-log.ts). */
  readonly root: string;
  readonly writerId: string;
  /** Segment size before a new segment starts (default 64 MiB). */
  readonly segmentBytes?: number;
  /**
   * Bytes of zeroes kept written ahead of the last record, so a commit's fdatasync
   * overwrites allocated blocks instead of growing the file (default 1 MiB; 0: append only).
   * A zero length ends the log at recovery, so the zeroes read as its end.
   */
  readonly preallocateBytes?: number;
}

/**
 * The records of a writer's log from `fromLsn` on, in order, reading segment by segment.
 * A torn tail (a record whose length runs past the end of its segment, or whose checksum
 * fails) ends the log: the segment is cut there and later segments, if any, are removed.
 * Used on a log nobody is appending to (its writer is gone).
 */
export type RecoverCommitLog = (root: string, writerId: string, fromLsn: bigint) => AsyncIterable<RecoveredRecord>;
