import type { Data } from 'apache-arrow';

/**
 * Per row of a Utf8 Data, 1 when `piece` occurs within the row's bytes. The
 * search runs over the whole values buffer with Buffer.indexOf (native, far
 * faster than a JS loop per row) and maps each occurrence to its row: a LIKE
 * '%special%requests%' over 1.5M o_comment values then tests by hand only the
 * few rows that hold "requests" at all.
 */
export function rowsContaining(data: Data, piece: Uint8Array): Uint8Array {
  const offsets = data.valueOffsets as Int32Array;
  const bytes = data.values as Uint8Array;
  const n = data.length;
  const out = new Uint8Array(n);
  if (n === 0) return out;
  const haystack = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const needle = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
  const end = offsets[n]!;
  let row = 0;
  let at = haystack.indexOf(needle, offsets[0]!);
  while (at >= 0 && at + piece.length <= end) {
    // Occurrences come in order, so the row holding one only moves forward.
    while (offsets[row + 1]! <= at) row++;
    const rowEnd = offsets[row + 1]!;
    if (at + piece.length <= rowEnd) {
      out[row] = 1;
      if (++row >= n) break;
      at = haystack.indexOf(needle, rowEnd);
    } else {
      // It runs into the next row: look again from the next byte.
      at = haystack.indexOf(needle, at + 1);
    }
  }
  return out;
}
