import type { SqlType } from '../../common/sql-type.js';
import type { IndexKey } from '../../lake/index.js';
import type { CatalogTableInfo } from './catalog-view.js';
import { BTREE_AM_OID, HASH_AM_OID, namespaceOid } from './catalog-oids.js';
import { deparseIndexExpr, indexExprType, looksLikeFunction } from './deparse-index-expr.js';

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
  /** Every key in order: columns and expression texts, with sort orders. */
  readonly keys: readonly IndexKey[];
  /** INCLUDE (…) columns, after the keys in pg_index and pg_attribute. */
  readonly include: readonly string[];
  /** A partial index's WHERE, as written. */
  readonly predicate: string | undefined;
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
      keys: c.keys ?? c.columns.map((column) => ({ column })), include: c.include ?? [], predicate: c.kind === 'index' ? c.predicate : undefined,
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

function columnTypes(t: CatalogTableInfo): Map<string, SqlType> {
  return new Map(t.columns.map((c) => [c.name, c.type]));
}

/** One key as pg_get_indexdef prints it: a column, or an expression (parenthesized unless a function call). */
function keyText(u: UniqueIndex, k: IndexKey, quote: (s: string) => string, pretty: boolean): string {
  if (k.column !== undefined) return quote(k.column);
  const types = columnTypes(u.table);
  const text = deparseIndexExpr(k.expr!, pretty, types);
  return looksLikeFunction(k.expr!, types) ? text : `(${text})`;
}

/** ASC is the default and sorts NULLs last, DESC first: only what differs is printed. */
function orderText(k: IndexKey): string {
  const nullsFirst = k.nullsFirst ?? k.descending === true;
  return `${k.descending === true ? ' DESC' : ''}${nullsFirst !== (k.descending === true) ? (nullsFirst ? ' NULLS FIRST' : ' NULLS LAST') : ''}`;
}

/**
 * pg_get_indexdef's text: `CREATE UNIQUE INDEX t_a_key ON public.t USING btree (a)`, with
 * INCLUDE, NULLS NOT DISTINCT and WHERE in PostgreSQL's order. `relation` is the table
 * as named (pretty mode leaves off a schema the search path reaches).
 */
export function uniqueIndexDef(u: UniqueIndex, quote: (s: string) => string, pretty = false, relation = `${quote(u.table.namespace)}.${quote(u.table.name)}`): string {
  const keys = u.keys.map((k) => `${keyText(u, k, quote, pretty)}${orderText(k)}`).join(', ');
  const include = u.include.length > 0 ? ` INCLUDE (${u.include.map(quote).join(', ')})` : '';
  const where = u.predicate !== undefined ? ` WHERE ${deparseIndexExpr(u.predicate, pretty, columnTypes(u.table))}` : '';
  return `CREATE ${u.unique ? 'UNIQUE ' : ''}INDEX ${quote(u.name)} ON ${relation} USING ${u.method} (${keys})${include}${u.nullsNotDistinct ? ' NULLS NOT DISTINCT' : ''}${where}`;
}

/** pg_get_indexdef(oid, n, pretty) for n > 0: the n-th column (keys, then INCLUDE columns) without its sort order; '' past the last. */
export function uniqueIndexColumnDef(u: UniqueIndex, n: number, quote: (s: string) => string, pretty: boolean): string {
  const k = u.keys[n - 1];
  if (k !== undefined) return keyText(u, k, quote, pretty);
  const c = u.include[n - 1 - u.keys.length];
  return c === undefined ? '' : quote(c);
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
    relkind: 'i', relnatts: u.keys.length + u.include.length, reltuples: 0,
  }));
}

/**
 * pg_attribute rows of the index relations: (relid, attnum, name), keys then INCLUDE
 * columns. An expression's column is named as PostgreSQL's FigureIndexColname does (the
 * function's name, else `expr`, numbered on a clash) and carries the expression's type.
 */
export function uniqueIndexAttributes(t: CatalogTableInfo): { relid: number; num: number; column: string; type?: SqlType }[] {
  return uniqueIndexesOf(t).flatMap((u) => {
    const taken = new Set<string>();
    const unique = (name: string): string => {
      let out = name;
      for (let i = 1; taken.has(out); i++) out = `${name}${i}`;
      taken.add(out);
      return out;
    };
    const keys = u.keys.map((k, i) => {
      if (k.column !== undefined) return { relid: u.indexOid, num: i + 1, column: unique(k.column) };
      const fn = /^([a-z_][a-z0-9_$]*)\s*\(/i.exec(k.expr!)?.[1]?.toLowerCase();
      return { relid: u.indexOid, num: i + 1, column: unique(looksLikeFunction(k.expr!, columnTypes(t)) && fn !== undefined ? fn : 'expr'), type: indexExprType(k.expr!, columnTypes(t)) };
    });
    return [...keys, ...u.include.map((column, i) => ({ relid: u.indexOid, num: u.keys.length + i + 1, column: unique(column) }))];
  });
}

export function uniquePgIndexRows(t: CatalogTableInfo, collationOf: (column: string) => number): Row[] {
  const attnum = (column: string) => t.columns.findIndex((c) => c.name === column) + 1;
  return uniqueIndexesOf(t).map((u) => ({
    indexrelid: u.indexOid, indrelid: t.id, indnatts: u.keys.length + u.include.length, indnkeyatts: u.keys.length,
    indisunique: u.unique, indnullsnotdistinct: u.nullsNotDistinct, indisprimary: false, indisexclusion: false, indimmediate: u.deferrable === undefined,
    indisclustered: false, indisvalid: true, indcheckxmin: false, indisready: true, indislive: true, indisreplident: false,
    // An expression key is attribute 0; its text is in indexprs.
    indkey: [...u.keys.map((k) => (k.column !== undefined ? attnum(k.column) : 0)), ...u.include.map(attnum)],
    indcollation: u.keys.map((k) => (k.column !== undefined ? collationOf(k.column) : 0)), indclass: u.keys.map(() => 0),
    // PostgreSQL's INDOPTION_DESC (1) and INDOPTION_NULLS_FIRST (2).
    indoption: u.keys.map((k) => (k.descending === true ? 1 : 0) + ((k.nullsFirst ?? k.descending === true) ? 2 : 0)),
    indexprs: indexExpressions(u), indpred: u.predicate !== undefined ? deparseIndexExpr(u.predicate, false, columnTypes(t)) : null,
  }));
}

/**
 * pg_get_expr(expr, table, true) of an index's stored predicate or expression (psql's
 * `\d index` footer): the pretty form of the one whose stored text it is.
 */
export function prettyIndexExpression(t: CatalogTableInfo, stored: string): string | undefined {
  const types = columnTypes(t);
  for (const u of uniqueIndexesOf(t)) {
    for (const source of [u.predicate, ...u.keys.map((k) => k.expr)]) {
      if (source !== undefined && deparseIndexExpr(source, false, types) === stored) return deparseIndexExpr(source, true, types);
    }
  }
  return undefined;
}

/** pg_index.indexprs: the expression keys as pg_get_expr prints them (Floe stores deparsed text, not a node tree). */
function indexExpressions(u: UniqueIndex): string | null {
  const exprs = u.keys.flatMap((k) => (k.expr !== undefined ? [deparseIndexExpr(k.expr, false, columnTypes(u.table))] : []));
  return exprs.length > 0 ? exprs.join(', ') : null;
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
