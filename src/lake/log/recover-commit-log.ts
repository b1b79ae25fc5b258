import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecoverCommitLog, RecoveredRecord } from './commit-log.js';
import { logWriterDir } from './log-locator.js';
import { decodeFrame } from './log-record-frame.js';
import {
  listSegmentFiles, removeSegmentFiles, segmentFileName, segmentKey, type SegmentFile,
} from './log-segment-files.js';

/** Bytes read from a segment at a time: replay reads big chunks, never one read per record. */
const READ_CHUNK_BYTES = 4 << 20;

/**
 * The records of a writer's log from `fromLsn` on (the CommitLog contract's
 * RecoverCommitLog). The log ends at the first torn record, or at a segment that does
 * not start where the one before it ends; recovery cuts the segment there (ftruncate +
 * fsync) and removes every later segment, so a writer resuming the log appends after the
 * last good record. Payloads are views of the read buffers, not copies.
 */
export const recoverCommitLog: RecoverCommitLog = (root, writerId, fromLsn) => ({
  [Symbol.asyncIterator]: () => new CommitLogRecovery(join(root, logWriterDir(writerId)), writerId, fromLsn),
});

/**
 * An async iterator rather than an async generator: each chunk read is decoded in one
 * synchronous pass and its records handed out from an array, so a record costs one
 * resolved promise (replay of a million small records stays well under a second of CPU).
 */
class CommitLogRecovery implements AsyncIterator<RecoveredRecord> {
  readonly #dir: string;
  readonly #writerId: string;
  readonly #fromLsn: bigint;
  #segments: SegmentFile[] | undefined;
  /** Index in #segments of the segment being read. */
  #index = -1;
  #segment: SegmentFile | undefined;
  #key = '';
  #handle: FileHandle | undefined;
  #buf: Uint8Array = new Uint8Array(0);
  /** Segment offset of #buf[0]. */
  #bufStart = 0;
  /** Position in #buf of the first byte not decoded yet. */
  #pos = 0;
  #ready: RecoveredRecord[] = [];
  #readyAt = 0;
  #done = false;

  constructor(dir: string, writerId: string, fromLsn: bigint) {
    this.#dir = dir;
    this.#writerId = writerId;
    this.#fromLsn = fromLsn;
  }

  async next(): Promise<IteratorResult<RecoveredRecord>> {
    while (this.#readyAt === this.#ready.length) {
      if (this.#done) return { value: undefined, done: true };
      try {
        await this.#advance();
      } catch (e) {
        await this.#finish();
        throw e;
      }
    }
    return { value: this.#ready[this.#readyAt++]!, done: false };
  }

  async return(): Promise<IteratorResult<RecoveredRecord>> {
    await this.#finish();
    return { value: undefined, done: true };
  }

  /** Produces the next records, or moves to the next segment, or ends the log. */
  async #advance(): Promise<void> {
    this.#ready = [];
    this.#readyAt = 0;
    if (this.#segments === undefined) this.#segments = await listSegmentFiles(this.#dir);
    const segment = this.#segment;
    if (segment === undefined) return this.#openNextSegment();
    this.#decodeBuffered(segment);
    if (this.#ready.length > 0) return;
    if (this.#bufStart + this.#pos === segment.size) {
      // Clean end of the segment: the next must start right here, or the log ends.
      await this.#closeSegment();
      const next = this.#segments[this.#index + 1];
      if (next !== undefined && next.firstLsn !== segment.firstLsn + BigInt(segment.size)) await this.#endLog(undefined);
      return;
    }
    const frame = decodeFrame(this.#buf, this.#pos);
    const unread = segment.size - (this.#bufStart + this.#buf.byteLength);
    if (frame.ok || frame.reason !== 'incomplete' || unread === 0) return this.#endLog(this.#bufStart + this.#pos);
    // Refill: a fresh buffer (handed-out payloads keep viewing the old one) holding the rest
    // of this record and as much after it as a chunk allows.
    const kept = this.#buf.byteLength - this.#pos;
    const fresh = new Uint8Array(Math.min(kept + unread, Math.max(READ_CHUNK_BYTES, frame.needed)));
    fresh.set(this.#buf.subarray(this.#pos));
    await readFully(this.#handle!, fresh, kept, this.#bufStart + this.#buf.byteLength);
    this.#bufStart += this.#pos;
    this.#buf = fresh;
    this.#pos = 0;
  }

  #decodeBuffered(segment: SegmentFile): void {
    const buf = this.#buf;
    const bufStart = this.#bufStart;
    const firstLsn = segment.firstLsn;
    let pos = this.#pos;
    let lsn = firstLsn + BigInt(bufStart + pos);
    for (;;) {
      const frame = decodeFrame(buf, pos);
      if (!frame.ok) break;
      const end = firstLsn + BigInt(bufStart + frame.end); // also the next record's lsn
      this.#ready.push({
        kind: frame.kind,
        lsn,
        end,
        segmentKey: this.#key,
        payloadOffset: bufStart + frame.payloadStart,
        payload: buf.subarray(frame.payloadStart, frame.end),
      });
      pos = frame.end;
      lsn = end;
    }
    this.#pos = pos;
  }

  async #openNextSegment(): Promise<void> {
    const segments = this.#segments!;
    for (;;) {
      this.#index++;
      const segment = segments[this.#index];
      if (segment === undefined) {
        this.#done = true;
        return;
      }
      const next = segments[this.#index + 1];
      const end = segment.firstLsn + BigInt(segment.size);
      // Wholly before fromLsn (and contiguous with what follows): nothing to read.
      if (end <= this.#fromLsn && next !== undefined && next.firstLsn <= this.#fromLsn) continue;
      const start = this.#fromLsn > segment.firstLsn ? Number(this.#fromLsn - segment.firstLsn) : 0;
      if (start >= segment.size) {
        if (next !== undefined && next.firstLsn !== end) return this.#endLog(undefined);
        continue;
      }
      this.#segment = segment;
      this.#key = segmentKey(this.#writerId, segment.firstLsn);
      this.#handle = await fs.open(join(this.#dir, segmentFileName(segment.firstLsn)), 'r');
      this.#buf = new Uint8Array(0);
      this.#bufStart = start;
      this.#pos = 0;
      return;
    }
  }

  /** The log ends in the current segment (cut at `tornAt`, if given): later segments go. */
  async #endLog(tornAt: number | undefined): Promise<void> {
    const segment = this.#segment;
    await this.#closeSegment();
    this.#done = true;
    if (tornAt !== undefined && segment !== undefined) await cutSegment(this.#dir, segment, tornAt);
    await removeSegmentFiles(this.#dir, this.#segments!.slice(this.#index + 1));
  }

  async #closeSegment(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    this.#segment = undefined;
    await handle?.close();
  }

  async #finish(): Promise<void> {
    this.#done = true;
    this.#ready = [];
    this.#readyAt = 0;
    await this.#closeSegment();
  }
}

async function readFully(handle: FileHandle, into: Uint8Array, from: number, position: number): Promise<void> {
  let filled = from;
  while (filled < into.byteLength) {
    const { bytesRead } = await handle.read(into, filled, into.byteLength - filled, position + (filled - from));
    if (bytesRead === 0) throw new Error('commit log segment shrank while being read');
    filled += bytesRead;
  }
}

async function cutSegment(dir: string, segment: SegmentFile, at: number): Promise<void> {
  const handle = await fs.open(join(dir, segmentFileName(segment.firstLsn)), 'r+');
  try {
    await handle.truncate(at);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
