import { INT2VECTOR_OID, OIDVECTOR_OID, PG_NODE_TREE_OID, typeLength, typeOids } from '../../common/sql-type.js';
import type { SqlType, SqlTypeKind } from '../../common/sql-type.js';
import { BOOTSTRAP_SUPERUSER_OID, DEFAULT_COLLATION_OID, PG_CATALOG_NAMESPACE_OID } from './catalog-oids.js';

type ScalarKind = Exclude<SqlTypeKind, 'array'>;

/** PostgreSQL's pg_type facts for each Floe type: name, category, I/O function names, alignment. */
const facts: Record<ScalarKind, { name: string; category: string; preferred?: boolean; io: string; align: string; storage: string; collatable?: boolean }> = {
  bool: { name: 'bool', category: 'B', preferred: true, io: 'bool', align: 'c', storage: 'p' },
  bytea: { name: 'bytea', category: 'U', io: 'bytea', align: 'i', storage: 'x' },
  char: { name: 'char', category: 'Z', io: 'char', align: 'c', storage: 'p' },
  name: { name: 'name', category: 'S', io: 'name', align: 'c', storage: 'p', collatable: true },
  int8: { name: 'int8', category: 'N', io: 'int8', align: 'd', storage: 'p' },
  int2: { name: 'int2', category: 'N', io: 'int2', align: 's', storage: 'p' },
  int4: { name: 'int4', category: 'N', io: 'int4', align: 'i', storage: 'p' },
  regproc: { name: 'regproc', category: 'N', io: 'regproc', align: 'i', storage: 'p' },
  regprocedure: { name: 'regprocedure', category: 'N', io: 'regprocedure', align: 'i', storage: 'p' },
  text: { name: 'text', category: 'S', preferred: true, io: 'text', align: 'i', storage: 'x', collatable: true },
  oid: { name: 'oid', category: 'N', preferred: true, io: 'oid', align: 'i', storage: 'p' },
  json: { name: 'json', category: 'U', io: 'json_', align: 'i', storage: 'x' },
  float4: { name: 'float4', category: 'N', io: 'float4', align: 'i', storage: 'p' },
  float8: { name: 'float8', category: 'N', preferred: true, io: 'float8', align: 'd', storage: 'p' },
  unknown: { name: 'unknown', category: 'X', io: 'unknown', align: 'c', storage: 'p' },
  bpchar: { name: 'bpchar', category: 'S', io: 'bpchar', align: 'i', storage: 'x', collatable: true },
  varchar: { name: 'varchar', category: 'S', io: 'varchar', align: 'i', storage: 'x', collatable: true },
  date: { name: 'date', category: 'D', io: 'date_', align: 'i', storage: 'p' },
  time: { name: 'time', category: 'D', io: 'time_', align: 'd', storage: 'p' },
  timestamp: { name: 'timestamp', category: 'D', io: 'timestamp_', align: 'd', storage: 'p' },
  timestamptz: { name: 'timestamptz', category: 'D', preferred: true, io: 'timestamptz_', align: 'd', storage: 'p' },
  interval: { name: 'interval', category: 'T', preferred: true, io: 'interval_', align: 'd', storage: 'p' },
  numeric: { name: 'numeric', category: 'N', io: 'numeric_', align: 'i', storage: 'm' },
  regclass: { name: 'regclass', category: 'N', io: 'regclass', align: 'i', storage: 'p' },
  regtype: { name: 'regtype', category: 'N', io: 'regtype', align: 'i', storage: 'p' },
  uuid: { name: 'uuid', category: 'U', io: 'uuid_', align: 'c', storage: 'p' },
  jsonb: { name: 'jsonb', category: 'U', io: 'jsonb_', align: 'i', storage: 'x' },
  void: { name: 'void', category: 'P', io: 'void_', align: 'i', storage: 'p' },
  timetz: { name: 'timetz', category: 'D', io: 'timetz_', align: 'd', storage: 'p' },
};

/** array_in's real OID: pgjdbc compares typinput with 'pg_catalog.array_in'::regproc. */
export const ARRAY_IN_OID = 750;

export interface TypeEntry {
  readonly oid: number;
  readonly name: string;
  readonly type: SqlType;
}

