/**
 * Parquet's RLE / bit-packing hybrid encoding (definition levels, dictionary
 * indices): runs, each a varint header whose low bit says which kind it is —
 * 0: a repeated value (header >> 1 times, stored in ceil(width / 8) bytes, little
 * endian); 1: (header >> 1) groups of 8 values packed `width` bits each, least
 * significant bit first.
 *
 * Decodes `count` values of `width` bits from `buf[start, end)` into `out[at…]`;
 * returns how many it wrote (fewer only when the input ends early).
 */
export function decodeHybrid(buf: Uint8Array, start: number, end: number, width: number, count: number, out: Int32Array, at = 0): number {
  if (width > 32 || width < 0) throw new Error(`bit width ${width} out of range`);
  let p = start;
  let n = 0;
  const mask = width === 32 ? -1 : (1 << width) - 1;
  const valueBytes = (width + 7) >> 3;
  while (n < count && p < end) {
    let header = 0;
    let shift = 0;
    for (;;) {
      if (p >= end) throw new Error('hybrid run header overruns its page');
      const b = buf[p++]!;
      header += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) break;
      shift += 7;
    }
    if ((header & 1) === 0) {
      const run = Math.min(Math.floor(header / 2), count - n);
      let value = 0;
      for (let i = 0; i < valueBytes; i++) value |= buf[p + i]! << (8 * i);
      p += valueBytes;
      out.fill(value & mask, at + n, at + n + run);
      n += run;
    } else {
      const values = Math.floor(header / 2) * 8;
      const bytes = (values * width) >> 3;
      if (p + bytes > end) throw new Error('bit-packed run overruns its page');
      const take = Math.min(values, count - n);
      unpack(buf, p, width, mask, take, out, at + n);
      p += bytes;
      n += take;
    }
  }
  return n;
}

/** `count` values of `width` bits packed from byte `p`, least significant bit first. */
function unpack(buf: Uint8Array, p: number, width: number, mask: number, count: number, out: Int32Array, at: number): void {
  if (width === 0) { out.fill(0, at, at + count); return; }
  if (width <= 24) {
    // Bits not yet used sit in `acc`; a byte is added whenever fewer than `width` remain (at most 31 bits held).
    let acc = 0;
    let bits = 0;
    for (let i = 0; i < count; i++) {
      while (bits < width) { acc |= buf[p++]! << bits; bits += 8; }
      out[at + i] = acc & mask;
      acc >>>= width;
      bits -= width;
    }
    return;
  }
  let bit = 0;
  for (let i = 0; i < count; i++) {
    const byte = p + (bit >>> 3);
    const shift = bit & 7;
    // Bytes past the run read as undefined, i.e. 0: only the last values of a run touch them.
    let word = ((buf[byte]! | (buf[byte + 1]! << 8) | (buf[byte + 2]! << 16) | (buf[byte + 3]! << 24)) >>> shift);
    if (shift + width > 32) word |= buf[byte + 4]! << (32 - shift);
    out[at + i] = word & mask;
    bit += width;
  }
}
