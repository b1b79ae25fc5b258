import type { SqlType } from '../../common/sql-type.js';
import type { TableConstraint } from '../../lake/index.js';
import { namespaceOid } from './catalog-oids.js';
import type { CatalogTableInfo, CatalogView } from './catalog-view.js';
import { deparseCheck } from './deparse-check.js';

/**
 * The catalog rows of CHECK and FOREIGN KEY constraints: pg_constraint (contype 'c'
 * and 'f'), information_schema's table_constraints, key_column_usage,
 * referential_constraints, check_constraints and constraint_column_usage, and
 * pg_get_constraintdef's text. Foreign keys are recorded, never enforced, and say so
 * as PostgreSQL 18 does (`NOT ENFORCED`); BI tools read them to infer joins.
 */

type Row = Record<string, unknown>;
type Check = Extract<TableConstraint, { kind: 'check' }>;
type ForeignKey = Extract<TableConstraint, { kind: 'foreignKey' }>;

/** A stable OID for a named constraint of a table, in 2,500,000,000 + [0, 4·10^8): no table, index or namespace OID reaches it. */
export function constraintOid(tableId: number, name: string): number {
  let h = 0x811c9dc5;
  const key = `${tableId}:${name}`;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return 2_500_000_000 + (h % 400_000_000);
}

function columnTypes(t: CatalogTableInfo): Map<string, SqlType> {
  return new Map(t.columns.map((c) => [c.name, c.type]));
}

function checksOf(t: CatalogTableInfo): Check[] {
  return (t.constraints ?? []).filter((c): c is Check => c.kind === 'check');
}

function foreignKeysOf(t: CatalogTableInfo): ForeignKey[] {
  return (t.constraints ?? []).filter((c): c is ForeignKey => c.kind === 'foreignKey');
}

function attnums(t: CatalogTableInfo | undefined, columns: readonly string[]): number[] | null {
  if (t === undefined) return null;
  return columns.map((c) => t.columns.findIndex((x) => x.name === c) + 1);
}

function referenced(tables: readonly CatalogTableInfo[], fk: ForeignKey): CatalogTableInfo | undefined {
  return tables.find((x) => x.namespace === fk.refNamespace && x.name === fk.refTable);
}

/** pg_class flags psql's \d reads before it asks for these constraints: relchecks, and relhastriggers (PostgreSQL's foreign keys are triggers). */
export function constraintClassFlags(v: CatalogView, t: CatalogTableInfo): { relchecks: number; relhastriggers?: true } {
  const fk = foreignKeysOf(t).length > 0 || v.tables.some((o) => foreignKeysOf(o).some((f) => f.refNamespace === t.namespace && f.refTable === t.name));
  return { relchecks: checksOf(t).length, ...(fk ? { relhastriggers: true } : {}) };
}

const constraintDefaults: Row = {
  condeferrable: false, condeferred: false, convalidated: true, contypid: 0, conindid: 0, conparentid: 0, conislocal: true, coninhcount: 0,
  conpfeqop: null, conppeqop: null, conffeqop: null, confdelsetcols: null, conexclop: null,
};

export function checkAndForeignKeyConstraintRows(v: CatalogView): Row[] {
  const rows: Row[] = [];
  for (const t of v.tables) {
    for (const c of checksOf(t)) {
      rows.push({
        ...constraintDefaults, oid: constraintOid(t.id, c.name), conname: c.name, connamespace: namespaceOid(t.namespace), contype: 'c',
        conrelid: t.id, confrelid: 0, confupdtype: ' ', confdeltype: ' ', confmatchtype: ' ', connoinherit: false,
        conkey: attnums(t, c.columns ?? []), confkey: null, conbin: deparseCheck(c.expr, false, columnTypes(t)),
      });
    }
    for (const f of foreignKeysOf(t)) {
      const ref = referenced(v.tables, f);
      rows.push({
        ...constraintDefaults, oid: constraintOid(t.id, f.name), conname: f.name, connamespace: namespaceOid(t.namespace), contype: 'f',
        conrelid: t.id, confrelid: ref?.id ?? 0, confupdtype: 'a', confdeltype: 'a', confmatchtype: 's', connoinherit: true,
        conkey: attnums(t, f.columns), confkey: attnums(ref, f.refColumns), conbin: null,
      });
    }
  }
  return rows;
}

function quoteIdent(s: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(s) ? s : `"${s.replaceAll('"', '""')}"`;
}