/** Every type Floe has, scalar and array, with its OID and pg_type name. */
export function allTypes(): TypeEntry[] {
  const out: TypeEntry[] = [];
  for (const kind of Object.keys(typeOids) as ScalarKind[]) {
    const t = { kind } as SqlType;
    out.push({ oid: typeOids[kind].oid, name: facts[kind].name, type: t });
    if (typeOids[kind].arrayOid !== 0) out.push({ oid: typeOids[kind].arrayOid, name: `_${facts[kind].name}`, type: { kind: 'array', element: t } });
  }
  out.push({ oid: PG_NODE_TREE_OID, name: 'pg_node_tree', type: { kind: 'text', catalogType: 'pg_node_tree' } });
  out.push({ oid: INT2VECTOR_OID, name: 'int2vector', type: { kind: 'array', element: { kind: 'int2' }, catalogType: 'int2vector' } });
  out.push({ oid: OIDVECTOR_OID, name: 'oidvector', type: { kind: 'array', element: { kind: 'oid' }, catalogType: 'oidvector' } });
  return out;
}

/** pg_type.typstorage of a Floe type; a column's attstorage is its type's (pg_dump emits SET STORAGE where they differ). */
export function typeStorage(t: SqlType): string {
  if (t.kind === 'text' && t.enumType !== undefined) return 'p';
  return t.kind === 'array' ? (t.catalogType !== undefined ? 'p' : 'x') : facts[t.kind].storage;
}

/** The SqlType of a type OID, for format_type() and friends. */
export function typeForOid(oid: number): SqlType | undefined {
  return allTypes().find((e) => e.oid === oid)?.type;
}

/** pg_type rows, keyed by column name (the table definition fills absent columns with NULL). */
export function pgTypeRows(): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const kind of Object.keys(typeOids) as ScalarKind[]) {
    const f = facts[kind];
    const { oid, arrayOid } = typeOids[kind];
    const len = typeLength({ kind } as SqlType);
    const base = {
      typnamespace: PG_CATALOG_NAMESPACE_OID, typowner: BOOTSTRAP_SUPERUSER_OID, typisdefined: true, typdelim: ',',
      typrelid: 0, typnotnull: false, typbasetype: 0, typtypmod: -1, typndims: 0, typmodin: 0, typmodout: 0, typanalyze: 0,
      typdefaultbin: null, typdefault: null, typacl: null,
    };
    rows.push({
      ...base, oid, typname: f.name, typlen: len, typbyval: len > 0 && len <= 8 && kind !== 'name', typtype: kind === 'unknown' || kind === 'void' ? 'p' : 'b',
      typcategory: f.category, typispreferred: f.preferred ?? false, typsubscript: 0, typelem: 0, typarray: arrayOid,
      typinput: 0, typoutput: 0, typreceive: 0, typsend: 0, typalign: f.align, typstorage: f.storage,
      typcollation: f.collatable ? DEFAULT_COLLATION_OID : 0,
    });
    if (arrayOid !== 0) {
      rows.push({
        ...base, oid: arrayOid, typname: `_${f.name}`, typlen: -1, typbyval: false, typtype: 'b', typcategory: 'A', typispreferred: false,
        typsubscript: 0, typelem: oid, typarray: 0, typinput: ARRAY_IN_OID, typoutput: 0, typreceive: 0, typsend: 0,
        typalign: f.align === 'd' ? 'd' : 'i', typstorage: 'x', typcollation: f.collatable ? DEFAULT_COLLATION_OID : 0,
      });
    }
  }
  // Text in every way but its name and OID; no array type, as in PostgreSQL.
  const text = rows.find((r) => r.oid === typeOids.text.oid)!;
  rows.push({ ...text, oid: PG_NODE_TREE_OID, typname: 'pg_node_tree', typcategory: 'Z', typispreferred: false, typarray: 0 });
  // The catalogs' vectors: arrays of int2 / oid with their own OIDs (their array types are left out).
  for (const [oid, name, elem] of [[INT2VECTOR_OID, 'int2vector', typeOids.int2.oid], [OIDVECTOR_OID, 'oidvector', typeOids.oid.oid]] as const) {
    const elemRow = rows.find((r) => r.oid === elem)!;
    rows.push({
      ...elemRow, oid, typname: name, typlen: -1, typbyval: false, typcategory: 'A', typispreferred: false, typelem: elem, typarray: 0,
      typalign: 'i', typstorage: 'p', typcollation: 0,
    });
  }
  return rows;
}
