import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { EvalContext } from '../../exec/index.js';
import { AclRight, type Acl } from '../../lake/index.js';
import type { VirtualTable, VirtualTableRegistry } from '../binder/virtual-table.js';
import { catalogColumnAcl, type CatalogAcls } from './catalog-acls.js';
import { primaryKeyIndexOid } from './catalog-oids.js';
import { catalogShapes } from './catalog-shapes.js';
import { lakeWarehouse, type CatalogTableInfo, type CatalogWarehouse } from './catalog-view.js';
import { searchPathSchemas } from './search-path-schemas.js';
import { SEQUENCE_COLUMNS } from './sequence-catalog-rows.js';
import { uniqueIndexesOf } from './unique-index-rows.js';
import { catalogTable, isMaterializedView, visibleTable } from './materialized-view-relations.js';

/**
 * A relation as privilege checks see it (PostgreSQL's pg_class_aclmask and
 * pg_attribute_aclmask inputs): owner, ACL and columns with their ACLs, found by oid or by
 * a (possibly qualified) name through search_path, as has_table_privilege and its siblings
 * look relations up.
 */
export interface SecuredColumn {
  readonly name: string;
  /** 1… for user columns, negative for system columns (ctid -1 … tableoid -6). */
  readonly attnum: number;
  readonly acl: Acl | null;
}

export interface SecuredRelation {
  readonly oid: number;
  readonly schema: string;
  readonly name: string;
  /** 'r' table (catalog tables too), 'v' view, 'm' materialized view, 'S' sequence, 'i' index. */
  readonly relkind: 'r' | 'v' | 'm' | 'S' | 'i';
  readonly owner: number;
  readonly acl: Acl | null;
  /** A catalog table with a pinned oid: PostgreSQL lets only superusers write it, whatever its ACL. */
  readonly systemCatalog: boolean;
  readonly columns: readonly SecuredColumn[];
}

const SYSTEM_COLUMNS = ['ctid', 'xmin', 'cmin', 'xmax', 'cmax', 'tableoid'];
/** PostgreSQL's FirstUnpinnedObjectId: catalogs below it are system classes. */
const FIRST_UNPINNED_OBJECT_ID = 12000;

const catalogKinds = new Map(catalogShapes.map((c) => [`${c.schema}.${c.name}`, c.relkind]));

function withSystemColumns(columns: SecuredColumn[], relkind: SecuredRelation['relkind']): SecuredColumn[] {
  return relkind === 'r' || relkind === 'm' || relkind === 'S' ? [...columns, ...SYSTEM_COLUMNS.map((name, i) => ({ name, attnum: -(i + 1), acl: null }))] : columns;
}

function lakeRelation(acls: CatalogAcls, oid: number, schema: string, name: string, relkind: 'r' | 'v' | 'm' | 'S', columns: readonly string[]): SecuredRelation {
  const r = acls.relation(oid);
  const cols = columns.map((c, i) => ({ name: c, attnum: i + 1, acl: r.columnAcls[c] ?? null }));
  return { oid, schema, name, relkind, owner: r.owner, acl: r.acl, systemCatalog: false, columns: withSystemColumns(cols, relkind) };
}

/** A lake table or materialized view, with the columns the catalogs show (never hidden ones). */
function lakeTableRelation(w: CatalogWarehouse, acls: CatalogAcls, t: CatalogTableInfo): SecuredRelation {
  const shown = visibleTable(t);
  return lakeRelation(acls, t.id, t.namespace, t.name, isMaterializedView(w, t.id) ? 'm' : 'r', shown.columns.map((c) => c.name));
}

// An index belongs to its table's owner and has no ACL of its own.
function indexRelation(acls: CatalogAcls, t: CatalogTableInfo, oid: number, name: string, columns: readonly string[]): SecuredRelation {
  const owner = acls.relation(t.id).owner;
  return { oid, schema: t.namespace, name, relkind: 'i', owner, acl: null, systemCatalog: false, columns: columns.map((c, i) => ({ name: c, attnum: i + 1, acl: null })) };
}

