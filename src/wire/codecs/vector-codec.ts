import { arrayCodec } from './array-codec.js';
import type { TypeCodec } from './type-codec.js';

/**
 * int2vector (22) and oidvector (30), the catalogs' key and type lists (pg_index.indkey,
 * pg_proc.proargtypes): as text the elements separated by spaces (`1 2`), which is what
 * pg_dump parses; as binary the array format.
 */
export function vectorCodec(oid: number, name: string, element: TypeCodec): TypeCodec {
  const binary = arrayCodec(oid, element);
  return {
    oid,
    name,
    encodeText: (v, ctx) => (v as readonly unknown[]).map((e) => element.encodeText(e, ctx)).join(' '),
    encodeBinary: (v, ctx) => binary.encodeBinary(v, ctx),
    decodeText: (t, ctx) => (t.trim() === '' ? [] : t.trim().split(/\s+/).map((x) => element.decodeText(x, ctx))),
    decodeBinary: (b, ctx) => binary.decodeBinary(b, ctx),
  };
}
