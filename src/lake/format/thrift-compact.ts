// Thrift compact type ids.
export const T_STOP = 0, T_TRUE = 1, T_FALSE = 2, T_BYTE = 3, T_I16 = 4, T_I32 = 5, T_I64 = 6, T_DOUBLE = 7, T_BINARY = 8, T_LIST = 9, T_SET = 10, T_MAP = 11, T_STRUCT = 12;

/**
 * A reader of Thrift's compact protocol, enough for Parquet's footer and page headers.
 * Overruns throw, so a damaged footer or header fails its read rather than reading
 * past its bytes.
 */
export class CompactReader {
  pos: number;
  constructor(readonly b: Uint8Array, start: number) { this.pos = start; }
  byte(): number {
    if (this.pos >= this.b.length) throw new Error('thrift overrun');
    return this.b[this.pos++]!;
  }
  varint(): bigint {
    let shift = 0n; let out = 0n;
    for (;;) {
      const x = this.byte();
      out |= BigInt(x & 0x7f) << shift;
      if ((x & 0x80) === 0) return out;
      shift += 7n;
    }
  }
  /** A zigzag varint that fits a JS number (field ids, i32, sizes). */
  int(): number {
    let shift = 0; let out = 0;
    for (;;) {
      const x = this.byte();
      out += (x & 0x7f) * 2 ** shift;
      if ((x & 0x80) === 0) break;
      shift += 7;
    }
    return out % 2 === 0 ? out / 2 : -(out + 1) / 2;
  }
  long(): bigint {
    const u = this.varint();
    return (u & 1n) === 0n ? u >> 1n : -((u + 1n) >> 1n);
  }
  /** An unsigned varint as a number (sizes, counts, skipped integers): no BigInt on the hot path. */
  size(): number {
    let shift = 0; let out = 0;
    for (;;) {
      const x = this.byte();
      out += (x & 0x7f) * 2 ** shift;
      if ((x & 0x80) === 0) return out;
      shift += 7;
    }
  }
  binary(): Uint8Array {
    const len = this.size();
    if (this.pos + len > this.b.length) throw new Error('thrift overrun');
    const out = this.b.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  /** Iterates a struct's fields: calls `field(id, type)`, which must consume the value or return false to skip it. */
  struct(field: (id: number, type: number) => boolean): void {
    let last = 0;
    for (;;) {
      const h = this.byte();
      const type = h & 0x0f;
      if (type === T_STOP) return;
      const delta = h >> 4;
      const id = delta === 0 ? this.int() : last + delta;
      last = id;
      if (!field(id, type)) this.skip(type);
    }
  }
  list(each: (type: number, i: number) => void): number {
    const h = this.byte();
    let n = h >> 4;
    if (n === 15) n = this.size();
    const type = h & 0x0f;
    for (let i = 0; i < n; i++) each(type, i);
    return n;
  }
  skip(type: number): void {
    switch (type) {
      case T_TRUE: case T_FALSE: return;
      case T_BYTE: this.pos++; return;
      case T_I16: case T_I32: case T_I64: this.size(); return;
      case T_DOUBLE: this.pos += 8; return;
      case T_BINARY: this.binary(); return;
      case T_LIST: case T_SET: this.list((t) => (t === T_TRUE || t === T_FALSE ? this.pos++ : this.skip(t))); return;
      case T_MAP: {
        const n = this.size();
        if (n === 0) return;
        const kv = this.byte();
        for (let i = 0; i < n; i++) { this.skip(kv >> 4); this.skip(kv & 0x0f); }
        return;
      }
      case T_STRUCT: this.struct(() => false); return;
      default: throw new Error(`unknown thrift type ${type}`);
    }
  }
}
