import { FloeError } from '../common/floe-error.js';
import type { MessageWriter } from './messages/message-writer.js';
import type { CodecContext } from './codecs/codec-context.js';
import { codecForOid } from './codecs/codec-for-oid.js';
import type { TypeCodec } from './codecs/type-codec.js';
import type { ColumnDescription, RowBatch } from './session-handler.js';

/** Expands Bind's format codes (none = all text, one = all alike, else one per item). */
export function resolveFormats(codes: readonly number[], count: number, what: 'parameter' | 'result'): number[] {
  if (codes.length === 0) return new Array<number>(count).fill(0);
  if (codes.length === 1) return new Array<number>(count).fill(codes[0]!);
  if (codes.length !== count) {
    const message = what === 'result'
      ? `bind message has ${codes.length} result formats but query has ${count} columns`
      : `bind message has ${codes.length} parameter formats but ${count} parameters`;
    throw new FloeError('08P01', message);
  }
  return [...codes];
}

/** Turns one row of a batch into DataRow values with each column's codec and format. */
export class RowEncoder {
  readonly #codecs: readonly TypeCodec[];
  readonly #binary: readonly boolean[];

  constructor(columns: readonly ColumnDescription[], formats: readonly number[]) {
    this.#codecs = columns.map((c) => codecForOid(c.codecOid ?? c.typeOid));
    this.#binary = columns.map((_, i) => formats[i] === 1);
  }

  /** Writes one DataRow straight into the output, the hot path for large results. */
  writeRow(w: MessageWriter, batch: RowBatch, row: number, ctx: CodecContext): void {
    const n = this.#codecs.length;
    w.message('D', (b) => {
      b.int16(n);
      for (let i = 0; i < n; i++) {
        const reader = batch.columns[i];
        const v = reader === undefined ? null : reader.get(row);
        if (v === null || v === undefined) b.int32(-1);
        else if (this.#binary[i]) b.lengthPrefixed(this.#codecs[i]!.encodeBinary(v, ctx));
        else b.lengthPrefixedText(this.#codecs[i]!.encodeText(v, ctx));
      }
    });
  }

  encode(batch: RowBatch, row: number, ctx: CodecContext): (Buffer | null)[] {
    const n = this.#codecs.length;
    const out = new Array<Buffer | null>(n);
    for (let i = 0; i < n; i++) {
      const reader = batch.columns[i];
      const v = reader === undefined ? null : reader.get(row);
      if (v === null || v === undefined) {
        out[i] = null;
        continue;
      }
      const codec = this.#codecs[i]!;
      out[i] = this.#binary[i] ? codec.encodeBinary(v, ctx) : Buffer.from(codec.encodeText(v, ctx), 'utf8');
    }
    return out;
  }
}
