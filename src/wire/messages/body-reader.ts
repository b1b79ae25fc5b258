import { FloeError } from '../../common/floe-error.js';
import { findInvalidUtf8, invalidUtf8Error } from '../../common/utf8.js';

/** Reads a frontend message body; any overrun or bad string is a protocol violation (08P01). */
export class BodyReader {
  readonly #buf: Buffer;
  #pos = 0;
  readonly #what: string;
  #textError: FloeError | undefined;

  constructor(buf: Buffer, what: string) {
    this.#buf = buf;
    this.#what = what;
  }

  #need(n: number): void {
    if (n < 0 || this.#pos + n > this.#buf.length) {
      throw new FloeError('08P01', `invalid message format`, { detail: `truncated ${this.#what} message`, severity: 'FATAL' });
    }
  }

  get remaining(): number {
    return this.#buf.length - this.#pos;
  }

  int16(): number {
    this.#need(2);
    const v = this.#buf.readInt16BE(this.#pos);
    this.#pos += 2;
    return v;
  }

  int32(): number {
    this.#need(4);
    const v = this.#buf.readInt32BE(this.#pos);
    this.#pos += 4;
    return v;
  }

  uint32(): number {
    this.#need(4);
    const v = this.#buf.readUInt32BE(this.#pos);
    this.#pos += 4;
    return v;
  }

  byte(): number {
    this.#need(1);
    return this.#buf[this.#pos++]!;
  }

  cstring(): string {
    const end = this.#buf.indexOf(0, this.#pos);
    if (end < 0) {
      throw new FloeError('08P01', 'invalid string in message', { detail: `unterminated string in ${this.#what} message`, severity: 'FATAL' });
    }
    const s = this.#buf.toString('utf8', this.#pos, end);
    this.#pos = end + 1;
    return s;
  }

  /**
   * A NUL-terminated string of client text (a query). Bytes that are not UTF-8 do not
   * break the message framing: the string decodes lossily and `textError` keeps
   * PostgreSQL's 22021, which the connection raises as an ordinary statement error.
   */
  clientText(): string {
    const start = this.#pos;
    const s = this.cstring();
    if (this.#textError === undefined) {
      const bad = findInvalidUtf8(this.#buf.subarray(start, this.#pos - 1));
      if (bad !== undefined) this.#textError = invalidUtf8Error(bad.sequence);
    }
    return s;
  }

  /** The 22021 error of the first invalid client text read, if any. */
  get textError(): FloeError | undefined {
    return this.#textError;
  }

  bytes(n: number): Buffer {
    this.#need(n);
    const b = this.#buf.subarray(this.#pos, this.#pos + n);
    this.#pos += n;
    return b;
  }

  rest(): Buffer {
    const b = this.#buf.subarray(this.#pos);
    this.#pos = this.#buf.length;
    return b;
  }

  /** PostgreSQL rejects trailing garbage after a well-formed body. */
  end(): void {
    if (this.#pos !== this.#buf.length) {
      throw new FloeError('08P01', 'invalid message format', { detail: `extra bytes after ${this.#what} message`, severity: 'FATAL' });
    }
  }
}
