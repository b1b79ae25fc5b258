import type { CatalogTableInfo } from './catalog-view.js';
import { BTREE_AM_OID, HASH_AM_OID, namespaceOid } from './catalog-oids.js';

/**
 * UNIQUE constraints, unique indexes (CREATE UNIQUE INDEX) and plain indexes (CREATE
 * INDEX) as the catalogs show them. Each is an index relation (pg_class relkind 'i',
 * pg_index); a UNIQUE constraint also has a pg_constraint row (contype 'u') pointing at
 * it. OIDs derive from the table id and the constraint's position in the table's list.
 */
export interface UniqueIndex {
  readonly table: CatalogTableInfo;
  readonly name: string;
  readonly columns: readonly string[];
  readonly isConstraint: boolean;
  readonly nullsNotDistinct: boolean;
  readonly deferrable: 'immediate' | 'deferred' | undefined;
  /** False for a plain CREATE INDEX. */
  readonly unique: boolean;
  /** The access method: btree, or hash for a plain index made USING hash. */
  readonly method: string;
  readonly indexOid: number;
  readonly constraintOid: number;
}

export function uniqueIndexesOf(t: CatalogTableInfo): UniqueIndex[] {
  const out: UniqueIndex[] = [];
  (t.constraints ?? []).forEach((c, position) => {
    if ((c.kind !== 'unique' && c.kind !== 'index') || c.columns === undefined) return;
    const unique = c.kind === 'unique';
    out.push({
      table: t, name: c.name, columns: c.columns, isConstraint: unique && c.indexOnly !== true, nullsNotDistinct: unique && c.nullsNotDistinct === true,
      unique, method: unique ? 'btree' : c.method, deferrable: unique ? c.deferrable : undefined,
      indexOid: 1_100_000_000 + t.id * 64 + position, constraintOid: 1_300_000_000 + t.id * 64 + position,
    });
  });
  return out;
}

export function findUniqueIndex(tables: readonly CatalogTableInfo[], oid: number): UniqueIndex | undefined {
  if (oid < 1_100_000_000 || oid >= 2_000_000_000) return undefined;
  for (const t of tables) {
    const u = uniqueIndexesOf(t).find((x) => x.indexOid === oid || (x.isConstraint && x.constraintOid === oid));
    if (u !== undefined) return u;
  }
  return undefined;
}

function attnums(u: UniqueIndex): number[] {
  return u.columns.map((k) => u.table.columns.findIndex((c) => c.name === k) + 1);
}

/** pg_get_indexdef's text: `CREATE UNIQUE INDEX t_a_key ON public.t USING btree (a)`. */
export function uniqueIndexDef(u: UniqueIndex, quote: (s: string) => string): string {
  return `CREATE ${u.unique ? 'UNIQUE ' : ''}INDEX ${quote(u.name)} ON ${quote(u.table.namespace)}.${quote(u.table.name)} USING ${u.method} (${u.columns.map(quote).join(', ')})${u.nullsNotDistinct ? ' NULLS NOT DISTINCT' : ''}`;
}

/** pg_get_constraintdef's text: `UNIQUE (a, b)`. */
export function uniqueConstraintDef(u: UniqueIndex, quote: (s: string) => string): string {
  const deferrable = u.deferrable === undefined ? '' : u.deferrable === 'deferred' ? ' DEFERRABLE INITIALLY DEFERRED' : ' DEFERRABLE';
  return `UNIQUE ${u.nullsNotDistinct ? 'NULLS NOT DISTINCT ' : ''}(${u.columns.map(quote).join(', ')})${deferrable}`;
}

type Row = Record<string, unknown>;

export function uniquePgClassRows(t: CatalogTableInfo, defaults: Row): Row[] {
  return uniqueIndexesOf(t).map((u) => ({
    ...defaults, oid: u.indexOid, relname: u.name, relnamespace: namespaceOid(t.namespace), relam: u.method === 'hash' ? HASH_AM_OID : BTREE_AM_OID,
    relkind: 'i', relnatts: u.columns.length, reltuples: 0,
  }));
}

/** pg_attribute rows of the index relations: (relid, attnum, column name). */
export function uniqueIndexAttributes(t: CatalogTableInfo): { relid: number; num: number; column: string }[] {
  return uniqueIndexesOf(t).flatMap((u) => u.columns.map((column, i) => ({ relid: u.indexOid, num: i + 1, column })));
}

export function uniquePgIndexRows(t: CatalogTableInfo, collationOf: (column: string) => number): Row[] {
  return uniqueIndexesOf(t).map((u) => ({
    indexrelid: u.indexOid, indrelid: t.id, indnatts: u.columns.length, indnkeyatts: u.columns.length,
    indisunique: u.unique, indnullsnotdistinct: u.nullsNotDistinct, indisprimary: false, indisexclusion: false, indimmediate: u.deferrable === undefined,
    indisclustered: false, indisvalid: true, indcheckxmin: false, indisready: true, indislive: true, indisreplident: false,
    indkey: attnums(u), indcollation: u.columns.map(collationOf), indclass: u.columns.map(() => 0), indoption: u.columns.map(() => 0),
    indexprs: null, indpred: null,
  }));
}

export function uniquePgConstraintRows(t: CatalogTableInfo): Row[] {
  return uniqueIndexesOf(t).filter((u) => u.isConstraint).map((u) => ({
    oid: u.constraintOid, conname: u.name, connamespace: namespaceOid(t.namespace), contype: 'u', condeferrable: u.deferrable !== undefined,
    condeferred: u.deferrable === 'deferred', convalidated: true, conrelid: t.id, contypid: 0, conindid: u.indexOid, conparentid: 0,
    confrelid: 0, confupdtype: ' ', confdeltype: ' ', confmatchtype: ' ', conislocal: true, coninhcount: 0, connoinherit: true,
    conkey: attnums(u), confkey: null, conpfeqop: null, conppeqop: null, conffeqop: null, confdelsetcols: null, conexclop: null, conbin: null,
  }));
}

export function uniquePgIndexesRows(t: CatalogTableInfo): Row[] {
  return uniqueIndexesOf(t).map((u) => ({
    schemaname: t.namespace, tablename: t.name, indexname: u.name, tablespace: null, indexdef: uniqueIndexDef(u, (s) => s),
  }));
}

export function uniqueTableConstraintRows(t: CatalogTableInfo, database: string): Row[] {
  return uniqueIndexesOf(t).filter((u) => u.isConstraint).map((u) => ({
    constraint_catalog: database, constraint_schema: t.namespace, constraint_name: u.name, table_catalog: database,
    table_schema: t.namespace, table_name: t.name, constraint_type: 'UNIQUE', is_deferrable: u.deferrable !== undefined ? 'YES' : 'NO',
    initially_deferred: u.deferrable === 'deferred' ? 'YES' : 'NO', enforced: 'YES',
    nulls_distinct: u.nullsNotDistinct ? 'NO' : 'YES',
  }));
}

export function uniqueKeyColumnUsageRows(t: CatalogTableInfo, database: string): Row[] {
  return uniqueIndexesOf(t).filter((u) => u.isConstraint).flatMap((u) => u.columns.map((k, i) => ({
    constraint_catalog: database, constraint_schema: t.namespace, constraint_name: u.name, table_catalog: database,
    table_schema: t.namespace, table_name: t.name, column_name: k, ordinal_position: i + 1, position_in_unique_constraint: null,
  })));
}
