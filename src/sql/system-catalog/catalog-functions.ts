import { FloeError } from '../../common/floe-error.js';
import { registerRoleFunctions } from './role-functions.js';
import { registerPrivilegeFunctions } from './privilege-functions.js';
import { registerAclFunctions } from './acl-functions.js';
import { catalogAcls } from './catalog-acls.js';
import { SqlState } from '../../common/sqlstate.js';
import { formatType, typeOids } from '../../common/sql-type.js';
import type { SqlType } from '../../common/sql-type.js';
import { type EvalContext, registerRegTypeResolver, registerSetFunction } from '../../exec/index.js';
import { registerCatalogFunction } from './register-catalog-function.js';
import type { VirtualTableRegistry } from '../binder/virtual-table.js';
import {
  namespaceOid, primaryKeyConstraintOid, primaryKeyIndexOid,
} from './catalog-oids.js';
import { searchPathSchemas } from './search-path-schemas.js';
import { lakeWarehouse } from './catalog-view.js';
import { relationSizeBytes } from './relation-size.js';
import { findUniqueIndex, prettyIndexExpression, uniqueConstraintDef, uniqueIndexColumnDef, uniqueIndexDef } from './unique-index-rows.js';
import { checkOrForeignKeyDef } from './check-and-foreign-key-rows.js';
import { isRestoreView } from './restorable-view.js';
import { partitionKeyDef } from './partition-spec-rows.js';
import { registerDumpFunctions } from './dump-functions.js';
import type { CatalogTableInfo } from './catalog-view.js';
import { typeForOid } from './pg-type-rows.js';
import { userTypeName, userTypeOid, userTypeVisible } from './user-type-rows.js';
import { regclassName, regclassOid, regtypeName } from './catalog-lookup.js';
import { registerFunctionDefinitionFunctions } from './function-definition-functions.js';
import { regprocName, regprocOid, regprocedureName, regprocedureOid } from './proc-lookup.js';
import { registerViewCatalogFunctions } from './view-catalog-functions.js';
import { catalogTable } from './materialized-view-relations.js';

/** The version string Floe reports: PostgreSQL-shaped so clients parse it (server_version is "15.18 (Floe 0.1.0)"). */
export const FLOE_VERSION_STRING = 'PostgreSQL 15.18 (Floe 0.1.0) on x86_64-pc-linux-gnu, compiled by Node.js, 64-bit';

const T = {
  text: { kind: 'text' } as SqlType,
  name: { kind: 'name' } as SqlType,
  bool: { kind: 'bool' } as SqlType,
  int4: { kind: 'int4' } as SqlType,
  oid: { kind: 'oid' } as SqlType,
  int8: { kind: 'int8' } as SqlType,
};

function tableByOid(ctx: EvalContext, oid: number): CatalogTableInfo | undefined {
  const w = lakeWarehouse(ctx.warehouse);
  if (!w) return undefined;
  const t = w.getTableById ? w.getTableById(oid) : w.listTables().find((x) => x.id === oid);
  return t === undefined ? undefined : catalogTable(w, t);
}

function tableByIndexOid(ctx: EvalContext, oid: number): CatalogTableInfo | undefined {
  const w = lakeWarehouse(ctx.warehouse);
  // A materialized view's key is Floe's: it has no primary key index to find.
  return w?.listTables().map((t) => catalogTable(w, t)).find((t) => t.primaryKey.length > 0 && (primaryKeyIndexOid(t.id) === oid || primaryKeyConstraintOid(t.id) === oid));
}

function quoteIdent(s: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(s) && !RESERVED.has(s) ? s : `"${s.replaceAll('"', '""')}"`;
}

// Enough of PostgreSQL's reserved keywords for identifiers clients are likely to meet.
const RESERVED = new Set(['all', 'analyse', 'analyze', 'and', 'any', 'array', 'as', 'asc', 'both', 'case', 'cast', 'check', 'collate', 'column',
  'constraint', 'create', 'current_date', 'current_role', 'current_time', 'current_timestamp', 'current_user', 'default', 'desc', 'distinct',
  'do', 'else', 'end', 'except', 'false', 'fetch', 'for', 'foreign', 'from', 'grant', 'group', 'having', 'in', 'initially', 'intersect',
  'into', 'leading', 'limit', 'localtime', 'localtimestamp', 'not', 'null', 'offset', 'on', 'only', 'or', 'order', 'placing', 'primary',
  'references', 'returning', 'select', 'session_user', 'some', 'symmetric', 'table', 'then', 'to', 'trailing', 'true', 'union', 'unique',
  'user', 'using', 'variadic', 'when', 'where', 'window', 'with']);

