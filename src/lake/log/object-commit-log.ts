import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { endSpan, startSpan } from '../../common/latency-spans.js';
import type { Storage } from '../storage/storage.js';
import type { AppendedRecord, CommitLog, LogRecordKind, RecoveredRecord } from './commit-log.js';
import { logWriterDir } from './log-locator.js';
import { GroupSync } from './group-sync.js';
import { FRAME_HEADER_BYTES, decodeFrame, encodeFrameHeader } from './log-record-frame.js';
import { parseSegmentName, segmentKey } from './log-segment-files.js';

/** One object of the log: the records of one sync, named by the LSN of its first byte. */
interface LogObject {
  readonly firstLsn: bigint;
  readonly key: string;
  /** LSN just past its last record (while pending: the last appended so far). */
  end: bigint;
}

interface PendingObject extends LogObject {
  readonly chunks: Uint8Array[];
}

/**
 * The CommitLog on an object store (docs/design-notes.md, "The log store on object
 * storage"): objects cannot be appended to, so each sync stores the records appended since
 * the previous one as a new object `log/<writer>/<first-lsn>.wal`, and the log is the
 * sequence of those objects, each starting where the one before it ends. A stored object is
 * durable and readable by every host, which is what lets gateways on several hosts share
 * one warehouse with the log on. At most one put is in flight; records appended meanwhile
 * go into the next object (group commit, as on local disk).
 */
export class ObjectCommitLog implements CommitLog {
  readonly writerId: string;
  readonly #storage: Storage;
  /** Stored objects, oldest first. */
  readonly #objects: LogObject[] = [];
  #pending: PendingObject | undefined;
  #nextLsn: bigint;
  readonly #group = new GroupSync(() => this.#store(), () => this.#pending !== undefined);
  #poison: FloeError | undefined;
  #closed = false;

  /** A log of a new writer starts at LSN 0; a writer never reopens its log (a restart is a new writer). */
  constructor(storage: Storage, writerId: string) {
    this.#storage = storage;
    this.writerId = writerId;
    this.#nextLsn = 0n;
  }

  get nextLsn(): bigint {
    return this.#nextLsn;
  }

  append(kind: LogRecordKind, payload: Uint8Array | readonly Uint8Array[]): AppendedRecord {
    if (this.#poison !== undefined) throw this.#poison;
    if (this.#closed) throw new Error(`commit log of writer ${this.writerId} is closed`);
    const parts: readonly Uint8Array[] = payload instanceof Uint8Array ? [payload] : payload;
    const header = encodeFrameHeader(kind, parts);
    let recordBytes = FRAME_HEADER_BYTES;
    for (const part of parts) recordBytes += part.byteLength;
    const object = this.#pending ??= { firstLsn: this.#nextLsn, key: segmentKey(this.writerId, this.#nextLsn), end: this.#nextLsn, chunks: [] };
    const offset = Number(this.#nextLsn - object.firstLsn);
    object.chunks.push(header);
    for (const part of parts) if (part.byteLength > 0) object.chunks.push(part);
    const lsn = this.#nextLsn;
    this.#nextLsn += BigInt(recordBytes);
    object.end = this.#nextLsn;
    return { lsn, end: this.#nextLsn, segmentKey: object.key, payloadOffset: offset + FRAME_HEADER_BYTES };
  }

  sync(): Promise<void> {
    if (this.#poison !== undefined) return Promise.reject(this.#poison);
    if (this.#closed) return Promise.reject(new Error(`commit log of writer ${this.writerId} is closed`));
    return this.#group.request();
  }

  async #store(): Promise<void> {
    if (this.#poison !== undefined) throw this.#poison;
    const object = this.#pending;
    this.#pending = undefined;
    if (object === undefined) return;
    const started = startSpan();
    try {
      await this.#storage.put(object.key, Buffer.concat(object.chunks));
    } catch (e) {
      // The put may have stored the object after all (a timeout after the server took it):
      // like a failed fsync, nobody knows, so nothing more is written to this log.
      this.#poison ??= new FloeError(SqlState.ioError, `could not write to log object "${object.key}": ${(e as Error).message}`, {
        detail: 'The commit log accepts no more records after a failed write: whether the object was stored is unknown.',
        cause: e,
      });
      throw this.#poison;
    }
    endSpan('wal.put', started);
    this.#objects.push({ firstLsn: object.firstLsn, key: object.key, end: object.end });
  }

  async truncateBelow(lsn: bigint): Promise<void> {
    while (this.#objects.length > 0 && this.#objects[0]!.end <= lsn) {
      const oldest = this.#objects[0]!;
      await this.#storage.delete(oldest.key);
      if (this.#objects[0] === oldest) this.#objects.shift();
    }
  }

  segments(): readonly { readonly key: string; readonly firstLsn: bigint; readonly endLsn: bigint }[] {
    const all = this.#pending === undefined ? this.#objects : [...this.#objects, this.#pending];
    return all.map((o) => ({ key: o.key, firstLsn: o.firstLsn, endLsn: o.end }));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    if (this.#poison === undefined) await this.sync();
    this.#closed = true;
  }
}

/**
 * The records of a writer's object log from `fromLsn` on, in order. The log ends at an
 * object that does not start where the one before it ends, or at a record that does not
 * decode; objects are never cut (they are immutable), a reader just stops there.
 */
export function recoverObjectCommitLog(storage: Storage, writerId: string, fromLsn: bigint): AsyncIterable<RecoveredRecord> {
  return { [Symbol.asyncIterator]: () => recoveredObjectRecords(storage, writerId, fromLsn) };
}

/** recoverObjectCommitLog's records: the objects are listed when iteration begins. */
async function* recoveredObjectRecords(storage: Storage, writerId: string, fromLsn: bigint): AsyncGenerator<RecoveredRecord> {
  const objects: { firstLsn: bigint; key: string; size: number }[] = [];
  for (const o of await storage.list(`${logWriterDir(writerId)}/`)) {
    const firstLsn = parseSegmentName(o.key.slice(o.key.lastIndexOf('/') + 1));
    if (firstLsn !== undefined) objects.push({ firstLsn, key: o.key, size: o.size });
  }
  objects.sort((a, b) => (a.firstLsn < b.firstLsn ? -1 : a.firstLsn > b.firstLsn ? 1 : 0));
  let expected: bigint | undefined;
  for (const o of objects) {
    const end = o.firstLsn + BigInt(o.size);
    if (expected !== undefined && o.firstLsn !== expected) return;
    expected = end;
    if (end <= fromLsn) continue;
    const bytes = await storage.get(o.key);
    let pos = fromLsn > o.firstLsn ? Number(fromLsn - o.firstLsn) : 0;
    while (pos < bytes.byteLength) {
      const frame = decodeFrame(bytes, pos);
      if (!frame.ok) return;
      yield {
        kind: frame.kind, lsn: o.firstLsn + BigInt(pos), end: o.firstLsn + BigInt(frame.end),
        segmentKey: o.key, payloadOffset: frame.payloadStart, payload: bytes.subarray(frame.payloadStart, frame.end),
      };
      pos = frame.end;
    }
  }
}
