import { promises as fs, writevSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { FloeError } from '../../common/floe-error.js';
import { endSpan, startSpan } from '../../common/latency-spans.js';
import type { AppendedRecord, CommitLog, LogRecordKind, OpenCommitLogOptions } from './commit-log.js';
import { GroupSync } from './group-sync.js';
import { logIoError } from './log-io-error.js';
import type { LogIoAction } from './log-io-error.js';
import { FRAME_HEADER_BYTES, encodeFrameHeader } from './log-record-frame.js';
import {
  ensureWriterDirectory, listSegmentFiles, segmentFileName, segmentKey, syncDirectory,
} from './log-segment-files.js';
import { recoverCommitLog } from './recover-commit-log.js';

export { recoverCommitLog } from './recover-commit-log.js';

export const DEFAULT_SEGMENT_BYTES = 64 << 20;
/**
 * Zeroes written ahead of the records (PostgreSQL zero-fills its WAL segments for the same
 * reason): an fdatasync of bytes that overwrite allocated blocks flushes only them, while one
 * that grows the file must also commit the filesystem's journal (ext4: the new size and
 * extents), which waits for every other file's ordered data in that journal transaction.
 */
export const DEFAULT_PREALLOCATE_BYTES = 1 << 20;
/** A round's bytes up to this are written synchronously (a page-cache copy of at most a few dozen µs). */
const SYNC_WRITE_MAX_BYTES = 256 << 10;

/**
 * Opens a writer's log for appending: creates its directory and first segment, or resumes
 * an existing log after cutting its torn tail (recovery of the last segment).
 */
export async function openCommitLog(opts: OpenCommitLogOptions): Promise<SegmentedCommitLog> {
  const segmentBytes = opts.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
  if (!Number.isSafeInteger(segmentBytes) || segmentBytes <= 0) throw new RangeError(`segmentBytes must be a positive integer, not ${segmentBytes}`);
  const preallocateBytes = opts.preallocateBytes ?? DEFAULT_PREALLOCATE_BYTES;
  if (!Number.isSafeInteger(preallocateBytes) || preallocateBytes < 0) throw new RangeError(`preallocateBytes must be a non-negative integer, not ${preallocateBytes}`);
  const dir = await ensureWriterDirectory(opts.root, opts.writerId);
  let existing = await listSegmentFiles(dir);
  if (existing.length > 0) {
    // Only the last segment can hold a torn tail: a segment is fully fsynced before the next
    // one gets its first byte. Draining recovery over it cuts the tail.
    for await (const _ of recoverCommitLog(opts.root, opts.writerId, existing[existing.length - 1]!.firstLsn)) { /* scan only */ }
    existing = await listSegmentFiles(dir);
  }
  const segments: Segment[] = [];
  for (const s of existing) {
    const end = s.firstLsn + BigInt(s.size);
    segments.push({ firstLsn: s.firstLsn, key: segmentKey(opts.writerId, s.firstLsn), end });
  }
  let handle: FileHandle;
  if (segments.length === 0) {
    segments.push({ firstLsn: 0n, key: segmentKey(opts.writerId, 0n), end: 0n });
    handle = await fs.open(join(dir, segmentFileName(0n)), 'wx');
    await syncDirectory(dir);
  } else {
    handle = await fs.open(join(dir, segmentFileName(segments[segments.length - 1]!.firstLsn)), 'r+');
  }
  return new SegmentedCommitLog(opts.writerId, dir, segmentBytes, segments, handle, preallocateBytes);
}

interface Segment {
  readonly firstLsn: bigint;
  readonly key: string;
  /** LSN just past the last record appended to it (buffered or written); its file is created by the first sync that writes to it. */
  end: bigint;
}

/** Appended bytes of one segment waiting for a sync, in order. */
interface PendingWrite {
  readonly segment: Segment;
  /** Offset within the segment of the first byte. */
  readonly offset: number;
  readonly chunks: Uint8Array[];
  bytes: number;
}

/**
 * The CommitLog on local segment files. append only queues references to the caller's
 * buffers (which must not change until the covering sync resolves); sync writes them with
 * writev and one fdatasync on libuv's pool, at most one in flight, later callers sharing the next.
 */
export class SegmentedCommitLog implements CommitLog {
  readonly writerId: string;
  readonly #dir: string;
  readonly #segmentBytes: number;
  readonly #segments: Segment[];
  /** Handle of the segment being written (the last one). */
  #handle: FileHandle;
  #handleSegment: Segment;
  #pending: PendingWrite[] = [];
  #nextLsn: bigint;
  /** Everything below this LSN is on disk and fsynced. */
  #durableLsn: bigint;
  /** Write+fdatasync rounds: one in flight, later callers sharing the next. */
  readonly #group = new GroupSync(() => this.#flush(), () => this.#pending.length > 0);
  #poison: FloeError | undefined;
  #closed = false;
  #syncsDone = 0;
  #bytesWritten = 0;
  readonly #preallocateBytes: number;
  #zeroes: Buffer | undefined;
  /** Bytes the file of the segment being written holds (records, then zeroes): a write below this grows nothing. */
  #fileBytes: number;
  /** The zero-fill past #fileBytes in flight, if any: a write reaching past #fileBytes waits for it. It never rejects (it poisons). */
  #zeroing: Promise<void> | undefined;

  constructor(writerId: string, dir: string, segmentBytes: number, segments: Segment[], handle: FileHandle, preallocateBytes = 0) {
    this.writerId = writerId;
    this.#dir = dir;
    this.#segmentBytes = segmentBytes;
    this.#segments = segments;
    this.#handle = handle;
    this.#handleSegment = segments[segments.length - 1]!;
    this.#nextLsn = this.#handleSegment.end;
    this.#durableLsn = this.#nextLsn;
    this.#preallocateBytes = preallocateBytes;
    // An opened segment ends at its last record: recovery cut any zeroes past it.
    this.#fileBytes = Number(this.#handleSegment.end - this.#handleSegment.firstLsn);
  }

  get nextLsn(): bigint {
    return this.#nextLsn;
  }

  /** LSN below which every record is written and fdatasynced. */
  get durableLsn(): bigint {
    return this.#durableLsn;
  }

  /** Write+fdatasync rounds done (a sync with nothing to write does none). */
  get syncsDone(): number {
    return this.#syncsDone;
  }

  /** Bytes written to segment files since open. */
  get bytesWritten(): number {
    return this.#bytesWritten;
  }

  append(kind: LogRecordKind, payload: Uint8Array | readonly Uint8Array[]): AppendedRecord {
    this.#checkUsable();
    const parts: readonly Uint8Array[] = payload instanceof Uint8Array ? [payload] : payload;
    const header = encodeFrameHeader(kind, parts);
    let recordBytes = FRAME_HEADER_BYTES;
    for (const part of parts) recordBytes += part.byteLength;

    let segment = this.#segments[this.#segments.length - 1]!;
    const used = Number(segment.end - segment.firstLsn);
    if (used > 0 && used + recordBytes > this.#segmentBytes) {
      segment = { firstLsn: this.#nextLsn, key: segmentKey(this.writerId, this.#nextLsn), end: this.#nextLsn };
      this.#segments.push(segment);
    }
    const offset = Number(this.#nextLsn - segment.firstLsn);
    let write = this.#pending[this.#pending.length - 1];
    if (write === undefined || write.segment !== segment) {
      write = { segment, offset, chunks: [], bytes: 0 };
      this.#pending.push(write);
    }
    write.chunks.push(header);
    for (const part of parts) if (part.byteLength > 0) write.chunks.push(part);
    write.bytes += recordBytes;

    const lsn = this.#nextLsn;
    this.#nextLsn += BigInt(recordBytes);
    segment.end = this.#nextLsn;
    return { lsn, end: this.#nextLsn, segmentKey: segment.key, payloadOffset: offset + FRAME_HEADER_BYTES };
  }

  sync(): Promise<void> {
    if (this.#poison !== undefined) return Promise.reject(this.#poison);
    if (this.#closed) return Promise.reject(closedError(this.writerId));
    return this.#group.request();
  }

  async truncateBelow(lsn: bigint): Promise<void> {
    // Oldest first, each removal made durable before the next, so a crash leaves a
    // contiguous log (recovery treats a gap between segments as the log's end).
    while (this.#segments.length > 1) {
      const oldest = this.#segments[0]!;
      if (oldest === this.#handleSegment || oldest.end > lsn || oldest.end > this.#durableLsn) break;
      if (this.#pending.some((w) => w.segment === oldest)) break;
      await fs.rm(join(this.#dir, segmentFileName(oldest.firstLsn)), { force: true });
      await syncDirectory(this.#dir);
      if (this.#segments[0] === oldest) this.#segments.shift();
    }
  }

  segments(): readonly { readonly key: string; readonly firstLsn: bigint; readonly endLsn: bigint }[] {
    return this.#segments.map((s) => ({ key: s.key, firstLsn: s.firstLsn, endLsn: s.end }));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (this.#poison === undefined) await this.#group.request();
      await this.#zeroing;
      // A closed log ends at its last record, as a recovered one does.
      if (this.#poison === undefined) {
        await this.#cutZeroes().catch((e: unknown) => {
          this.#poison = logIoError(e, 'truncate', join(this.#dir, segmentFileName(this.#handleSegment.firstLsn)));
        });
      }
    } finally {
      await this.#handle.close().catch(() => undefined);
    }
    if (this.#poison !== undefined) throw this.#poison;
  }

  #checkUsable(): void {
    if (this.#poison !== undefined) throw this.#poison;
    if (this.#closed) throw closedError(this.writerId);
  }

  /** Writes and fdatasyncs everything appended so far, segment by segment. */
  async #flush(): Promise<void> {
    if (this.#poison !== undefined) throw this.#poison;
    const writes = this.#pending;
    this.#pending = [];
    if (writes.length === 0) return;
    let path = join(this.#dir, segmentFileName(this.#handleSegment.firstLsn));
    let action: LogIoAction = 'write to';
    try {
      for (const write of writes) {
        if (write.segment !== this.#handleSegment) {
          // Rollover: the previous segment was fsynced at the end of its own write below. Its
          // zeroes go first, so it ends where its records end: recovery reads the next
          // segment only when it starts exactly there.
          await this.#settleZeroing();
          action = 'truncate';
          await this.#cutZeroes();
          path = join(this.#dir, segmentFileName(write.segment.firstLsn));
          action = 'create';
          const next = await fs.open(path, 'wx');
          await this.#handle.close();
          this.#handle = next;
          this.#handleSegment = write.segment;
          this.#fileBytes = 0;
          await syncDirectory(this.#dir);
        }
        const writeEnd = write.offset + write.bytes;
        // Never beside a zero-fill that could land on these bytes after them.
        if (writeEnd > this.#fileBytes) await this.#settleZeroing();
        action = 'write to';
        const t0 = startSpan();
        // A small write only copies into the page cache: done here, it saves the round trip
        // through libuv's pool that an awaited write costs (a wake-up of this thread, which on a
        // busy machine waits its turn); only the fdatasync below waits on the disk.
        if (write.bytes <= SYNC_WRITE_MAX_BYTES) writeAllSync(this.#handle.fd, write.chunks, write.offset, write.bytes);
        else await writeAll(this.#handle, write.chunks, write.offset, write.bytes);
        endSpan('wal.write', t0);
        this.#bytesWritten += write.bytes;
        if (writeEnd > this.#fileBytes) this.#fileBytes = writeEnd;
        // One fdatasync per segment, before the next segment gets a byte: only the last
        // segment can hold a torn tail after a crash.
        action = 'fdatasync';
        const t1 = startSpan();
        await this.#handle.datasync();
        endSpan('wal.fdatasync', t1);
      }
      this.#syncsDone++;
      const last = writes[writes.length - 1]!;
      this.#durableLsn = last.segment.firstLsn + BigInt(last.offset + last.bytes);
    } catch (e) {
      this.#poison ??= logIoError(e, action, path);
      throw this.#poison;
    }
    this.#zeroAhead();
  }

  /** Waits for the zero-fill in flight; throws if it poisoned the log. */
  async #settleZeroing(): Promise<void> {
    await this.#zeroing;
    if (this.#poison !== undefined) throw this.#poison;
  }

  /**
   * Starts zero-filling the next `preallocateBytes` of the segment when less than half of
   * that is left past the last record, off the commit path: a later round waits for it only
   * if its records reach past what is already filled. Its fdatasync grows the file (a journal
   * commit), once per `preallocateBytes` of records instead of once per round.
   */
  #zeroAhead(): void {
    if (this.#preallocateBytes === 0 || this.#zeroing !== undefined || this.#poison !== undefined || this.#closed) return;
    const segment = this.#handleSegment;
    const used = Number(segment.end - segment.firstLsn);
    const from = this.#fileBytes;
    if (from - used >= this.#preallocateBytes / 2) return;
    const to = Math.min(Math.max(from, used) + this.#preallocateBytes, this.#segmentBytes);
    if (to <= from) return;
    const handle = this.#handle;
    const path = join(this.#dir, segmentFileName(segment.firstLsn));
    const zeroes = this.#zeroes ??= Buffer.alloc(this.#preallocateBytes);
    this.#zeroing = (async () => {
      let action: LogIoAction = 'write to';
      try {
        for (let at = from; at < to;) {
          const { bytesWritten } = await handle.write(zeroes, 0, Math.min(zeroes.byteLength, to - at), at);
          if (bytesWritten === 0) throw Object.assign(new Error('short write'), { code: 'EIO' });
          at += bytesWritten;
        }
        action = 'fdatasync';
        const t0 = startSpan();
        await handle.datasync();
        endSpan('wal.zeroFill', t0);
        if (handle === this.#handle && to > this.#fileBytes) this.#fileBytes = to;
      } catch (e) {
        // Its fdatasync may have taken the error a record's own fdatasync would have reported.
        this.#poison ??= logIoError(e, action, path);
      } finally {
        this.#zeroing = undefined;
      }
    })();
  }

  /** Cuts the zeroes past the last record of the segment being written, durably. */
  async #cutZeroes(): Promise<void> {
    const used = Number(this.#handleSegment.end - this.#handleSegment.firstLsn);
    if (this.#fileBytes <= used) return;
    await this.#handle.truncate(used);
    await this.#handle.sync();
    this.#fileBytes = used;
  }
}

/** writevSync of every chunk, continuing after a short write until all is written or an error says why not. */
function writeAllSync(fd: number, chunks: Uint8Array[], position: number, bytes: number): void {
  let done = 0;
  let rest = chunks;
  while (done < bytes) {
    const written = writevSync(fd, rest, position + done);
    if (written === 0) throw Object.assign(new Error('short write'), { code: 'EIO' });
    done += written;
    if (done < bytes) rest = dropBytes(rest, written);
  }
}

/** writev of every chunk, continuing after a short write until all is written or an error says why not. */
async function writeAll(handle: FileHandle, chunks: Uint8Array[], position: number, bytes: number): Promise<void> {
  let done = 0;
  let rest = chunks;
  while (done < bytes) {
    const { bytesWritten } = await handle.writev(rest, position + done);
    if (bytesWritten === 0) throw Object.assign(new Error('short write'), { code: 'EIO' });
    done += bytesWritten;
    if (done < bytes) rest = dropBytes(rest, bytesWritten);
  }
}

function dropBytes(chunks: Uint8Array[], n: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let skip = n;
  for (const c of chunks) {
    if (skip >= c.byteLength) { skip -= c.byteLength; continue; }
    out.push(skip > 0 ? c.subarray(skip) : c);
    skip = 0;
  }
  return out;
}

function closedError(writerId: string): Error {
  return new Error(`commit log of writer ${writerId} is closed`);
}