/** pg_get_constraintdef for a CHECK or FOREIGN KEY constraint's OID; undefined for any other OID. */
export function checkOrForeignKeyDef(
  tables: readonly CatalogTableInfo[], oid: number, pretty: boolean, searchPath: readonly string[], forRestore = false,
): string | undefined {
  for (const t of tables) {
    for (const c of t.constraints ?? []) {
      if ((c.kind !== 'check' && c.kind !== 'foreignKey') || constraintOid(t.id, c.name) !== oid) continue;
      if (c.kind === 'check') return `CHECK (${deparseCheck(c.expr, pretty, columnTypes(t))})`;
      const table = searchPath.includes(c.refNamespace) ? quoteIdent(c.refTable) : `${quoteIdent(c.refNamespace)}.${quoteIdent(c.refTable)}`;
      return `FOREIGN KEY (${c.columns.map(quoteIdent).join(', ')}) REFERENCES ${table}(${c.refColumns.map(quoteIdent).join(', ')}) ${forRestore ? 'NOT VALID' : 'NOT ENFORCED'}`;
    }
  }
  return undefined;
}

/** The key a foreign key references: the primary key's name, or a UNIQUE constraint over the same columns. */
function referencedKeyName(ref: CatalogTableInfo | undefined, fk: ForeignKey): string | null {
  if (ref === undefined) return null;
  const same = (cols: readonly string[]) => cols.length === fk.refColumns.length && cols.every((c) => fk.refColumns.includes(c));
  if (ref.primaryKey.length > 0 && same(ref.primaryKey)) return `${ref.name}_pkey`;
  const u = (ref.constraints ?? []).find((c) => c.kind === 'unique' && same(c.columns));
  return u?.name ?? null;
}

export function checkAndForeignKeyTableConstraints(v: CatalogView): Row[] {
  return v.tables.flatMap((t) => [...checksOf(t), ...foreignKeysOf(t)].map((c) => ({
    constraint_catalog: v.ctx.database, constraint_schema: t.namespace, constraint_name: c.name, table_catalog: v.ctx.database,
    table_schema: t.namespace, table_name: t.name, constraint_type: c.kind === 'check' ? 'CHECK' : 'FOREIGN KEY',
    is_deferrable: 'NO', initially_deferred: 'NO', enforced: c.kind === 'check' ? 'YES' : 'NO', nulls_distinct: null,
  })));
}

export function foreignKeyColumnUsage(v: CatalogView): Row[] {
  return v.tables.flatMap((t) => foreignKeysOf(t).flatMap((f) => {
    const ref = referenced(v.tables, f);
    const refKey = ref === undefined ? [] : ref.primaryKey.length === f.refColumns.length ? ref.primaryKey : f.refColumns;
    return f.columns.map((col, i) => ({
      constraint_catalog: v.ctx.database, constraint_schema: t.namespace, constraint_name: f.name, table_catalog: v.ctx.database,
      table_schema: t.namespace, table_name: t.name, column_name: col, ordinal_position: i + 1,
      position_in_unique_constraint: refKey.indexOf(f.refColumns[i]!) + 1 || null,
    }));
  }));
}

/** information_schema views only these constraints fill (referential_constraints, check_constraints, constraint_column_usage). */
export const checkAndForeignKeyRowSources: Readonly<Record<string, (v: CatalogView) => Row[]>> = {
  'information_schema.referential_constraints': (v) => v.tables.flatMap((t) => foreignKeysOf(t).map((f) => ({
    constraint_catalog: v.ctx.database, constraint_schema: t.namespace, constraint_name: f.name,
    unique_constraint_catalog: v.ctx.database, unique_constraint_schema: f.refNamespace,
    unique_constraint_name: referencedKeyName(referenced(v.tables, f), f), match_option: 'NONE', update_rule: 'NO ACTION', delete_rule: 'NO ACTION',
  }))),
  'information_schema.check_constraints': (v) => v.tables.flatMap((t) => checksOf(t).map((c) => ({
    constraint_catalog: v.ctx.database, constraint_schema: t.namespace, constraint_name: c.name, check_clause: `(${deparseCheck(c.expr, false, columnTypes(t))})`,
  }))),
  'information_schema.constraint_column_usage': (v) => v.tables.flatMap((t) => [
    ...checksOf(t).flatMap((c) => (c.columns ?? []).map((col) => ({ table: t, col, name: c.name }))),
    ...foreignKeysOf(t).flatMap((f) => {
      const ref = referenced(v.tables, f);
      return ref === undefined ? [] : f.refColumns.map((col) => ({ table: ref, col, name: f.name }));
    }),
  ].map(({ table, col, name }) => ({
    table_catalog: v.ctx.database, table_schema: table.namespace, table_name: table.name, column_name: col,
    constraint_catalog: v.ctx.database, constraint_schema: t.namespace, constraint_name: name,
  }))),
};
