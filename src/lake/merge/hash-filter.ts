/**
 * A bitset over the change keys' hashes (merge-on-read, delta folds), about 32 bits a
 * key (64 Ki to 16 Mi bits, cache-resident for the usual few thousand pending rows): a
 * base row whose hash's bit is clear has no change, which is most rows, and is never
 * encoded or looked up. Indexed by the hash's high bits, where hash tables' slots use
 * its low ones.
 */
export class HashFilter {
  readonly #bits: Int32Array;
  readonly #shift: number;

  /** Over `hashes`, those with `included` set (all when it is absent). */
  constructor(hashes: Uint32Array, included?: Uint8Array) {
    let log2 = 16;
    while (log2 < 24 && 1 << log2 < hashes.length * 32) log2++;
    this.#shift = 32 - log2;
    this.#bits = new Int32Array(1 << (log2 - 5));
    for (let g = 0; g < hashes.length; g++) {
      if (included !== undefined && included[g] === 0) continue;
      const b = hashes[g]! >>> this.#shift;
      this.#bits[b >>> 5]! |= 1 << (b & 31);
    }
  }

  /** The rows whose hash may be a change key's, ascending. */
  candidates(hashes: Uint32Array): Int32Array {
    const bits = this.#bits;
    const shift = this.#shift;
    const out = new Int32Array(hashes.length);
    let k = 0;
    for (let r = 0; r < hashes.length; r++) {
      const b = hashes[r]! >>> shift;
      if ((bits[b >>> 5]! & (1 << (b & 31))) !== 0) out[k++] = r;
    }
    return out.subarray(0, k);
  }
}
