import { parseRaw } from '../parser/pg-parser.js';
import { unwrap, type Raw } from './ast.js';
import { functionSubselect, rangeFunctionCall } from './function-subselect.js';

/**
 * pg_get_publication_tables(pubname) in FROM — a PostgreSQL 15 subscriber reads a
 * publisher's tables through it — is the (relid, attrs, qual) of each table the publication
 * sends. Floe has no column lists or row filters, so attrs and qual are NULL (a subscriber
 * then takes every column, as it does when attrs covers them all). It is bound as the
 * subquery it equals, over pg_publication_tables.
 */
const TEMPLATE = `SELECT c.oid AS relid, NULL::int2[] AS attrs, NULL::text AS qual
  FROM pg_catalog.pg_publication_tables t
  JOIN pg_catalog.pg_namespace n ON n.nspname = t.schemaname
  JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = t.tablename
  WHERE t.pubname = NULL::text`;

const NAME = 'pg_get_publication_tables';

let template: Raw | undefined;

export function isPublicationTablesCall(n: Raw): boolean {
  return rangeFunctionCall(n, NAME, 1) !== undefined;
}

/** The RangeSubselect a `pg_get_publication_tables(x) [AS alias]` FROM item stands for. */
export function publicationTablesSubselect(n: Raw): Raw {
  template ??= parseRaw(TEMPLATE)[0]!.stmt as Raw;
  const select = structuredClone(unwrap(template)[1]) as Raw;
  // The WHERE's right side (`NULL::text`) takes the call's argument, still cast to text.
  unwrap(unwrap(select.whereClause)[1].rexpr)[1].arg = (rangeFunctionCall(n, NAME, 1)!.args as Raw[])[0];
  return functionSubselect(n, select, NAME);
}
