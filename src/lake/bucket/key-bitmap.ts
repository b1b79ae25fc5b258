/**
 * A 4096-bit summary of the keys of a change file: bit (hash >>> 20) is set for every
 * key hash. A point read by full key skips change files whose bit is clear, which
 * with many small streaming commits is most of them; 512 bytes per file in the catalog.
 * The top bits are used because bucket nodes are chosen by the low bits.
 */
export const KEY_BITMAP_BYTES = 512;

export function keyBitmapOf(hashes: Uint32Array): Uint8Array {
  return keyBitmapOfAll([hashes]);
}

export function keyBitmapOfAll(hashes: readonly Uint32Array[]): Uint8Array {
  const bits = new Uint8Array(KEY_BITMAP_BYTES);
  for (const part of hashes) {
    for (let i = 0; i < part.length; i++) {
      const b = part[i]! >>> 20;
      bits[b >> 3]! |= 1 << (b & 7);
    }
  }
  return bits;
}

export function keyBitmapMayHold(bits: Uint8Array, hash: number): boolean {
  if (bits.length !== KEY_BITMAP_BYTES) return true;
  const b = (hash >>> 0) >>> 20;
  return ((bits[b >> 3]! >> (b & 7)) & 1) === 1;
}

/** Whether two key bitmaps may name a common key (always, when either is not a key bitmap). */
export function keyBitmapsMayShare(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== KEY_BITMAP_BYTES || b.length !== KEY_BITMAP_BYTES) return true;
  for (let i = 0; i < KEY_BITMAP_BYTES; i++) if ((a[i]! & b[i]!) !== 0) return true;
  return false;
}
