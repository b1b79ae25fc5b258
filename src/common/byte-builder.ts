/**
 * Big-endian bytes written front to back into a growing buffer: the PostgreSQL protocols'
 * integers and strings. The wire's message writer frames messages on top of it; the
 * replication stream builds pgoutput and walsender messages with it.
 */
export class ByteBuilder {
  protected buf: Buffer;
  protected pos = 0;

  constructor(initialSize = 256) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.pos;
  }

  protected ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(v: number): this {
    this.ensure(1);
    this.buf[this.pos++] = v;
    return this;
  }

  char(c: string): this {
    return this.byte(c.charCodeAt(0));
  }

  int16(v: number): this {
    this.ensure(2);
    this.buf.writeInt16BE(v, this.pos);
    this.pos += 2;
    return this;
  }

  uint16(v: number): this {
    this.ensure(2);
    this.buf.writeUInt16BE(v, this.pos);
    this.pos += 2;
    return this;
  }

  int32(v: number): this {
    this.ensure(4);
    this.buf.writeInt32BE(v, this.pos);
    this.pos += 4;
    return this;
  }

  uint32(v: number): this {
    this.ensure(4);
    this.buf.writeUInt32BE(v >>> 0, this.pos);
    this.pos += 4;
    return this;
  }

  int64(v: bigint): this {
    this.ensure(8);
    this.buf.writeBigInt64BE(BigInt.asIntN(64, v), this.pos);
    this.pos += 8;
    return this;
  }

  cstring(s: string): this {
    const n = Buffer.byteLength(s);
    this.ensure(n + 1);
    this.buf.write(s, this.pos, 'utf8');
    this.pos += n;
    this.buf[this.pos++] = 0;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  /** A copy of the bytes written so far. */
  build(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.pos));
  }
}
