import { crc32 } from 'node:zlib';
import type { LogRecordKind } from './commit-log.js';

/**
 * A commit log record on disk: `u32 length | u32 crc32 | u8 kind | payload`, little-endian.
 * `length` counts kind and payload; the CRC (zlib's crc32) covers the same bytes, so a
 * record cut anywhere, or zero-filled past the end of what reached the disk, fails to decode.
 */
export const FRAME_HEADER_BYTES = 9;
/** The largest kind + payload a u32 length can state. */
export const MAX_FRAME_BODY_BYTES = 0xffff_ffff;

const KIND_CODES: Readonly<Record<LogRecordKind, number>> = { commit: 1, void: 2 };
const KINDS_BY_CODE: ReadonlyMap<number, LogRecordKind> = new Map([[1, 'commit'], [2, 'void']]);

export type DecodedFrame =
  | { readonly ok: true; readonly kind: LogRecordKind; readonly payloadStart: number; readonly end: number }
  | {
    readonly ok: false;
    /** `incomplete`: the header or the stated length runs past the end of the buffer. */
    readonly reason: 'incomplete' | 'zero-length' | 'checksum' | 'unknown-kind';
    /** For `incomplete`: the bytes from `pos` a buffer must hold to decide (at least the header). */
    readonly needed: number;
  };

/**
 * The 9-byte header of a record whose payload is `parts` concatenated. The parts are not
 * copied: the caller writes header and parts together (writev).
 */
export function encodeFrameHeader(kind: LogRecordKind, parts: readonly Uint8Array[]): Uint8Array {
  const code = KIND_CODES[kind];
  const kindByte = Uint8Array.of(code);
  let crc = crc32(kindByte);
  let bodyBytes = 1;
  for (const part of parts) {
    crc = crc32(part, crc);
    bodyBytes += part.byteLength;
  }
  if (bodyBytes > MAX_FRAME_BODY_BYTES) throw new RangeError(`log record of ${bodyBytes} bytes exceeds ${MAX_FRAME_BODY_BYTES}`);
  const header = new Uint8Array(FRAME_HEADER_BYTES);
  const view = new DataView(header.buffer);
  view.setUint32(0, bodyBytes, true);
  view.setUint32(4, crc, true);
  header[8] = code;
  return header;
}

/** Decodes the record starting at `pos` of `buf`, or says why there is none. */
export function decodeFrame(buf: Uint8Array, pos: number): DecodedFrame {
  if (buf.byteLength - pos < FRAME_HEADER_BYTES) return { ok: false, reason: 'incomplete', needed: FRAME_HEADER_BYTES };
  const bodyBytes = readUint32LE(buf, pos);
  if (bodyBytes === 0) return { ok: false, reason: 'zero-length', needed: 0 };
  const end = pos + 8 + bodyBytes;
  if (end > buf.byteLength) return { ok: false, reason: 'incomplete', needed: 8 + bodyBytes };
  const expectedCrc = readUint32LE(buf, pos + 4);
  if (crc32(buf.subarray(pos + 8, end)) !== expectedCrc) return { ok: false, reason: 'checksum', needed: 0 };
  const kind = KINDS_BY_CODE.get(buf[pos + 8]!);
  if (kind === undefined) return { ok: false, reason: 'unknown-kind', needed: 0 };
  return { ok: true, kind, payloadStart: pos + FRAME_HEADER_BYTES, end };
}

/** Without a DataView per record: replay decodes millions of headers. */
function readUint32LE(buf: Uint8Array, at: number): number {
  return (buf[at]! | (buf[at + 1]! << 8) | (buf[at + 2]! << 16) | (buf[at + 3]! << 24)) >>> 0;
}