/** pg_get_serial_sequence: the sequence owned by the column (serial, identity or OWNED BY), schema-qualified. */
function serialSequence(ctx: EvalContext, table: string, column: string): string | null {
  const oid = regclassOid(table, ctx.warehouse, ctx.virtualTables as VirtualTableRegistry | undefined, searchPathSchemas(ctx, true));
  if (oid === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${table}" does not exist`);
  const t = tableByOid(ctx, oid);
  if (t === undefined) return null;
  const name = /^".*"$/.test(column) ? column.slice(1, -1).replaceAll('""', '"') : column.toLowerCase();
  const c = t.columns.find((x) => x.name === name);
  if (c === undefined) throw new FloeError(SqlState.undefinedColumn, `column "${name}" of relation "${t.name}" does not exist`);
  const s = lakeWarehouse(ctx.warehouse)?.listSequences?.(t.namespace).find((x) => x.ownedBy?.tableId === t.id && x.ownedBy.fieldId === c.fieldId);
  return s === undefined ? null : `${quoteIdent(s.namespace)}.${quoteIdent(s.name)}`;
}

function isVisible(ctx: EvalContext, oid: number): boolean {
  const schemas = searchPathSchemas(ctx, true);
  const seq = lakeWarehouse(ctx.warehouse)?.getSequenceById?.(oid);
  if (seq !== undefined) {
    const w = lakeWarehouse(ctx.warehouse)!;
    for (const s of schemas) {
      if (s === seq.namespace) return true;
      if (w.listTables(s).some((o) => o.name === seq.name) || w.listSequences?.(s).some((o) => o.name === seq.name)) return false;
    }
    return false;
  }
  const t = tableByOid(ctx, oid) ?? tableByIndexOid(ctx, oid);
  if (t) {
    if (!schemas.includes(t.namespace)) return false;
    // Visible only if no earlier schema on the path has a relation of the same name.
    const w = lakeWarehouse(ctx.warehouse)!;
    const name = tableByOid(ctx, oid) ? t.name : `${t.name}_pkey`;
    for (const s of schemas) {
      if (s === t.namespace) return true;
      if (w.listTables(s).some((o) => o.name === name)) return false;
    }
    return true;
  }
  const unique = findUniqueIndex(lakeWarehouse(ctx.warehouse)?.listTables() ?? [], oid);
  if (unique) return schemas.includes(unique.table.namespace);
  const view = lakeWarehouse(ctx.warehouse)?.getViewById?.(oid);
  if (view) {
    const w = lakeWarehouse(ctx.warehouse)!;
    for (const s of schemas) {
      if (s === view.namespace) return true;
      if (w.listTables(s).some((o) => o.name === view.name) || w.listViews?.(s).some((o) => o.name === view.name)) return false;
    }
    return false;
  }
  const reg = ctx.virtualTables as VirtualTableRegistry | undefined;
  const vt = reg?.list().find((v) => v.oid === oid);
  return vt !== undefined && schemas.includes(vt.schema);
}

/** pg_my_temp_schema(): the session's temporary schema, 0 before its first temporary table. */
function myTempSchemaOid(ctx: EvalContext): number {
  const temp = lakeWarehouse(ctx.warehouse)?.tempNamespace;
  return temp === undefined ? 0 : namespaceOid(temp);
}

function setting(ctx: EvalContext, name: string): string | undefined {
  return ctx.settings.get(name.toLowerCase());
}

function primaryKeyColumns(t: CatalogTableInfo): string {
  return t.primaryKey.map(quoteIdent).join(', ');
}

let registered = false;

/**
 * Registers the functions catalog queries call (psql's \d family, pgjdbc's
 * DatabaseMetaData, SQLAlchemy's inspector, BI tools) with EXEC's registry.
 * Idempotent.
 */
export function registerCatalogFunctions(): void {
  if (registered) return;
  registered = true;
  const reg = registerCatalogFunction;
  registerDumpFunctions();
  registerFunctionDefinitionFunctions();

  // '…'::regclass / ::regproc / ::regtype input and output read the catalog through this.
  registerRegTypeResolver({
    toOid(kind, name, ctx) {
      if (kind === 'regclass') return regclassOid(name, ctx.warehouse, ctx.virtualTables as VirtualTableRegistry | undefined, searchPathSchemas(ctx, true));
      if (kind === 'regproc') return regprocOid(name);
      if (kind === 'regprocedure') return regprocedureOid(name, ctx);
      return userTypeOid(ctx.warehouse, name, searchPathSchemas(ctx, true));
    },
    toName(kind, oid, ctx) {
      if (kind === 'regclass') return regclassName(oid, ctx.warehouse, ctx.virtualTables as VirtualTableRegistry | undefined, searchPathSchemas(ctx, true));
      if (kind === 'regproc') return regprocName(oid);
      if (kind === 'regprocedure') return regprocedureName(oid);
      return userTypeName(ctx.warehouse, oid, searchPathSchemas(ctx, true)) ?? regtypeName(oid);
    },
  });
  reg({ name: 'version', args: [], returns: T.text, impl: () => FLOE_VERSION_STRING });
  reg({ name: 'current_database', args: [], returns: T.name, impl: (_a, ctx) => ctx.database });
  reg({ name: 'current_catalog', args: [], returns: T.name, impl: (_a, ctx) => ctx.database });
  reg({ name: 'current_schema', args: [], returns: T.name, strict: false, impl: (_a, ctx) => searchPathSchemas(ctx, false)[0] ?? null });
  reg({ name: 'current_schemas', args: [T.bool], returns: { kind: 'array', element: T.name }, impl: (a, ctx) => searchPathSchemas(ctx, a[0] as boolean) });
  for (const n of ['current_user', 'user', 'current_role']) reg({ name: n, args: [], returns: T.name, impl: (_a, ctx) => ctx.user });
  reg({ name: 'session_user', args: [], returns: T.name, impl: (_a, ctx) => ctx.settings.get('session_authorization') ?? ctx.user });
  reg({ name: 'current_setting', args: [T.text], returns: T.text, impl: (a, ctx) => setting(ctx, a[0] as string) ?? null });
  reg({ name: 'current_setting', args: [T.text, T.bool], returns: T.text, impl: (a, ctx) => setting(ctx, a[0] as string) ?? null });
  reg({
    name: 'set_config', args: [T.text, T.text, T.bool], returns: T.text, strict: false, volatile: true,
    impl: (a, ctx) => {
      if (a[0] === null) throw new FloeError(SqlState.nullValueNotAllowed, 'SET requires parameter name');
      const value = (a[1] as string | null) ?? '';
      return ctx.setSetting === undefined ? value : ctx.setSetting((a[0] as string).toLowerCase(), value, a[2] === true);
    },
  });
  reg({ name: 'pg_backend_pid', args: [], returns: T.int4, impl: (_a, ctx) => Number(setting(ctx, 'floe.backend_pid') ?? 0) });
  reg({ name: 'pg_table_is_visible', args: [T.oid], returns: T.bool, impl: (a, ctx) => isVisible(ctx, a[0] as number) });
  reg({ name: 'pg_type_is_visible', args: [T.oid], returns: T.bool, impl: (a, ctx) => userTypeVisible(ctx.warehouse, a[0] as number, searchPathSchemas(ctx, true)) });
  for (const n of ['pg_function_is_visible', 'pg_collation_is_visible', 'pg_opclass_is_visible', 'pg_operator_is_visible']) {
    reg({ name: n, args: [T.oid], returns: T.bool, impl: () => true });
  }
  reg({
    name: 'format_type', args: [T.oid, T.int4], returns: T.text, strict: false,
    impl: (a, ctx) => {
      if (a[0] === null) return null;
      const t = typeForOid(a[0] as number);
      if (!t) return userTypeName(ctx.warehouse, a[0] as number, searchPathSchemas(ctx, true)) ?? '???';
      const mod = a[1] as number | null;
      if (mod !== null && mod >= 0) {
        if (t.kind === 'varchar' || t.kind === 'bpchar') return formatType({ kind: t.kind, length: mod - 4 });
        if (t.kind === 'numeric') return formatType({ kind: 'numeric', precision: ((mod - 4) >> 16) & 0xffff, scale: (mod - 4) & 0xffff });
      }
      if (t.kind === 'bpchar') return 'character';
      return formatType(t);
    },
  });
  // A logical replication subscriber joins pg_index on it to learn the key columns: a keyed table's primary key index, else none.
  reg({
    name: 'pg_get_replica_identity_index', args: [T.oid], returns: { kind: 'regclass' } as SqlType,
    impl: (a, ctx) => {
      const t = tableByOid(ctx, a[0] as number);
      return t !== undefined && t.primaryKey.length > 0 ? primaryKeyIndexOid(t.id) : null;
    },
  });
  // adbin already holds the deparsed text (see catalog-rows.ts), so pg_get_expr only passes it on.
  reg({ name: 'pg_get_expr', args: [T.text, T.oid], returns: T.text, impl: (a) => a[0] });
  reg({
    name: 'pg_get_expr', args: [T.text, T.oid, T.bool], returns: T.text,
    impl: (a, ctx) => {
      const t = a[2] === true ? tableByOid(ctx, a[1] as number) : undefined;
      return (t !== undefined ? prettyIndexExpression(t, a[0] as string) : undefined) ?? a[0];
    },
  });
  const indexdef = (ctx: EvalContext, oid: number, col: number, pretty = false): string | null => {
    const u = findUniqueIndex(lakeWarehouse(ctx.warehouse)?.listTables() ?? [], oid);
    if (u) {
      if (col > 0) return uniqueIndexColumnDef(u, col, quoteIdent, pretty);
      // Pretty mode names the table without its schema when the search path reaches it, as PostgreSQL's generate_relation_name.
      const visible = pretty && searchPathSchemas(ctx, true).find((s) => lakeWarehouse(ctx.warehouse)?.listTables(s).some((t) => t.name === u.table.name)) === u.table.namespace;
      return visible ? uniqueIndexDef(u, quoteIdent, pretty, quoteIdent(u.table.name)) : uniqueIndexDef(u, quoteIdent, pretty);
    }
    const t = tableByIndexOid(ctx, oid);
    if (!t) return null;
    if (col > 0) return t.primaryKey[col - 1] === undefined ? '' : quoteIdent(t.primaryKey[col - 1]!);
    return `CREATE UNIQUE INDEX ${quoteIdent(`${t.name}_pkey`)} ON ${quoteIdent(t.namespace)}.${quoteIdent(t.name)} USING btree (${primaryKeyColumns(t)})`;
  };
  reg({ name: 'pg_get_indexdef', args: [T.oid], returns: T.text, impl: (a, ctx) => indexdef(ctx, a[0] as number, 0) });
  reg({ name: 'pg_get_indexdef', args: [T.oid, T.int4, T.bool], returns: T.text, impl: (a, ctx) => indexdef(ctx, a[0] as number, a[1] as number, a[2] === true) });
  const constraintdef = (ctx: EvalContext, oid: number, pretty = false) => {
    const u = findUniqueIndex(lakeWarehouse(ctx.warehouse)?.listTables() ?? [], oid);
    if (u) return uniqueConstraintDef(u, quoteIdent);
    const t = tableByIndexOid(ctx, oid);
    if (t) return `PRIMARY KEY (${primaryKeyColumns(t)})`;
    return checkOrForeignKeyDef(lakeWarehouse(ctx.warehouse)?.listTables() ?? [], oid, pretty, ctx.searchPath, isRestoreView(ctx.settings)) ?? null;
  };
  // Lake tables are never partitions of another: a relation's only ancestor is itself (psql's \d "Referenced by:").
  registerSetFunction({ name: 'pg_partition_ancestors', args: [{ kind: 'regclass' }], returns: { kind: 'regclass' }, columns: [{ name: 'relid', type: { kind: 'regclass' } }], impl: (a) => [a[0]] });
  reg({ name: 'pg_get_constraintdef', args: [T.oid], returns: T.text, impl: (a, ctx) => constraintdef(ctx, a[0] as number) });
  reg({ name: 'pg_get_constraintdef', args: [T.oid, T.bool], returns: T.text, impl: (a, ctx) => constraintdef(ctx, a[0] as number, a[1] === true) });
  reg({
    name: 'pg_get_userbyid', args: [T.oid], returns: T.name,
    impl: (a, ctx) => catalogAcls(ctx).userName(a[0] as number),
  });
  registerPrivilegeFunctions(reg);
  registerAclFunctions();
  // Functions, languages, tablespaces and foreign servers keep their default ACLs (no GRANT changes them), which let everyone use them.
  for (const n of ['has_function_privilege', 'has_tablespace_privilege', 'has_foreign_data_wrapper_privilege',
    'has_server_privilege', 'has_language_privilege']) {
    reg({ name: n, args: ['any', 'any'], returns: T.bool, impl: () => true });
    reg({ name: n, args: ['any', 'any', 'any'], returns: T.bool, impl: () => true });
  }
  registerRoleFunctions(reg);
  reg({ name: 'shobj_description', args: [T.oid, T.name], returns: T.text, impl: () => null });
  registerViewCatalogFunctions((name, ctx) => regclassOid(name, ctx.warehouse, ctx.virtualTables as VirtualTableRegistry | undefined, searchPathSchemas(ctx, true)));
  reg({ name: 'quote_ident', args: [T.text], returns: T.text, impl: (a) => quoteIdent(a[0] as string) });
  reg({ name: 'pg_encoding_to_char', args: [T.int4], returns: T.name, impl: (a) => (a[0] === 6 ? 'UTF8' : a[0] === 0 ? 'SQL_ASCII' : '') });
  reg({ name: 'pg_char_to_encoding', args: [T.name], returns: T.int4, impl: (a) => (String(a[0]).toUpperCase() === 'UTF8' ? 6 : -1) });
  reg({ name: 'pg_get_statisticsobjdef_columns', args: [T.oid], returns: T.text, impl: () => null });
  reg({ name: 'pg_get_triggerdef', args: [T.oid], returns: T.text, impl: () => null });
  reg({ name: 'pg_get_triggerdef', args: [T.oid, T.bool], returns: T.text, impl: () => null });
  reg({ name: 'pg_get_partkeydef', args: [T.oid], returns: T.text, impl: (a, ctx) => {
    const t = tableByOid(ctx, a[0] as number);
    return t === undefined ? null : partitionKeyDef(t, quoteIdent);
  } });
  reg({ name: 'pg_get_serial_sequence', args: [T.text, T.text], returns: T.text, impl: (a, ctx) => serialSequence(ctx, a[0] as string, a[1] as string) });
  reg({ name: 'pg_relation_is_publishable', args: [T.oid], returns: T.bool, impl: () => false });
  reg({ name: 'pg_is_in_recovery', args: [], returns: T.bool, impl: () => false });
  const regclass: SqlType = { kind: 'regclass' };
  for (const n of ['pg_relation_size', 'pg_total_relation_size', 'pg_table_size']) reg({ name: n, args: [regclass], returns: T.int8, impl: (a, ctx) => relationSizeBytes(ctx, a[0] as number) });
  reg({ name: 'pg_relation_size', args: [regclass, T.text], returns: T.int8, impl: (a, ctx) => (a[1] === 'main' ? relationSizeBytes(ctx, a[0] as number) : 0n) });
  // Floe's indexes hold no files of their own yet.
  reg({ name: 'pg_indexes_size', args: [regclass], returns: T.int8, impl: () => 0n });
  reg({ name: 'pg_database_size', args: ['any'], returns: T.int8, impl: () => 0n });
  reg({ name: 'txid_current', args: [], returns: T.int8, volatile: true, impl: () => 1n });
  reg({ name: 'pg_my_temp_schema', args: [], returns: T.oid, impl: (_a, ctx) => myTempSchemaOid(ctx) });
  // Other sessions' temporary schemas are never in this session's catalog, so no oid it can meet is one.
  reg({ name: 'pg_is_other_temp_schema', args: [T.oid], returns: T.bool, impl: () => false });
  reg({ name: 'pg_postmaster_start_time', args: [], returns: { kind: 'timestamptz' }, impl: () => STARTED_MICROS });
  reg({ name: 'pg_conf_load_time', args: [], returns: { kind: 'timestamptz' }, impl: () => STARTED_MICROS });
  reg({ name: 'inet_server_port', args: [], returns: T.int4, strict: false, impl: (_a, ctx) => Number(setting(ctx, 'port') ?? 5433) });
  reg({
    name: 'to_regclass', args: [T.text], returns: { kind: 'regclass' }, strict: true,
    impl: (a, ctx) => {
      const text = String(a[0]);
      const [schema, name] = text.includes('.') ? text.split('.', 2) as [string, string] : [undefined, text];
      const w = lakeWarehouse(ctx.warehouse);
      const schemas = schema !== undefined ? [schema] : searchPathSchemas(ctx, true);
      for (const s of schemas) {
        const t = w?.listTables(s).find((x) => x.name === name) ?? w?.listViews?.(s).find((x) => x.name === name);
        if (t) return t.id;
        const vt = (ctx.virtualTables as VirtualTableRegistry | undefined)?.lookup(s, name!);
        if (vt) return vt.oid;
      }
      return null;
    },
  });
  reg({ name: 'to_regtype', args: [T.text], returns: { kind: 'regtype' }, impl: (a) => {
    const name = String(a[0]).replace(/^pg_catalog\./, '');
    const kind = (Object.keys(typeOids) as (keyof typeof typeOids)[]).find((k) => k === name);
    return kind ? typeOids[kind].oid : null;
  } });
}

const STARTED_MICROS = BigInt(Date.now()) * 1000n;
