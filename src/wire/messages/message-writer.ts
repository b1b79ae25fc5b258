import { ByteBuilder } from '../../common/byte-builder.js';

/**
 * A growable output buffer for backend messages. `message()` is the one place
 * that writes the type byte and the length word; message encoders write only
 * their bodies through it.
 */
export class MessageWriter extends ByteBuilder {
  constructor(initialSize = 4096) {
    super(initialSize);
  }

  /** Frames one message: type byte, then an int32 length that covers itself and the body. */
  message(type: string, body: (w: MessageWriter) => void): void {
    this.ensure(5);
    this.buf[this.pos] = type.charCodeAt(0);
    const lengthAt = this.pos + 1;
    this.pos += 5;
    body(this);
    this.buf.writeInt32BE(this.pos - lengthAt, lengthAt);
  }

  /** A length-prefixed value (int32 length, -1 for NULL), as in DataRow and Bind. */
  lengthPrefixed(b: Uint8Array | null): this {
    if (b === null) return this.int32(-1);
    this.int32(b.length);
    return this.bytes(b);
  }

  /** A length-prefixed UTF-8 string written in place, for DataRow text values without a temporary Buffer. */
  lengthPrefixedText(s: string): this {
    this.ensure(4 + s.length * 3);
    const buf = this.buf;
    const start = this.pos + 4;
    // Short ASCII values (numbers, dates, most identifiers) are copied by hand: Buffer.write's per-call cost dominates for them.
    if (s.length <= 32) {
      let i = 0;
      for (; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) break;
        buf[start + i] = c;
      }
      if (i === s.length) {
        buf.writeInt32BE(i, this.pos);
        this.pos = start + i;
        return this;
      }
    }
    const n = buf.write(s, start, 'utf8');
    buf.writeInt32BE(n, this.pos);
    this.pos = start + n;
    return this;
  }

  /** Takes the bytes written so far and empties the writer. */
  take(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.pos));
    this.pos = 0;
    return out;
  }
}
