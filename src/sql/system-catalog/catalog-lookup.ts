import type { VirtualTableRegistry } from '../binder/virtual-table.js';
import { allTypes } from './pg-type-rows.js';
import { lakeWarehouse } from './catalog-view.js';
import { primaryKeyIndexOid } from './catalog-oids.js';
import { findUniqueIndex } from './unique-index-rows.js';

/**
 * Synchronous name ↔ OID lookups for the reg* types, for callers that cannot
 * await a catalog scan: the binder folding `'name'::regproc` constants, and
 * text output of regclass/regtype values.
 */

/** `'[schema.]name'::regclass` → the relation's OID, searching search_path (pg_catalog first) when unqualified. */
export function regclassOid(text: string, warehouse: unknown, registry: VirtualTableRegistry | undefined, searchPath: readonly string[]): number | undefined {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t);
  const parts = splitName(t);
  const name = parts[parts.length - 1]!;
  const schemas = parts.length > 1 ? [parts[parts.length - 2]!] : (searchPath.includes('pg_catalog') ? searchPath : ['pg_catalog', ...searchPath]);
  const w = lakeWarehouse(warehouse);
  for (const s of schemas) {
    const lake = s === 'pg_catalog' || s === 'information_schema' ? undefined
      : w?.listTables(s).find((x) => x.name === name) ?? w?.listViews?.(s).find((x) => x.name === name);
    if (lake) return lake.id;
    const v = registry?.lookup(s, name);
    if (v) return v.oid;
  }
  return undefined;
}

function splitName(text: string): string[] {
  const out: string[] = [];
  const re = /\s*(?:"((?:[^"]|"")*)"|([^."]+))\s*(?:\.|$)/gy;
  let m: RegExpExecArray | null;
  while (re.lastIndex < text.length && (m = re.exec(text)) !== null) {
    out.push(m[1] !== undefined ? m[1].replaceAll('""', '"') : m[2]!.trim().toLowerCase());
    if (m[0] === '') break;
  }
  return out.length > 0 ? out : [text.toLowerCase()];
}

/** A type OID's regtype text: PostgreSQL's own name for it (integer, character varying, text[], …). */
export function regtypeName(oid: number): string | undefined {
  const e = allTypes().find((x) => x.oid === oid);
  if (!e) return undefined;
  return REGTYPE_NAMES[e.name] ?? (e.name.startsWith('_') ? `${REGTYPE_NAMES[e.name.slice(1)] ?? e.name.slice(1)}[]` : e.name);
}

const REGTYPE_NAMES: Readonly<Record<string, string>> = {
  bool: 'boolean', int2: 'smallint', int4: 'integer', int8: 'bigint', float4: 'real', float8: 'double precision',
  varchar: 'character varying', bpchar: 'character', char: '"char"', time: 'time without time zone',
  timestamp: 'timestamp without time zone', timestamptz: 'timestamp with time zone',
};

/** A relation OID's regclass text: its name, schema-qualified when not visible through search_path. */
export function regclassName(oid: number, warehouse: unknown, registry: VirtualTableRegistry | undefined, searchPath: readonly string[]): string | undefined {
  const w = lakeWarehouse(warehouse);
  const t = w?.getTableById?.(oid) ?? w?.listTables().find((x) => x.id === oid);
  const path = searchPath.includes('pg_catalog') ? searchPath : ['pg_catalog', ...searchPath];
  const quote = (s: string) => (/^[a-z_][a-z0-9_$]*$/.test(s) ? s : `"${s.replaceAll('"', '""')}"`);
  if (t) return path.includes(t.namespace) ? quote(t.name) : `${quote(t.namespace)}.${quote(t.name)}`;
  const s = w?.getSequenceById?.(oid) ?? w?.getViewById?.(oid);
  if (s) return path.includes(s.namespace) ? quote(s.name) : `${quote(s.namespace)}.${quote(s.name)}`;
  const v = registry?.list().find((x) => x.oid === oid);
  if (v) return path.includes(v.schema) ? quote(v.name) : `${quote(v.schema)}.${quote(v.name)}`;
  // Index relations: the primary key's, and those of UNIQUE constraints and CREATE INDEX.
  const tables = w?.listTables() ?? [];
  const pk = tables.find((x) => x.primaryKey.length > 0 && primaryKeyIndexOid(x.id) === oid);
  const found = findUniqueIndex(tables, oid);
  const index = pk !== undefined ? { namespace: pk.namespace, name: `${pk.name}_pkey` }
    : found?.indexOid === oid ? { namespace: found.table.namespace, name: found.name } : undefined;
  if (index) return path.includes(index.namespace) ? quote(index.name) : `${quote(index.namespace)}.${quote(index.name)}`;
  return undefined;
}
