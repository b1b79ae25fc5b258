import type pg from 'pg';
import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { sourceColumnType } from './source-column-type.js';
import { quoteIdent, sourceError } from './source-connection.js';

export interface SourceColumn {
  readonly name: string;
  readonly type: SqlType;
  readonly nullable: boolean;
}

/** A table a publication publishes, as the source's catalog describes it. */
export interface SourceTable {
  readonly schema: string;
  readonly name: string;
  /** The published columns in the source's order. */
  readonly columns: readonly SourceColumn[];
  /** Its primary key, or its replica identity index's columns; empty when it has neither. */
  readonly key: readonly string[];
  /** What its UPDATEs and DELETEs carry of the old row (pg_class.relreplident): FULL sends all of it. */
  readonly replicaIdentity: 'default' | 'index' | 'full' | 'nothing';
}

const REPLICA_IDENTITY: Readonly<Record<string, SourceTable['replicaIdentity']>> = { d: 'default', i: 'index', f: 'full', n: 'nothing' };

/** A table with no key whose changes carry the whole old row: applied to a keyless Floe table by row equality. */
export function isKeylessFull(t: SourceTable): boolean {
  return t.key.length === 0 && t.replicaIdentity === 'full';
}

/** `"schema"."name"`, for messages and the source's SQL. */
export function qualifiedName(t: { readonly schema: string; readonly name: string }): string {
  return `${quoteIdent(t.schema)}.${quoteIdent(t.name)}`;
}

/**
 * The tables the publications publish now, each with its published columns and key
 * (PostgreSQL 15's pg_publication_tables, with its column lists).
 */
export async function publishedTables(client: pg.Client, publications: readonly string[]): Promise<SourceTable[]> {
  try {
    const listed = await client.query<{ schemaname: string; tablename: string; attnames: string[] | null }>(
      `SELECT schemaname::text, tablename::text, attnames::text[] AS attnames FROM pg_catalog.pg_publication_tables
        WHERE pubname = ANY($1::text[]) ORDER BY 1, 2`, [publications]);
    const byTable = new Map<string, { schema: string; name: string; columns: Set<string> | undefined }>();
    for (const r of listed.rows) {
      const k = JSON.stringify([r.schemaname, r.tablename]);
      const seen = byTable.get(k);
      // A table in several publications publishes the union of their column lists.
      const cols = r.attnames === null ? undefined : new Set(r.attnames);
      if (seen === undefined) byTable.set(k, { schema: r.schemaname, name: r.tablename, columns: cols });
      else if (seen.columns !== undefined && cols !== undefined) for (const c of cols) seen.columns.add(c);
    }
    const out: SourceTable[] = [];
    for (const t of byTable.values()) out.push(await describeTable(client, t.schema, t.name, t.columns));
    return out;
  } catch (e) {
    throw sourceError(e, 'could not receive list of replicated tables from the publisher');
  }
}

async function describeTable(client: pg.Client, schema: string, name: string, published: ReadonlySet<string> | undefined): Promise<SourceTable> {
  const rel = qualifiedName({ schema, name });
  const cols = await client.query<{ attname: string; atttypid: number; atttypmod: number; attnotnull: boolean }>(
    `SELECT a.attname::text AS attname, a.atttypid::int4 AS atttypid, a.atttypmod, a.attnotnull FROM pg_catalog.pg_attribute a
      WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' ORDER BY a.attnum`, [rel]);
  const keys = await client.query<{ relreplident: string; pk: string[] | null; ri: string[] | null }>(
    `SELECT c.relreplident::text AS relreplident,
       (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM pg_catalog.pg_index i
          CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
          JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
         WHERE i.indrelid = c.oid AND i.indisprimary) AS pk,
       (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM pg_catalog.pg_index i
          CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
          JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
         WHERE i.indrelid = c.oid AND i.indisreplident) AS ri
     FROM pg_catalog.pg_class c WHERE c.oid = $1::regclass`, [rel]);
  const k = keys.rows[0];
  // The key changes arrive by: the replica identity index when there is one, else the primary key.
  const key = (k?.relreplident === 'i' ? k.ri : k?.pk) ?? [];
  return {
    schema, name, key, replicaIdentity: REPLICA_IDENTITY[k?.relreplident ?? 'd'] ?? 'default',
    columns: cols.rows
      .filter((c) => published === undefined || published.has(c.attname) || key.includes(c.attname))
      .map((c) => ({ name: c.attname, type: sourceColumnType(c.atttypid, c.atttypmod), nullable: !c.attnotnull && !key.includes(c.attname) })),
  };
}

/** A table whose UPDATEs and DELETEs Floe could not match to a row: no key, and the old row is not sent whole. */
export function keylessTableError(t: { readonly schema: string; readonly name: string }): FloeError {
  return new FloeError(SqlState.objectNotInPrerequisiteState,
    `table ${qualifiedName(t)} on the publisher has neither a primary key nor a replica identity index, and its replica identity is not FULL`, {
      hint: 'Add a primary key to the source table, set REPLICA IDENTITY USING INDEX on a unique index of NOT NULL columns, '
        + 'or set REPLICA IDENTITY FULL (Floe then keeps it as a table without a key and matches whole rows).',
    });
}
