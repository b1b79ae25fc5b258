import type { CodecContext } from './codec-context.js';

/**
 * Text and binary forms of one PostgreSQL type, by OID. Values are in the
 * canonical JavaScript form of src/common/sql-type.ts. Decoders throw a
 * FloeError (22P02, 22003, 22007, 22008 or 22P03) for input PostgreSQL rejects.
 */
export interface TypeCodec {
  readonly oid: number;
  /** The type name PostgreSQL uses in input error messages. */
  readonly name: string;
  encodeText(value: unknown, ctx: CodecContext): string;
  encodeBinary(value: unknown, ctx: CodecContext): Buffer;
  decodeText(text: string, ctx: CodecContext): unknown;
  decodeBinary(data: Buffer, ctx: CodecContext): unknown;
}
