/**
 * Floe's SQL types: one model shared by the catalog (src/lake), the binder and
 * executor, and the wire codecs. Each type is a PostgreSQL type with its real OID,
 * so clients see exactly what a PostgreSQL server would send.
 *
 * Canonical JavaScript values — every layer passes values in this form, so no
 * layer needs to know another's internals:
 *   bool → boolean            int2, int4 → number         int8 → bigint
 *   float4, float8 → number   numeric → string (PostgreSQL's text form, e.g. "-12.50")
 *   text, varchar, bpchar, name, char → string            bytea → Uint8Array
 *   date → number (days since 1970-01-01; ±Infinity for 'infinity')
 *   time → bigint (microseconds since midnight)
 *   timetz → bigint packing time and zone in timetz order (src/common/timetz.ts)
 *   timestamp, timestamptz → bigint (microseconds since 1970-01-01 00:00:00 UTC;
 *     'infinity' and '-infinity' are the int64 extremes, as PostgreSQL stores them)
 *   interval → Interval { months, days, micros: bigint }
 *   uuid → string (lower-case canonical form)    json, jsonb → string (the JSON text)
 *   oid, regclass, regtype, regproc → number    array of T → (T | null)[]
 *   void → '' (what a void function returns: an empty, non-NULL field)
 *   SQL NULL → null
 */
export type SqlType =
  | { readonly kind: 'bool' }
  | { readonly kind: 'int2' }
  | { readonly kind: 'int4' }
  | { readonly kind: 'int8' }
  | { readonly kind: 'float4' }
  | { readonly kind: 'float8' }
  | { readonly kind: 'numeric'; readonly precision?: number; readonly scale?: number }
  | {
      readonly kind: 'text';
      /**
       * A catalog type that is text in every way but its OID: pg_node_tree (194), the type
       * of pg_index.indexprs, pg_attrdef.adbin and the other stored expressions.
       */
      readonly catalogType?: 'pg_node_tree';
      /** A user-defined enum type (CREATE TYPE … AS ENUM): its values are its labels, as text. */
      readonly enumType?: EnumType;
    }
  | { readonly kind: 'varchar'; readonly length?: number }
  | { readonly kind: 'bpchar'; readonly length?: number }
  | { readonly kind: 'name' }
  | { readonly kind: 'char' }
  | { readonly kind: 'bytea' }
  | { readonly kind: 'date' }
  | { readonly kind: 'time' }
  | { readonly kind: 'timestamp' }
  | { readonly kind: 'timestamptz' }
  | { readonly kind: 'interval' }
  | { readonly kind: 'uuid' }
  | { readonly kind: 'json' }
  | { readonly kind: 'jsonb' }
  | { readonly kind: 'oid' }
  | { readonly kind: 'regclass' }
  | { readonly kind: 'regtype' }
  | { readonly kind: 'regproc' }
  | { readonly kind: 'regprocedure' }
  | { readonly kind: 'unknown' }
  | {
      readonly kind: 'array';
      readonly element: SqlType;
      /** The catalogs' vector types: int2vector (22) and oidvector (30), arrays in every way but OID and text form. */
      readonly catalogType?: 'int2vector' | 'oidvector';
    }
  | { readonly kind: 'void' }
  | { readonly kind: 'timetz' };

export type SqlTypeKind = SqlType['kind'];

/**
 * An enum type as a column or expression carries it: a value is one of `labels`, which are
 * in the type's sort order (pg_enum.enumsortorder), so comparisons order by label index.
 */
export interface EnumType {
  /** pg_type oid of the enum type, and of its array type `_name`. */
  readonly oid: number;
  readonly arrayOid: number;
  readonly namespace: string;
  readonly name: string;
  readonly labels: readonly string[];
}

/** The enum type `t` is (text carrying an enum), or undefined. */
export function enumTypeOf(t: SqlType): EnumType | undefined {
  return t.kind === 'text' ? t.enumType : undefined;
}

export interface Interval {
  readonly months: number;
  readonly days: number;
  readonly micros: bigint;
}

/** PostgreSQL's OIDs for each scalar type, and for its array type. */
export const typeOids: Readonly<Record<Exclude<SqlTypeKind, 'array'>, { readonly oid: number; readonly arrayOid: number }>> = {
  bool: { oid: 16, arrayOid: 1000 },
  bytea: { oid: 17, arrayOid: 1001 },
  char: { oid: 18, arrayOid: 1002 },
  name: { oid: 19, arrayOid: 1003 },
  int8: { oid: 20, arrayOid: 1016 },
  int2: { oid: 21, arrayOid: 1005 },
  int4: { oid: 23, arrayOid: 1007 },
  regproc: { oid: 24, arrayOid: 1008 },
  text: { oid: 25, arrayOid: 1009 },
  oid: { oid: 26, arrayOid: 1028 },
  json: { oid: 114, arrayOid: 199 },
  float4: { oid: 700, arrayOid: 1021 },
  float8: { oid: 701, arrayOid: 1022 },
  unknown: { oid: 705, arrayOid: 0 },
  bpchar: { oid: 1042, arrayOid: 1014 },
  varchar: { oid: 1043, arrayOid: 1015 },
  date: { oid: 1082, arrayOid: 1182 },
  time: { oid: 1083, arrayOid: 1183 },
  timestamp: { oid: 1114, arrayOid: 1115 },
  timestamptz: { oid: 1184, arrayOid: 1185 },
  interval: { oid: 1186, arrayOid: 1187 },
  numeric: { oid: 1700, arrayOid: 1231 },
  regclass: { oid: 2205, arrayOid: 2210 },
  regtype: { oid: 2206, arrayOid: 2211 },
  regprocedure: { oid: 2202, arrayOid: 2207 },
  uuid: { oid: 2950, arrayOid: 2951 },
  jsonb: { oid: 3802, arrayOid: 3807 },
  void: { oid: 2278, arrayOid: 0 },
  timetz: { oid: 1266, arrayOid: 1270 },
};

