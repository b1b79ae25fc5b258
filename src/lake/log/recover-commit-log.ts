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
export const recoverCommitLog: RecoverCommitLog = (root, writerId, fromLsn) => recoverRecords(root, writerId, fromLsn);

async function* recoverRecords(root: string, writerId: string, fromLsn: bigint): AsyncGenerator<RecoveredRecord> {
  const dir = join(root, logWriterDir(writerId));
  const segments = await listSegmentFiles(dir);
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const segmentEnd = segment.firstLsn + BigInt(segment.size);
    const next = segments[i + 1];
    if (segmentEnd <= fromLsn && next !== undefined && next.firstLsn <= fromLsn) continue;
    const start = fromLsn > segment.firstLsn ? Number(fromLsn - segment.firstLsn) : 0;
    const tornAt = yield* readSegment(dir, writerId, segment, start);
    if (tornAt !== undefined) {
      await cutSegment(dir, segment, tornAt);
      await removeSegmentFiles(dir, segments.slice(i + 1));
      return;
    }
    if (next !== undefined && next.firstLsn !== segmentEnd) {
      // A gap (or overlap) between segments: nothing past it is part of this log.
      await removeSegmentFiles(dir, segments.slice(i + 1));
      return;
    }
  }
}

/** Yields the segment's records from byte `start` on; returns the offset of a torn record, if any. */
async function* readSegment(
  dir: string, writerId: string, segment: SegmentFile, start: number,
): AsyncGenerator<RecoveredRecord, number | undefined> {
  if (start >= segment.size) return undefined;
  const key = segmentKey(writerId, segment.firstLsn);
  const handle = await fs.open(join(dir, segmentFileName(segment.firstLsn)), 'r');
  try {
    let buf: Uint8Array = new Uint8Array(0);
    let bufStart = start; // segment offset of buf[0]
    let pos = 0;
    while (bufStart + pos < segment.size) {
      const frame = decodeFrame(buf, pos);
      if (frame.ok) {
        const offset = bufStart + pos;
        yield {
          kind: frame.kind,
          lsn: segment.firstLsn + BigInt(offset),
          end: segment.firstLsn + BigInt(bufStart + frame.end),
          segmentKey: key,
          payloadOffset: bufStart + frame.payloadStart,
          payload: buf.subarray(frame.payloadStart, frame.end),
        };
        pos = frame.end;
        continue;
      }
      const unread = segment.size - (bufStart + buf.byteLength);
      if (frame.reason !== 'incomplete' || unread === 0) return bufStart + pos;
      // Refill: a fresh buffer (yielded payloads keep viewing the old one) holding the rest
      // of this record and as much after it as a chunk allows.
      const kept = buf.byteLength - pos;
      const want = Math.min(kept + unread, Math.max(READ_CHUNK_BYTES, frame.needed));
      const fresh = new Uint8Array(want);
      fresh.set(buf.subarray(pos));
      await readFully(handle, fresh, kept, bufStart + buf.byteLength);
      bufStart += pos;
      buf = fresh;
      pos = 0;
    }
    return undefined;
  } finally {
    await handle.close();
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