function catalogRelation(acls: CatalogAcls, vt: VirtualTable): SecuredRelation {
  const relkind = catalogKinds.get(`${vt.schema}.${vt.name}`) === 'r' ? 'r' : 'v';
  const { owner, acl } = acls.catalogRelation(vt.schema, vt.name);
  const cols = vt.columns.filter((c) => c.system !== true).map((c, i) => ({ name: c.name, attnum: i + 1, acl: catalogColumnAcl(vt.schema, vt.name, c.name) ?? null }));
  return {
    oid: vt.oid, schema: vt.schema, name: vt.name, relkind, owner, acl,
    systemCatalog: relkind === 'r' && vt.oid < FIRST_UNPINNED_OBJECT_ID, columns: withSystemColumns(cols, relkind),
  };
}

function registryOf(ctx: Pick<EvalContext, 'virtualTables'>): VirtualTableRegistry | undefined {
  return ctx.virtualTables as VirtualTableRegistry | undefined;
}

/** The relation with this oid (table, view, sequence, index or catalog relation), if any. */
export function relationByOid(ctx: Pick<EvalContext, 'warehouse' | 'virtualTables'>, acls: CatalogAcls, oid: number): SecuredRelation | undefined {
  const w = lakeWarehouse(ctx.warehouse);
  if (w !== undefined) {
    const found = lakeRelationByOid(w, acls, oid);
    if (found !== undefined) return found;
  }
  const vt = registryOf(ctx)?.list().find((v) => v.oid === oid);
  return vt === undefined ? undefined : catalogRelation(acls, vt);
}

function lakeRelationByOid(w: CatalogWarehouse, acls: CatalogAcls, oid: number): SecuredRelation | undefined {
  const t = w.getTableById?.(oid) ?? w.listTables().find((x) => x.id === oid);
  if (t !== undefined) return lakeTableRelation(w, acls, t);
  const view = w.getViewById?.(oid);
  if (view !== undefined) return lakeRelation(acls, view.id, view.namespace, view.name, 'v', view.columns.map((c) => c.name));
  const seq = w.getSequenceById?.(oid);
  if (seq !== undefined) return lakeRelation(acls, seq.id, seq.namespace, seq.name, 'S', SEQUENCE_COLUMNS.map((c) => c.name));
  for (const table of w.listTables().map((x) => catalogTable(w, x))) {
    if (table.primaryKey.length > 0 && primaryKeyIndexOid(table.id) === oid) return indexRelation(acls, table, oid, `${table.name}_pkey`, table.primaryKey);
    const u = uniqueIndexesOf(table).find((x) => x.indexOid === oid);
    if (u !== undefined) return indexRelation(acls, table, oid, u.name, u.columns);
  }
  return undefined;
}

function relationInSchema(ctx: Pick<EvalContext, 'warehouse' | 'virtualTables'>, acls: CatalogAcls, schema: string, name: string): SecuredRelation | undefined {
  const w = lakeWarehouse(ctx.warehouse);
  if (w !== undefined) {
    const t = w.listTables(schema).find((x) => x.name === name);
    if (t !== undefined) return lakeTableRelation(w, acls, t);
    const view = w.listViews?.(schema).find((x) => x.name === name);
    if (view !== undefined) return lakeRelation(acls, view.id, view.namespace, view.name, 'v', view.columns.map((c) => c.name));
    const seq = w.listSequences?.(schema).find((x) => x.name === name);
    if (seq !== undefined) return lakeRelation(acls, seq.id, seq.namespace, seq.name, 'S', SEQUENCE_COLUMNS.map((c) => c.name));
    for (const table of w.listTables(schema).map((x) => catalogTable(w, x))) {
      if (table.primaryKey.length > 0 && `${table.name}_pkey` === name) return indexRelation(acls, table, primaryKeyIndexOid(table.id), name, table.primaryKey);
      const u = uniqueIndexesOf(table).find((x) => x.name === name);
      if (u !== undefined) return indexRelation(acls, table, u.indexOid, u.name, u.columns);
    }
  }
  const vt = registryOf(ctx)?.list(schema).find((v) => v.name === name);
  return vt === undefined ? undefined : catalogRelation(acls, vt);
}

const isSpace = (c: string | undefined) => c !== undefined && ' \t\n\r\f\v'.includes(c);
const NAMEDATALEN = 64;

/** A name cut to NAMEDATALEN - 1 bytes without splitting a character, as PostgreSQL truncates identifiers. */
function truncateIdentifier(name: string): string {
  if (Buffer.byteLength(name) < NAMEDATALEN) return name;
  let out = '';
  for (const ch of name) {
    if (Buffer.byteLength(out + ch) > NAMEDATALEN - 1) break;
    out += ch;
  }
  return out;
}