/** pg_node_tree's OID: a text-like catalog type with no array type. */
export const PG_NODE_TREE_OID = 194;

/** int2vector's and oidvector's OIDs (pg_index.indkey, pg_proc.proargtypes). */
export const INT2VECTOR_OID = 22;
export const OIDVECTOR_OID = 30;

export function typeOid(t: SqlType): number {
  if (t.kind === 'text' && t.catalogType === 'pg_node_tree') return PG_NODE_TREE_OID;
  if (t.kind === 'array' && t.catalogType !== undefined) return t.catalogType === 'int2vector' ? INT2VECTOR_OID : OIDVECTOR_OID;
  if (t.kind === 'text' && t.enumType !== undefined) return t.enumType.oid;
  if (t.kind === 'array') {
    if (t.element.kind === 'array') return typeOid(t.element);
    if (t.element.kind === 'text' && t.element.enumType !== undefined) return t.element.enumType.arrayOid;
    return typeOids[t.element.kind].arrayOid;
  }
  return typeOids[t.kind].oid;
}

/** The built-in type whose text and binary forms a value of `t` has: an enum's are text's, an array of enums' text[]'s. */
export function valueTypeOid(t: SqlType): number {
  if (t.kind === 'text' && t.enumType !== undefined) return typeOids.text.oid;
  if (t.kind === 'array' && t.element.kind === 'text' && t.element.enumType !== undefined) return typeOids.text.arrayOid;
  return typeOid(t);
}

/** The atttypmod PostgreSQL reports: -1 when the type has no modifier. */
export function typeModifier(t: SqlType): number {
  switch (t.kind) {
    case 'varchar':
    case 'bpchar':
      return t.length === undefined ? -1 : t.length + 4;
    case 'numeric':
      return t.precision === undefined ? -1 : ((t.precision << 16) | (t.scale ?? 0)) + 4;
    default:
      return -1;
  }
}

/** The fixed width PostgreSQL reports in RowDescription (typlen), or -1 for varlena. */
export function typeLength(t: SqlType): number {
  switch (t.kind) {
    case 'bool': case 'char': return 1;
    case 'int2': return 2;
    case 'int4': case 'float4': case 'date': case 'oid': case 'regclass': case 'regtype': case 'regproc': case 'regprocedure': return 4;
    case 'int8': case 'float8': case 'time': case 'timestamp': case 'timestamptz': return 8;
    case 'timetz': return 12;
    case 'interval': case 'uuid': return 16;
    case 'name': return 64;
    case 'void': return 4;
    case 'unknown': return -2;
    case 'text': return t.enumType === undefined ? -1 : 4;
    default: return -1;
  }
}

/** format_type()'s spelling, e.g. "character varying(25)", "numeric(15,2)", "integer[]". */
export function formatType(t: SqlType): string {
  switch (t.kind) {
    case 'bool': return 'boolean';
    case 'int2': return 'smallint';
    case 'int4': return 'integer';
    case 'int8': return 'bigint';
    case 'float4': return 'real';
    case 'float8': return 'double precision';
    case 'numeric': return t.precision === undefined ? 'numeric' : `numeric(${t.precision},${t.scale ?? 0})`;
    case 'varchar': return t.length === undefined ? 'character varying' : `character varying(${t.length})`;
    case 'bpchar': return t.length === undefined ? 'bpchar' : `character(${t.length})`;
    case 'char': return '"char"';
    case 'time': return 'time without time zone';
    case 'timetz': return 'time with time zone';
    case 'timestamp': return 'timestamp without time zone';
    case 'timestamptz': return 'timestamp with time zone';
    case 'array': return t.catalogType ?? `${formatType(t.element)}[]`;
    case 'text':
      if (t.enumType !== undefined) return formatEnumName(t.enumType);
      return t.catalogType ?? 'text';
    default: return t.kind;
  }
}

/** An enum type's name as format_type() spells it: qualified unless it lives in public (the default search_path). */
export function formatEnumName(e: Pick<EnumType, 'namespace' | 'name'>): string {
  return e.namespace === 'public' || e.namespace === 'pg_catalog' ? quoteTypeName(e.name) : `${quoteTypeName(e.namespace)}.${quoteTypeName(e.name)}`;
}

/** A type or schema name as format_type() writes it: double-quoted unless a plain lower-case identifier. */
export function quoteTypeName(n: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(n) ? n : `"${n.replace(/"/g, '""')}"`;
}
