import { FloeError } from '../common/floe-error.js';
import type { RowBatch } from '../common/session-handler.js';
import type { CodecContext } from './codecs/codec-context.js';
import { codecForOid } from './codecs/codec-for-oid.js';
import type { TypeCodec } from './codecs/type-codec.js';

/**
 * COPY … (FORMAT binary): PostgreSQL's PGCOPY stream. An 11-byte signature,
 * a flags word and a header-extension length, then per row a 16-bit field
 * count and each field as a 32-bit length (-1 for NULL) and the type's binary
 * send form, and a field count of -1 as the trailer.
 */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

function badCopy(message: string): FloeError {
  return new FloeError('22P04', message);
}

export function binaryCopyHeader(): Buffer {
  const b = Buffer.alloc(SIGNATURE.length + 8);
  SIGNATURE.copy(b, 0);
  return b; // flags 0, no header extension
}

export function binaryCopyTrailer(): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(-1, 0);
  return b;
}

/** The rows of a batch in binary COPY form. */
export function encodeBinaryCopyRows(batch: RowBatch, oids: readonly number[], ctx: CodecContext): Buffer {
  const codecs = oids.map(codecForOid);
  const parts: Buffer[] = [];
  for (let r = 0; r < batch.numRows; r++) {
    const count = Buffer.alloc(2);
    count.writeInt16BE(codecs.length, 0);
    parts.push(count);
    for (let c = 0; c < codecs.length; c++) {
      const v = batch.columns[c]!.get(r);
      const len = Buffer.alloc(4);
      if (v === null || v === undefined) {
        len.writeInt32BE(-1, 0);
        parts.push(len);
        continue;
      }
      const data = codecs[c]!.encodeBinary(v, ctx);
      len.writeInt32BE(data.length, 0);
      parts.push(len, data);
    }
  }
  return Buffer.concat(parts);
}

/** Reads a PGCOPY stream arriving in arbitrary chunks into rows of canonical values. */
export class BinaryCopyDecoder {
  readonly #codecs: readonly TypeCodec[];
  readonly #ctx: CodecContext;
  #pending: Buffer = Buffer.alloc(0);
  #headerRead = false;
  #ended = false;

  constructor(oids: readonly number[], ctx: CodecContext) {
    this.#codecs = oids.map(codecForOid);
    this.#ctx = ctx;
  }

  /** Adds a chunk; returns the rows it completed. */
  push(chunk: Uint8Array): unknown[][] {
    this.#pending = this.#pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.#pending, chunk]);
    const rows: unknown[][] = [];
    let at = 0;
    const buf = this.#pending;
    if (!this.#headerRead) {
      if (buf.length < SIGNATURE.length + 8) return rows;
      if (!buf.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw badCopy('COPY file signature not recognized');
      const flags = buf.readInt32BE(SIGNATURE.length);
      if ((flags & 0x10000) !== 0) throw badCopy('invalid COPY file header (WITH OIDS)');
      if ((flags & ~0xffff & ~0x10000) !== 0) throw badCopy('unrecognized critical flags in COPY file header');
      const ext = buf.readInt32BE(SIGNATURE.length + 4);
      if (ext < 0) throw badCopy('invalid COPY file header (missing length)');
      if (buf.length < SIGNATURE.length + 8 + ext) return rows;
      at = SIGNATURE.length + 8 + ext;
      this.#headerRead = true;
    }
    while (!this.#ended && buf.length - at >= 2) {
      const count = buf.readInt16BE(at);
      if (count === -1) { this.#ended = true; at += 2; break; }
      if (count !== this.#codecs.length) throw badCopy(`row field count is ${count}, expected ${this.#codecs.length}`);
      // Parse the whole row before consuming it, so a row split across chunks waits for the rest.
      let p = at + 2;
      const row: unknown[] = [];
      let complete = true;
      for (let c = 0; c < count; c++) {
        if (buf.length - p < 4) { complete = false; break; }
        const len = buf.readInt32BE(p);
        p += 4;
        if (len === -1) { row.push(null); continue; }
        if (len < 0) throw badCopy('invalid field size');
        if (buf.length - p < len) { complete = false; break; }
        row.push(this.#codecs[c]!.decodeBinary(buf.subarray(p, p + len), this.#ctx));
        p += len;
      }
      if (!complete) break;
      rows.push(row);
      at = p;
    }
    this.#pending = buf.subarray(at);
    return rows;
  }

  /** CopyDone: the stream must have ended at a row boundary (the trailer is optional at end of data, as in PostgreSQL). */
  finish(): void {
    if (!this.#headerRead) throw badCopy('COPY file signature not recognized');
    if (this.#pending.length > 0 && !this.#ended) throw badCopy('unexpected EOF in COPY data');
  }
}
