import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { CatalogTable, CatalogViewDefinition } from '../bind-env.js';
import type { TableName } from '../ddl-command.js';
import { isTempNamespaceName, withTempNamespace } from '../../common/temp-namespace.js';
import type { BindContext } from './bind-context.js';
import type { VirtualTable } from './virtual-table.js';

/** What a relation name in FROM (or a DML target) denotes. */
export type ResolvedRelation =
  | { readonly kind: 'lake'; readonly table: CatalogTable; readonly branch?: string }
  | { readonly kind: 'virtual'; readonly table: VirtualTable }
  | { readonly kind: 'view'; readonly view: CatalogViewDefinition };

const systemSchemas = new Set(['pg_catalog', 'information_schema']);

/**
 * The schemas searched for an unqualified name: pg_catalog first unless search_path places it,
 * and before it the session's temporary schema unless search_path places that (pg_temp), as in PostgreSQL.
 */
export function effectiveSearchPath(ctx: BindContext): string[] {
  const path = ctx.env.searchPath
    .map((s) => s.trim().replace(/^"(.*)"$/, '$1'))
    .filter((s) => s !== '' && s !== '$user');
  const withCatalog = path.includes('pg_catalog') ? path : ['pg_catalog', ...path];
  return withTempNamespace(withCatalog, ctx.env.warehouse.tempNamespace);
}

/**
 * The schema CREATE uses for an unqualified name: the first search_path entry that is not a
 * system or temporary schema (the session left out those the role may not use); none is 3F000.
 */
export function creationSchema(ctx: BindContext): string {
  const schema = firstUserSchema(ctx);
  if (schema === undefined) throw new FloeError('3F000', 'no schema has been selected to create in');
  return schema;
}

function firstUserSchema(ctx: BindContext): string | undefined {
  return effectiveSearchPath(ctx).find((s) => !systemSchemas.has(s) && !isTempNamespaceName(s));
}

/** Where a name that must exist and was not found is said to be missing: the creation schema, or public when there is none. */
export function missingNameSchema(ctx: BindContext): string {
  return firstUserSchema(ctx) ?? 'public';
}

function lookupIn(ctx: BindContext, schema: string, name: string): ResolvedRelation | undefined {
  if (!systemSchemas.has(schema)) {
    const table = ctx.env.warehouse.getTable(schema, name);
    if (table) return { kind: 'lake', table };
    const view = ctx.env.warehouse.getView?.(schema, name);
    if (view) return { kind: 'view', view };
  }
  const v = ctx.env.virtualTables.lookup(schema, name);
  if (v) return { kind: 'virtual', table: v };
  // `t$branch_b` reads and writes branch b of t (Paimon's spelling); other `t$…` names are
  // system tables, which the virtual registry serves under the same schema.
  const dollar = name.indexOf('$');
  if (dollar > 0 && name.startsWith('branch_', dollar + 1) && !systemSchemas.has(schema)) {
    const table = ctx.env.warehouse.getTable(schema, name.slice(0, dollar));
    if (table) return { kind: 'lake', table, branch: name.slice(dollar + 1 + 'branch_'.length) };
  }
  return undefined;
}

/** Resolves `[schema.]name` through search_path; 42P01 when nothing matches. */
export function resolveRelation(ctx: BindContext, schema: string | undefined, name: string, position: number | undefined): ResolvedRelation {
  const found = tryResolveRelation(ctx, schema, name);
  if (found) return found;
  const shown = schema === undefined ? name : `${schema}.${name}`;
  throw new FloeError(SqlState.undefinedTable, `relation "${shown}" does not exist`, { position });
}

export function tryResolveRelation(ctx: BindContext, schema: string | undefined, name: string): ResolvedRelation | undefined {
  if (schema !== undefined) return lookupIn(ctx, schema, name);
  for (const s of effectiveSearchPath(ctx)) {
    const r = lookupIn(ctx, s, name);
    if (r) return r;
  }
  return undefined;
}

export function relationOid(r: ResolvedRelation): number {
  return r.kind === 'lake' ? r.table.id : r.kind === 'view' ? r.view.id : r.table.oid;
}

/** Splits `a.b` / `"A"."b"` text (regclass input) into identifiers. */
export function splitQualifiedName(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const s = text.trim();
  while (i < s.length) {
    if (s[i] === '"') {
      let j = i + 1;
      let ident = '';
      while (j < s.length) {
        if (s[j] === '"' && s[j + 1] === '"') { ident += '"'; j += 2; continue; }
        if (s[j] === '"') break;
        ident += s[j++];
      }
      out.push(ident);
      i = j + 1;
    } else {
      let j = i;
      while (j < s.length && s[j] !== '.') j++;
      out.push(s.slice(i, j).trim().toLowerCase());
      i = j;
    }
    if (s[i] === '.') i++;
  }
  return out;
}

/** `'name'::regclass`: the relation's oid, resolved when the statement is bound (as PostgreSQL does for a constant). */
export function resolveRegclass(ctx: BindContext, text: string, position: number | undefined): number {
  if (/^\s*\d+\s*$/.test(text)) return Number(text);
  const parts = splitQualifiedName(text);
  const name = parts[parts.length - 1] ?? '';
  const schema = parts.length > 1 ? parts[parts.length - 2] : undefined;
  return relationOid(resolveRelation(ctx, schema, name, position));
}

/** A DDL target name with its schema filled in. */
export function qualifyForDdl(ctx: BindContext, schema: string | undefined, name: string): TableName {
  return { namespace: schema ?? creationSchema(ctx), name };
}

/**
 * A DDL target that must exist: the schema where search_path finds it (when missing, the
 * creation schema, or public with none, for the caller to report the name missing).
 */
export function qualifyExisting(ctx: BindContext, schema: string | undefined, name: string): TableName {
  if (schema !== undefined) return { namespace: schema, name };
  for (const s of effectiveSearchPath(ctx)) {
    if (systemSchemas.has(s)) continue;
    if (ctx.env.warehouse.getTable(s, name) ?? ctx.env.warehouse.getView?.(s, name)) return { namespace: s, name };
  }
  return { namespace: missingNameSchema(ctx), name };
}
