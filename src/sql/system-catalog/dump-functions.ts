import type { SqlType } from '../../common/sql-type.js';
import { registerCatalogFunction } from './register-catalog-function.js';

const text: SqlType = { kind: 'text' };
const oid: SqlType = { kind: 'oid' };

/** Functions pg_dump 15's and psql's catalog queries call that no other client does (acldefault: acl-functions.ts). */
export function registerDumpFunctions(): void {
  registerCatalogFunction({ name: 'quote_literal', args: [text], returns: text, impl: (a) => quoteLiteral(a[0] as string) });
  // psql's \df+ shows a SQL-standard function body through it; Floe has no such functions.
  registerCatalogFunction({ name: 'pg_get_function_sqlbody', args: [oid], returns: text, strict: false, impl: () => null });
  // pg_dump strips view options with it: array_remove(c.reloptions, 'check_option=local').
  registerCatalogFunction({
    name: 'array_remove', args: ['anyarray', 'anyelement'], returns: (t) => t[0]!, strict: false,
    impl: (a) => (a[0] === null ? null : (a[0] as unknown[]).filter((e) => !notDistinct(e, a[1]))),
  });
}

/** IS NOT DISTINCT FROM over canonical values (array_remove removes NULLs when asked to). */
function notDistinct(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (typeof a !== 'object' || typeof b !== 'object') return a === b || (typeof a !== typeof b && String(a) === String(b));
  const key = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x instanceof Uint8Array ? [...x] : x));
  return key(a) === key(b);
}

/** PostgreSQL's quote_literal: quotes doubled; a backslash doubled too and the literal written E'…'. */
export function quoteLiteral(s: string): string {
  const body = s.replaceAll("'", "''");
  return s.includes('\\') ? `E'${body.replaceAll('\\', '\\\\')}'` : `'${body}'`;
}