function usable(acls: CatalogAcls, schema: string): boolean {
  return acls.currentRole !== undefined && acls.schemaMask(acls.currentRole, schema, AclRight.usage) !== 0;
}

const invalidName = () => new FloeError(SqlState.invalidName, 'invalid name syntax');

/**
 * A dotted name as PostgreSQL's textToQualifiedNameList reads it: parts separated by `.`,
 * spaces around them ignored, unquoted parts lower-cased, `""` inside quotes standing for `"`.
 */
export function qualifiedNameParts(text: string): string[] {
  const parts: string[] = [];
  let i = 0;
  while (isSpace(text[i])) i++;
  if (i === text.length) throw invalidName();
  for (;;) {
    let part = '';
    if (text[i] === '"') {
      for (i++; ; i++) {
        if (i >= text.length) throw invalidName();
        if (text[i] === '"') {
          if (text[i + 1] !== '"') break;
          i++;
        }
        part += text[i];
      }
      i++;
    } else {
      const start = i;
      while (i < text.length && text[i] !== '.' && !isSpace(text[i])) i++;
      if (i === start) throw invalidName();
      part = text.slice(start, i).replace(/[A-Z]+/g, (s) => s.toLowerCase());
    }
    parts.push(truncateIdentifier(part));
    while (isSpace(text[i])) i++;
    if (i === text.length) return parts;
    if (text[i] !== '.') throw invalidName();
    i++;
    while (isSpace(text[i])) i++;
  }
}

/** Whether a schema of this name exists (system, lake or the session's temporary one). */
export function schemaExists(ctx: Pick<EvalContext, 'warehouse'>, name: string): boolean {
  if (name === 'pg_catalog' || name === 'information_schema' || name === 'public') return true;
  const w = lakeWarehouse(ctx.warehouse);
  return (w?.listNamespaces().includes(name) ?? false) || (w?.tempNamespace !== undefined && w.tempNamespace === name);
}

/**
 * The relation a text argument names, as has_table_privilege resolves it (RangeVarGetRelid):
 * schema-qualified or through search_path, with PostgreSQL's errors for a bad name, a
 * missing schema (3F000) and a missing relation (42P01).
 */
export function relationByName(ctx: Pick<EvalContext, 'warehouse' | 'virtualTables' | 'searchPath' | 'user' | 'database'>, acls: CatalogAcls, text: string): SecuredRelation {
  const parts = qualifiedNameParts(text);
  if (parts.length > 3) throw new FloeError(SqlState.syntaxError, `improper relation name (too many dotted names): ${parts.join('.')}`);
  const [name, schema, catalog] = [...parts].reverse() as [string, string | undefined, string | undefined];
  if (catalog !== undefined && catalog !== ctx.database) {
    throw new FloeError(SqlState.featureNotSupported, `cross-database references are not implemented: "${parts.join('.')}"`);
  }
  if (schema !== undefined) {
    const temp = lakeWarehouse(ctx.warehouse)?.tempNamespace;
    const actual = schema === 'pg_temp' && temp !== undefined ? temp : schema;
    if (!schemaExists(ctx, actual)) throw new FloeError(SqlState.undefinedSchema, `schema "${schema}" does not exist`);
    // Naming a schema takes USAGE on it (the session's temporary schema excepted), as PostgreSQL's LookupExplicitNamespace asks.
    if (actual !== temp && !usable(acls, actual)) throw new FloeError(SqlState.insufficientPrivilege, `permission denied for schema ${schema}`);
    const found = relationInSchema(ctx, acls, actual, name);
    if (found === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${schema}.${name}" does not exist`);
    return found;
  }
  // search_path skips the schemas the current user may not use, except the implicit pg_catalog and temporary schema.
  const implicit = new Set(['pg_catalog', lakeWarehouse(ctx.warehouse)?.tempNamespace]);
  for (const s of searchPathSchemas(ctx, true)) {
    if (!implicit.has(s) && !usable(acls, s)) continue;
    const found = relationInSchema(ctx, acls, s, name);
    if (found !== undefined) return found;
  }
  throw new FloeError(SqlState.undefinedTable, `relation "${name}" does not exist`);
}
