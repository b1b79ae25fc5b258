import { FloeError } from './floe-error.js';
import { SqlState } from './sqlstate.js';

/**
 * PostgreSQL's UTF-8 verification (pg_utf8_verifychar), shared by every path
 * that turns client bytes into text: the wire's strings and parameters, COPY
 * data, E'' escapes, convert_from. Node's decoder would replace bad bytes with
 * U+FFFD; PostgreSQL refuses them with 22021, naming the offending sequence.
 */

/** Length of the sequence a lead byte announces (pg_utf_mblen): 1 for ASCII and for bytes that lead nothing. */
export function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if ((lead & 0xe0) === 0xc0) return 2;
  if ((lead & 0xf0) === 0xe0) return 3;
  if ((lead & 0xf8) === 0xf0) return 4;
  return 1;
}

const continuation = (b: number | undefined): boolean => b !== undefined && b >= 0x80 && b <= 0xbf;

/** pg_utf8_islegal: no overlong forms, no surrogates, nothing past U+10FFFF. */
function legalSequence(bytes: Uint8Array, at: number, length: number): boolean {
  const b0 = bytes[at]!;
  const b1 = bytes[at + 1];
  switch (length) {
    case 2:
      return b0 >= 0xc2 && continuation(b1);
    case 3:
      if (b0 === 0xe0 && !(b1! >= 0xa0 && b1! <= 0xbf)) return false;
      if (b0 === 0xed && !(b1! >= 0x80 && b1! <= 0x9f)) return false;
      return continuation(b1) && continuation(bytes[at + 2]);
    case 4:
      if (b0 > 0xf4) return false;
      if (b0 === 0xf0 && !(b1! >= 0x90 && b1! <= 0xbf)) return false;
      if (b0 === 0xf4 && !(b1! >= 0x80 && b1! <= 0x8f)) return false;
      return continuation(b1) && continuation(bytes[at + 2]) && continuation(bytes[at + 3]);
    default:
      return false;
  }
}

/** The first invalid sequence in `bytes`, as PostgreSQL reports it (a NUL byte counts as invalid), or undefined. */
export function findInvalidUtf8(bytes: Uint8Array): { readonly offset: number; readonly sequence: Uint8Array } | undefined {
  const n = bytes.length;
  for (let i = 0; i < n;) {
    const b = bytes[i]!;
    if (b < 0x80) {
      if (b === 0) return { offset: i, sequence: bytes.subarray(i, i + 1) };
      i++;
      continue;
    }
    const length = sequenceLength(b);
    if (i + length > n || !legalSequence(bytes, i, length)) {
      return { offset: i, sequence: bytes.subarray(i, Math.min(i + length, n)) };
    }
    i += length;
  }
  return undefined;
}

/** 22021 `invalid byte sequence for encoding "UTF8": 0xc3 0x28`. */
export function invalidUtf8Error(sequence: Uint8Array): FloeError {
  const hex = [...sequence].map((b) => `0x${b.toString(16).padStart(2, '0')}`).join(' ');
  return new FloeError(SqlState.characterNotInRepertoire, `invalid byte sequence for encoding "UTF8": ${hex}`);
}

/** Throws 22021 unless `bytes` is valid UTF-8 without NUL bytes. */
export function verifyUtf8(bytes: Uint8Array): void {
  // Pure ASCII without NUL is the common case; skip the sequence walk for it.
  let ascii = true;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0 || b >= 0x80) { ascii = false; break; }
  }
  if (ascii) return;
  const bad = findInvalidUtf8(bytes);
  if (bad !== undefined) throw invalidUtf8Error(bad.sequence);
}

/** Decodes client bytes as UTF-8, refusing what PostgreSQL refuses (22021). */
export function decodeUtf8Strict(bytes: Uint8Array): string {
  verifyUtf8(bytes);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/**
 * Where a chunk of a byte stream can be cut without splitting a character: the
 * length of its prefix that holds only whole sequences (a lead byte near the end
 * whose sequence runs past it starts the remainder).
 */
export function wholeSequencesLength(bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 3); i--) {
    const b = bytes[i]!;
    if (b < 0x80) return bytes.length;
    if (b >= 0xc0) return i + sequenceLength(b) > bytes.length ? i : bytes.length;
  }
  return bytes.length;
}
