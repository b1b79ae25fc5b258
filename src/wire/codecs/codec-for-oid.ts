import { INT2VECTOR_OID, OIDVECTOR_OID, PG_NODE_TREE_OID, typeOids } from '../../common/sql-type.js';
import { arrayCodec } from './array-codec.js';
import { vectorCodec } from './vector-codec.js';
import { dateCodec, timeCodec, timestampCodec, timestamptzCodec } from './datetime-codec.js';
import { intervalCodec } from './interval-codec.js';
import { timetzCodec } from './timetz-codec.js';
import { numericCodec } from './numeric-codec.js';
import {
  boolCodec, byteaCodec, charCodec, float4Codec, float8Codec, int2Codec, int4Codec, int8Codec,
  jsonbCodec, jsonCodec, oidCodec, stringCodec, uuidCodec,
} from './scalar-codecs.js';
import type { TypeCodec } from './type-codec.js';

const scalars: readonly TypeCodec[] = [
  boolCodec, byteaCodec, charCodec, stringCodec(typeOids.name.oid, 'name'), int8Codec, int2Codec, int4Codec,
  oidCodec(typeOids.regproc.oid, 'regproc'), oidCodec(typeOids.regprocedure.oid, 'regprocedure'), stringCodec(typeOids.text.oid, 'text'), oidCodec(typeOids.oid.oid, 'oid'),
  jsonCodec, float4Codec, float8Codec, stringCodec(typeOids.bpchar.oid, 'character'),
  stringCodec(typeOids.varchar.oid, 'character varying'), dateCodec, timeCodec, timestampCodec, timestamptzCodec,
  intervalCodec, numericCodec, oidCodec(typeOids.regclass.oid, 'regclass'), oidCodec(typeOids.regtype.oid, 'regtype'),
  uuidCodec, jsonbCodec, stringCodec(typeOids.void.oid, 'void'), stringCodec(PG_NODE_TREE_OID, 'pg_node_tree'), timetzCodec,
];

const registry = new Map<number, TypeCodec>();
for (const c of scalars) registry.set(c.oid, c);
for (const { oid, arrayOid } of Object.values(typeOids)) {
  const element = registry.get(oid);
  if (element !== undefined && arrayOid !== 0) registry.set(arrayOid, arrayCodec(arrayOid, element));
}

registry.set(INT2VECTOR_OID, vectorCodec(INT2VECTOR_OID, 'int2vector', int2Codec));
registry.set(OIDVECTOR_OID, vectorCodec(OIDVECTOR_OID, 'oidvector', registry.get(typeOids.oid.oid)!));

/** Types the wire has no codec for (unknown, or an OID it never heard of) travel as text. */
const fallback = stringCodec(typeOids.unknown.oid, 'unknown');

export function codecForOid(oid: number): TypeCodec {
  return registry.get(oid) ?? fallback;
}

export function hasCodec(oid: number): boolean {
  return registry.has(oid);
}
