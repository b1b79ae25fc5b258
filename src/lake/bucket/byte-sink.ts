/** A growable byte buffer that key serializers append to; reused across rows to avoid allocation. */
export class ByteSink {
  bytes: Uint8Array;
  view: DataView;
  pos = 0;

  constructor(capacity = 256) {
    this.bytes = new Uint8Array(capacity);
    this.view = new DataView(this.bytes.buffer);
  }

  ensure(extra: number): void {
    const need = this.pos + extra;
    if (need <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(need, this.bytes.length * 2));
    grown.set(this.bytes.subarray(0, this.pos));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  /** A 64-bit integer given as low/high 32-bit words, little-endian (Iceberg's long serialization). */
  long(lo: number, hi: number): void {
    this.ensure(8);
    this.view.setInt32(this.pos, lo, true);
    this.view.setInt32(this.pos + 4, hi, true);
    this.pos += 8;
  }

  /** A 4-byte big-endian length prefix (composite keys). */
  int32BE(v: number): void {
    this.ensure(4);
    this.view.setInt32(this.pos, v, false);
    this.pos += 4;
  }

  append(src: Uint8Array, start = 0, end = src.length): void {
    const n = end - start;
    this.ensure(n);
    if (n <= 16) {
      for (let i = 0; i < n; i++) this.bytes[this.pos + i] = src[start + i]!;
    } else {
      this.bytes.set(src.subarray(start, end), this.pos);
    }
    this.pos += n;
  }

  /** Writes a placeholder 4-byte length and returns its position, for filling in with patchLength. */
  reserveLength(): number {
    this.ensure(4);
    const at = this.pos;
    this.pos += 4;
    return at;
  }

  patchLength(at: number): void {
    this.view.setInt32(at, this.pos - at - 4, false);
  }
}
