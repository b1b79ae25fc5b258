import { typeOids } from '../../common/sql-type.js';

/** Pseudo-types of PostgreSQL's polymorphic parameters ("any", anyelement, anyarray). */
const PSEUDO_TYPE_OIDS: Readonly<Record<string, number>> = { any: 2276, anyelement: 2283, anyarray: 2277, record: 2249 };

/** Their names as format_type and regprocedure print them ("any" is quoted: ANY is a keyword). */
export const PSEUDO_TYPE_NAMES: Readonly<Record<number, string>> = { 2276: '"any"', 2283: 'anyelement', 2277: 'anyarray', 2249: 'record' };

/** A pseudo-type's OID by its name, quoted or not; undefined for any other name. */
export function pseudoTypeOid(name: string): number | undefined {
  return PSEUDO_TYPE_OIDS[name.toLowerCase().replaceAll('"', '')];
}

/**
 * The pg_type OID of a function registry's parameter key (int4, text[], any, …),
 * or undefined for a type PostgreSQL's pg_proc cannot name.
 */
export function procArgOid(key: string): number | undefined {
  if (key in PSEUDO_TYPE_OIDS) return PSEUDO_TYPE_OIDS[key];
  const isArray = key.endsWith('[]');
  const entry = (typeOids as Readonly<Record<string, { oid: number; arrayOid: number } | undefined>>)[isArray ? key.slice(0, -2) : key];
  if (!entry) return undefined;
  const oid = isArray ? entry.arrayOid : entry.oid;
  return oid === 0 ? undefined : oid;
}

/** The key under which pg-proc-facts.ts files a registry function: `name(oid oid …)`. */
export function procFactKey(name: string, argKeys: readonly string[]): string {
  return `${name}(${argKeys.map((k) => procArgOid(k) ?? k).join(' ')})`;
}
