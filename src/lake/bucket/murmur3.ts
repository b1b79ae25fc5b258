/**
 * 32-bit MurmurHash3, x86 variant: the hash Iceberg's bucket transform uses
 * (spec, Appendix B) and that places keys in Floe's bucket tree. Results are
 * unsigned (0..2^32−1); Iceberg's published vectors are the same bits read as
 * signed Java ints.
 */
const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function mixK(k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, C2);
}

/**
 * murmur3 fed 32-bit words one at a time, for callers that have a key's bytes as
 * little-endian words already: start at the seed, mix each word, then finish
 * (murmur3Finish) with the byte length. The same hash as murmur3Range over those bytes.
 */
export function murmur3MixWord(h: number, k: number): number {
  h ^= mixK(k);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

export function murmur3Finish(h: number, length: number): number {
  return fmix32(h ^ length);
}

/** murmur3's finalizer: mixes all bits of a 32-bit hash (also used on its own by value-bloom.ts). */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function murmur3X86_32(bytes: Uint8Array, seed = 0): number {
  return murmur3Range(bytes, 0, bytes.length, seed);
}

/** Hash of bytes[start, end) without copying: the vectorized key hashers reuse one scratch buffer. */
export function murmur3Range(bytes: Uint8Array, start: number, end: number, seed = 0): number {
  let h = seed | 0;
  const length = end - start;
  const blockEnd = start + (length & ~3);
  let i = start;
  for (; i < blockEnd; i += 4) {
    h = murmur3MixWord(h, bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
  }
  const tail = length & 3;
  if (tail !== 0) {
    let k = bytes[i]!;
    if (tail > 1) k ^= bytes[i + 1]! << 8;
    if (tail > 2) k ^= bytes[i + 2]! << 16;
    h ^= mixK(k);
  }
  return murmur3Finish(h, length);
}

/**
 * Hash of a 64-bit integer's 8-byte little-endian form, given as its low and high
 * 32-bit words: the hot path for int/long/date/time/timestamp keys, with no bytes built.
 */
export function murmur3Long(lo: number, hi: number, seed = 0): number {
  let h = murmur3MixWord(seed | 0, lo | 0);
  h = murmur3MixWord(h, hi | 0);
  return murmur3Finish(h, 8);
}
