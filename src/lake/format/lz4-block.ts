/**
 * LZ4 block decompression (the LZ4_RAW Parquet codec: one block, no frame). Written
 * here because it is a single loop that must write straight into the page buffer the
 * decoder owns; the format is the LZ4 block format specification's.
 *
 * A block is a run of sequences: a token (literal length high nibble, match length
 * low nibble, each extended by 255-continued bytes when 15), the literals, then a
 * 2-byte little-endian offset back into the output and a match of at least 4 bytes.
 * The last sequence has literals only.
 *
 * Text compresses to many short sequences (o_comment at SF 1: 11.7M sequences for
 * 80 MB, matches of 6.5 bytes on average), so the cost is per sequence, not per byte.
 * Bytes move 4 at a time through DataViews, and literal runs up to 8 bytes and the
 * first 8 bytes of a match are copied whole whatever their length (fewer branches
 * to mispredict): 270–360 MB/s on that column against 190–235 copying exactly and
 * about 3× less byte by byte. So `out` must have LZ4_SLACK bytes past `outLength`:
 * a copy may write up to 7 bytes beyond its end, which later bytes overwrite.
 */
export const LZ4_SLACK = 8;

export function decompressLz4Block(src: Uint8Array, start: number, end: number, out: Uint8Array, outLength: number): number {
  if (out.length < outLength + LZ4_SLACK) throw new RangeError('LZ4 output needs slack past its length');
  const from = new DataView(src.buffer, src.byteOffset, src.length);
  const to = new DataView(out.buffer, out.byteOffset, out.length);
  const srcLen = src.length;
  let s = start;
  let o = 0;
  while (s < end) {
    const token = src[s++]!;
    let literals = token >>> 4;
    if (literals !== 0) {
      if (literals === 15) {
        let b = 255;
        while (b === 255 && s < end) { b = src[s++]!; literals += b; }
      }
      if (s + literals > end || o + literals > outLength) throw new Error('LZ4 block overruns its input or output');
      // Reads past the literals stay inside `src`; near its end the copy is exact.
      if (literals <= 8 && s + 8 <= srcLen) {
        to.setUint32(o, from.getUint32(s, true), true);
        to.setUint32(o + 4, from.getUint32(s + 4, true), true);
      } else if (literals > 64) out.set(src.subarray(s, s + literals), o);
      else if (s + literals + 4 <= srcLen) for (let i = 0; i < literals; i += 4) to.setUint32(o + i, from.getUint32(s + i, true), true);
      else for (let i = 0; i < literals; i++) out[o + i] = src[s + i]!;
      o += literals;
      s += literals;
    }
    // The last sequence is literals only (an empty block is a lone 0 token).
    if (s >= end) break;
    const offset = src[s]! | (src[s + 1]! << 8);
    s += 2;
    let length = (token & 15) + 4;
    if (length === 19) {
      let b = 255;
      while (b === 255 && s < end) { b = src[s++]!; length += b; }
    }
    const at = o - offset;
    if (offset === 0 || at < 0 || o + length > outLength || s > end) throw new Error('LZ4 match points outside its output');
    // Each word read lies wholly before the write position when the match is at least 4 back, so overlapping matches copy correctly.
    if (offset >= 8) {
      to.setUint32(o, to.getUint32(at, true), true);
      to.setUint32(o + 4, to.getUint32(at + 4, true), true);
      for (let i = 8; i < length; i += 4) to.setUint32(o + i, to.getUint32(at + i, true), true);
    } else if (offset >= 4) {
      for (let i = 0; i < length; i += 4) to.setUint32(o + i, to.getUint32(at + i, true), true);
    } else {
      // 1–3 bytes back: the match repeats bytes just written, one at a time.
      for (let i = 0; i < length; i++) out[o + i] = out[at + i]!;
    }
    o += length;
  }
  return o;
}
