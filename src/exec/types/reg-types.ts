import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { formatType, typeOids } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import type { EvalContext } from '../expr/eval-context.js';

export type RegTypeKind = 'regclass' | 'regtype' | 'regproc' | 'regprocedure';

/**
 * Name ↔ OID lookups for the reg* types, which need the catalog: src/sql's
 * system catalog registers one (relations by search_path, functions by pg_proc).
 * Returning undefined means "not found" (input then fails as PostgreSQL does).
 */
export interface RegTypeResolver {
  toOid(kind: RegTypeKind, name: string, ctx: EvalContext): number | undefined;
  toName(kind: RegTypeKind, oid: number, ctx: EvalContext): string | undefined;
}

let resolver: RegTypeResolver | undefined;

export function registerRegTypeResolver(r: RegTypeResolver): void {
  resolver = r;
}

/** Built-in type names (format_type spelling and internal names) by OID, for regtype without a catalog. */
const typeNameByOid = new Map<number, string>();
const typeOidByName = new Map<string, number>();
for (const [kind, { oid, arrayOid }] of Object.entries(typeOids)) {
  const t = { kind } as SqlType;
  const display = formatType(t);
  typeNameByOid.set(oid, display);
  typeOidByName.set(display, oid);
  typeOidByName.set(kind, oid);
  if (arrayOid) {
    typeNameByOid.set(arrayOid, `${display}[]`);
    typeOidByName.set(`${display}[]`, arrayOid);
    typeOidByName.set(`${kind}[]`, arrayOid);
    typeOidByName.set(`_${kind}`, arrayOid);
  }
}
for (const [alias, kind] of [['int', 'int4'], ['integer', 'int4'], ['smallint', 'int2'], ['bigint', 'int8'], ['real', 'float4'],
  ['double precision', 'float8'], ['boolean', 'bool'], ['varchar', 'varchar'], ['character', 'bpchar'], ['decimal', 'numeric'],
  ['timestamp', 'timestamp'], ['timestamptz', 'timestamptz']] as const) {
  typeOidByName.set(alias, typeOids[kind].oid);
}

function stripQualifier(name: string): string {
  const n = name.trim();
  const unquoted = n.startsWith('"') && n.endsWith('"') ? n.slice(1, -1) : n.toLowerCase();
  return unquoted.replace(/^pg_catalog\./, '');
}

export function regTypeInput(kind: RegTypeKind, text: string, ctx: EvalContext): number {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t) >>> 0;
  if (t === '-') return 0;
  const fromResolver = resolver?.toOid(kind, t, ctx);
  if (fromResolver !== undefined) return fromResolver;
  if (kind === 'regtype') {
    const oid = typeOidByName.get(stripQualifier(t).replace(/\(.*\)/, ''));
    if (oid !== undefined) return oid;
    throw new FloeError(SqlState.undefinedObject, `type "${t}" does not exist`);
  }
  if (kind === 'regclass') throw new FloeError(SqlState.undefinedTable, `relation "${t}" does not exist`);
  throw new FloeError(SqlState.undefinedFunction, `function "${t}" does not exist`);
}

export function regTypeOutput(kind: RegTypeKind, oid: number, ctx: EvalContext): string {
  if (oid === 0) return '-';
  const fromResolver = resolver?.toName(kind, oid, ctx);
  if (fromResolver !== undefined) return fromResolver;
  if (kind === 'regtype') return typeNameByOid.get(oid) ?? String(oid);
  return String(oid);
}
