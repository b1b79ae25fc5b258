import { formatType, typeLength, typeModifier, typeOid } from '../../common/sql-type.js';
import type { SqlType } from '../../common/sql-type.js';
import { pgEnumRows, udtColumns, userTypePgTypeRows } from './user-type-rows.js';
import {
  BOOTSTRAP_SUPERUSER_OID, BTREE_AM_OID, DEFAULT_COLLATION_OID, FLOE_DATABASE_OID, HASH_AM_OID, HEAP_AM_OID,
  PG_CATALOG_NAMESPACE_OID, PG_CLASS_OID, PUBLIC_NAMESPACE_OID, namespaceOid,
  primaryKeyConstraintOid, primaryKeyIndexOid, attrdefOid,
} from './catalog-oids.js';
import type { CatalogTableInfo, CatalogView } from './catalog-view.js';
import { isTempNamespaceName } from '../../common/temp-namespace.js';
import type { VirtualColumn, VirtualTable } from '../binder/virtual-table.js';
import { pgTypeRows, typeStorage } from './pg-type-rows.js';
import { isRestoreView } from './restorable-view.js';
import { columnDefaultDependencies } from './column-default-depends.js';
import { pgPartitionedTableRows, tableRelkind } from './partition-spec-rows.js';
import { serviceViewRows } from './service-relations.js';
import { pgLocksRows, pgStatActivityRows } from './server-activity-rows.js';
import { catalogShapes } from './catalog-shapes.js';
import { pgAuthMembersRows, pgAuthidRows, pgRolesRows, pgShadowRows, pgUserRows } from './role-rows.js';
import { pgPoliciesRows, pgPolicyRows, rowSecurityFlags } from './policy-rows.js';
import { pgDefaultAclRows } from './default-acl-rows.js';
import { catalogAcls, catalogColumnAcl, type CatalogAcls } from './catalog-acls.js';
import { privilegeRowSources } from './privilege-view-rows.js';
import { informationSchemaScope } from './information-schema-scope.js';
import type { Acl } from '../../lake/index.js';
import { builtinProcs, pgProcRow } from './builtin-proc-rows.js';
import { isTablesViewRows, isViewsRows, pgClassViewRows, pgDescriptionRows, pgViewsRows, viewAttributeRows } from './view-catalog-rows.js';
import { pgRewriteRows, viewRuleDependencies } from './view-rule-rows.js';
import { materializedViewAttributeRows, pgClassMaterializedViewRows, pgMatviewsRows } from './materialized-view-catalog-rows.js';
import {
  attidentity, deparseSequenceCalls, identityColumns, pgClassSequenceRows, sequenceAttributeRows, sequenceRowSources,
} from './sequence-catalog-rows.js';
import {
  uniqueIndexAttributes, uniqueIndexesOf, uniqueKeyColumnUsageRows, uniquePgClassRows, uniquePgConstraintRows, uniquePgIndexRows,
  uniquePgIndexesRows, uniqueTableConstraintRows,
} from './unique-index-rows.js';
import {
  checkAndForeignKeyConstraintRows, checkAndForeignKeyRowSources, checkAndForeignKeyTableConstraints, constraintClassFlags, foreignKeyColumnUsage,
} from './check-and-foreign-key-rows.js';

/** PostgreSQL's relkind for a catalog relation ('r' table, 'v' view); other virtual relations are views. */
const shapeKinds = new Map(catalogShapes.map((c) => [`${c.schema}.${c.name}`, c.relkind]));
function virtualRelkind(schema: string, name: string): string {
  return shapeKinds.get(`${schema}.${name}`) ?? 'v';
}

type Row = Record<string, unknown>;

/** A virtual relation's columns without its system columns (tableoid), as pg_attribute numbers them. */
function userColumns(vt: VirtualTable): readonly VirtualColumn[] {
  return vt.columns.filter((c) => c.system !== true);
}

const SYSTEM_SCHEMAS = ['pg_catalog', 'information_schema'];

function allNamespaces(v: CatalogView): string[] {
  const names = new Set<string>([...SYSTEM_SCHEMAS, 'public', ...v.namespaces]);
  return [...names];
}

function pkName(t: CatalogTableInfo): string {
  return `${t.name}_pkey`;
}

function collationOf(t: SqlType): number {
  if (t.kind === 'text' && t.enumType !== undefined) return 0;
  return t.kind === 'text' || t.kind === 'varchar' || t.kind === 'bpchar' || t.kind === 'name' ? DEFAULT_COLLATION_OID : 0;
}

const classDefaults: Row = {
  reltype: 0, reloftype: 0, relowner: BOOTSTRAP_SUPERUSER_OID, relfilenode: 0, reltablespace: 0, relpages: 0, reltuples: -1,
  relallvisible: 0, reltoastrelid: 0, relhasindex: false, relisshared: false, relpersistence: 'p', relchecks: 0,
  relhasrules: false, relhastriggers: false, relhassubclass: false, relrowsecurity: false, relforcerowsecurity: false,
  relispopulated: true, relreplident: 'd', relispartition: false, relrewrite: 0, relfrozenxid: 0, relminmxid: 0,
  relacl: null, reloptions: null, relpartbound: null,
};

/** relpersistence: 't' for the session's temporary tables (the only ones of a pg_temp_N schema it sees). */
function persistence(t: CatalogTableInfo): string {
  return isTempNamespaceName(t.namespace) ? 't' : 'p';
}

/** relowner and relacl of a lake relation, from the warehouse's privilege records. */
function ownership(acls: CatalogAcls, id: number): Row {
  const r = acls.relation(id);
  return { relowner: r.owner, relacl: acls.aclText(r.acl) };
}

function pgClass(v: CatalogView): Row[] {
  const rows: Row[] = [];
  const acls = catalogAcls(v.ctx);
  for (const t of v.tables) {
    const owned = ownership(acls, t.id);
    // Indexes belong to their table's owner and have no ACL.
    const indexDefaults = { ...classDefaults, relowner: owned.relowner };
    rows.push({
      ...classDefaults, ...owned, oid: t.id, relname: t.name, relnamespace: namespaceOid(t.namespace), relpersistence: persistence(t),
      ...(tableRelkind(v, t) === 'p' ? { relam: 0, relfilenode: 0, relkind: 'p' } : { relam: HEAP_AM_OID, relfilenode: t.id, relkind: 'r' }), relnatts: t.columns.length, relhasindex: t.primaryKey.length > 0 || uniqueIndexesOf(t).length > 0, ...constraintClassFlags(v, t),
      reloptions: t.properties && Object.keys(t.properties).length > 0 && !isRestoreView(v.ctx.settings) ? Object.entries(t.properties).map(([k, val]) => `${k}=${val}`) : null,
      ...rowSecurityFlags(v, t.id),
    });
    if (t.primaryKey.length > 0) {
      rows.push({
        ...indexDefaults, oid: primaryKeyIndexOid(t.id), relname: pkName(t), relnamespace: namespaceOid(t.namespace), relam: BTREE_AM_OID,
        relpersistence: persistence(t), relkind: 'i', relnatts: t.primaryKey.length, reltuples: 0,
      });
    }
    rows.push(...uniquePgClassRows(t, indexDefaults));
  }
  for (const r of [...pgClassSequenceRows(v, classDefaults), ...pgClassViewRows(v, classDefaults), ...pgClassMaterializedViewRows(v, classDefaults)]) {
    rows.push({ ...r, ...ownership(acls, r.oid as number) });
  }
  for (const view of v.materializedViews) rows.push(...uniquePgClassRows(view.table, { ...classDefaults, relowner: acls.relation(view.id).owner }));
  for (const vt of v.virtualTables) {
    const { owner, acl } = acls.catalogRelation(vt.schema, vt.name);
    rows.push({
      ...classDefaults, oid: vt.oid, relname: vt.name, relnamespace: namespaceOid(vt.schema), relowner: owner, relacl: acls.aclText(acl),
      relam: virtualRelkind(vt.schema, vt.name) === 'r' ? HEAP_AM_OID : 0,
      relkind: virtualRelkind(vt.schema, vt.name), relnatts: userColumns(vt).length,
    });
  }
  return rows;
}

function pgAttribute(v: CatalogView): Row[] {
  const rows: Row[] = [];
  const acls = catalogAcls(v.ctx);
  const indexAttributes = (t: CatalogTableInfo) => {
    for (const a of uniqueIndexAttributes(t)) {
      const type = a.type ?? t.columns.find((col) => col.name === a.column)?.type;
      if (type) add(a.relid, a.num, a.column, type, false, false);
    }
  };
  const add = (relid: number, num: number, name: string, type: SqlType, notNull: boolean, hasDef: boolean, identity = '', acl: Acl | null = null) => rows.push({
    attrelid: relid, attname: name, atttypid: typeOid(type), attstattarget: -1, attlen: typeLength(type), attnum: num, attndims: type.kind === 'array' ? 1 : 0,
    attcacheoff: -1, atttypmod: typeModifier(type), attbyval: typeLength(type) > 0 && typeLength(type) <= 8, attalign: 'i', attstorage: typeStorage(type),
    attcompression: '', attnotnull: notNull, atthasdef: hasDef, atthasmissing: false, attidentity: identity, attgenerated: '', attisdropped: false,
    attislocal: true, attinhcount: 0, attcollation: collationOf(type), attacl: acls.aclText(acl), attoptions: null, attfdwoptions: null, attmissingval: null,
  });
  for (const t of v.tables) {
    const columnAcls = acls.relation(t.id).columnAcls;
    t.columns.forEach((c, i) => add(t.id, i + 1, c.name, c.type, !c.nullable || t.primaryKey.includes(c.name), c.defaultExpr !== undefined, attidentity(c), columnAcls[c.name] ?? null));
    if (t.primaryKey.length > 0) {
      t.primaryKey.forEach((k, i) => {
        const c = t.columns.find((col) => col.name === k);
        if (c) add(primaryKeyIndexOid(t.id), i + 1, k, c.type, false, false);
      });
    }
    indexAttributes(t);
  }
  sequenceAttributeRows(v, (relid, num, name, type) => add(relid, num, name, type, true, false));
  viewAttributeRows(v, (relid, num, name, type) => add(relid, num, name, type, false, false, '', acls.relation(relid).columnAcls[name] ?? null));
  materializedViewAttributeRows(v, (relid, num, name, type) => add(relid, num, name, type, false, false, '', acls.relation(relid).columnAcls[name] ?? null));
  for (const view of v.materializedViews) indexAttributes(view.table);
  for (const vt of v.virtualTables) userColumns(vt).forEach((c, i) => add(vt.oid, i + 1, c.name, c.type, false, false, '', catalogColumnAcl(vt.schema, vt.name, c.name) ?? null));
  return rows;
}

function pgIndex(v: CatalogView): Row[] {
  const unique = indexedRelations(v).flatMap((t) => uniquePgIndexRows(t, (k) => collationOf(t.columns.find((c) => c.name === k)!.type)));
  return [...unique, ...pgIndexPrimary(v)];
}

/** The relations users may index: tables and materialized views (pg_index, pg_indexes). */
function indexedRelations(v: CatalogView): CatalogTableInfo[] {
  return [...v.tables, ...v.materializedViews.map((view) => view.table)];
}

function pgIndexPrimary(v: CatalogView): Row[] {
  return v.tables.filter((t) => t.primaryKey.length > 0).map((t) => ({
    indexrelid: primaryKeyIndexOid(t.id), indrelid: t.id, indnatts: t.primaryKey.length, indnkeyatts: t.primaryKey.length,
    indisunique: true, indnullsnotdistinct: false, indisprimary: true, indisexclusion: false, indimmediate: true, indisclustered: false,
    indisvalid: true, indcheckxmin: false, indisready: true, indislive: true, indisreplident: false,
    indkey: t.primaryKey.map((k) => t.columns.findIndex((c) => c.name === k) + 1),
    indcollation: t.primaryKey.map((k) => collationOf(t.columns.find((c) => c.name === k)!.type)),
    indclass: t.primaryKey.map(() => 0), indoption: t.primaryKey.map(() => 0), indexprs: null, indpred: null,
  }));
}

function pgConstraint(v: CatalogView): Row[] {
  return [...primaryKeyConstraints(v), ...v.tables.flatMap(uniquePgConstraintRows), ...checkAndForeignKeyConstraintRows(v)];
}

function primaryKeyConstraints(v: CatalogView): Row[] {
  return v.tables.filter((t) => t.primaryKey.length > 0).map((t) => ({
    oid: primaryKeyConstraintOid(t.id), conname: pkName(t), connamespace: namespaceOid(t.namespace), contype: 'p', condeferrable: false,
    condeferred: false, convalidated: true, conrelid: t.id, contypid: 0, conindid: primaryKeyIndexOid(t.id), conparentid: 0,
    confrelid: 0, confupdtype: ' ', confdeltype: ' ', confmatchtype: ' ', conislocal: true, coninhcount: 0, connoinherit: true,
    conkey: t.primaryKey.map((k) => t.columns.findIndex((c) => c.name === k) + 1), confkey: null, conpfeqop: null, conppeqop: null,
    conffeqop: null, confdelsetcols: null, conexclop: null, conbin: null,
  }));
}

function pgAttrdef(v: CatalogView): Row[] {
  const rows: Row[] = [];
  for (const t of v.tables) {
    t.columns.forEach((c, i) => {
      if (c.defaultExpr !== undefined) rows.push({ oid: attrdefOid(t.id, i), adrelid: t.id, adnum: i + 1, adbin: deparseSequenceCalls(v, deparseDefault(c.defaultExpr, c.type)) });
    });
  }
  return rows;
}

/**
 * adbin holds what pg_get_expr prints. PostgreSQL prints a string-literal
 * default with its cast ('none'::text); other expressions are kept as written.
 */
function deparseDefault(expr: string, type: SqlType): string {
  const e = expr.trim();
  if (/^'(?:[^']|'')*'$/.test(e)) {
    const name = type.kind === 'varchar' ? 'character varying' : type.kind === 'bpchar' ? 'bpchar' : formatType(type);
    return `${e}::${name}`;
  }
  return e;
}

function pgNamespace(v: CatalogView): Row[] {
  const acls = catalogAcls(v.ctx);
  return allNamespaces(v).map((n) => {
    const { owner, acl } = acls.schema(n);
    return { oid: namespaceOid(n), nspname: n, nspowner: owner, nspacl: acls.aclText(acl) };
  });
}

function pgDatabase(v: CatalogView): Row[] {
  const acls = catalogAcls(v.ctx);
  const { owner, acl } = acls.database();
  return [{
    oid: FLOE_DATABASE_OID, datname: v.ctx.database, datdba: owner, encoding: 6, datlocprovider: 'c', datistemplate: false,
    datallowconn: true, datconnlimit: -1, datfrozenxid: 0, datminmxid: 1, dattablespace: 1663, datcollate: 'C.UTF-8', datctype: 'C.UTF-8',
    daticulocale: null, datcollversion: null, datacl: acls.aclText(acl),
  }];
}

/** The session describes its own settings (src/session/settings-registry.ts). */
function pgSettings(v: CatalogView): Row[] {
  return (v.ctx.settingRows?.() ?? []).map((r) => ({ ...r }));
}

function pgAm(): Row[] {
  return [
    { oid: HEAP_AM_OID, amname: 'heap', amhandler: 0, amtype: 't' },
    { oid: BTREE_AM_OID, amname: 'btree', amhandler: 0, amtype: 'i' },
    { oid: HASH_AM_OID, amname: 'hash', amhandler: 0, amtype: 'i' },
  ];
}

function pgTablespace(): Row[] {
  return [
    { oid: 1663, spcname: 'pg_default', spcowner: BOOTSTRAP_SUPERUSER_OID, spcacl: null, spcoptions: null },
    { oid: 1664, spcname: 'pg_global', spcowner: BOOTSTRAP_SUPERUSER_OID, spcacl: null, spcoptions: null },
  ];
}

function pgCollation(): Row[] {
  return [{ oid: DEFAULT_COLLATION_OID, collname: 'default', collnamespace: PG_CATALOG_NAMESPACE_OID, collowner: BOOTSTRAP_SUPERUSER_OID, collprovider: 'd', collisdeterministic: true, collencoding: -1, collcollate: null, collctype: null, colliculocale: null, collversion: null }];
}

function pgProc(): Row[] {
  return [...builtinProcs().map(pgProcRow), arrayInProcRow()];
}

/** The languages built-in functions are written in (PostgreSQL's OIDs; Floe has no procedural language). */
function pgLanguage(): Row[] {
  return [[12, 'internal', 2246], [13, 'c', 2247], [14, 'sql', 2248]].map(([oid, lanname, lanvalidator]) => ({
    oid, lanname, lanowner: BOOTSTRAP_SUPERUSER_OID, lanispl: false, lanpltrusted: lanname === 'sql', lanplcallfoid: 0, laninline: 0, lanvalidator, lanacl: null,
  }));
}

/** array_in, which pg_type's typinput names (not a callable function in Floe). */
function arrayInProcRow(): Row {
  return {
    oid: 750, proname: 'array_in', pronamespace: PG_CATALOG_NAMESPACE_OID, proowner: BOOTSTRAP_SUPERUSER_OID, prolang: 12, procost: 1, prorows: 0,
    provariadic: 0, prosupport: 0, prokind: 'f', prosecdef: false, proleakproof: false, proisstrict: true, proretset: false, provolatile: 's',
    proparallel: 's', pronargs: 3, pronargdefaults: 0, prorettype: 2277, proargtypes: [2275, 26, 23], proallargtypes: null, proargmodes: null,
    proargnames: null, proargdefaults: null, protrftypes: null, prosrc: 'array_in', probin: null, prosqlbody: null, proconfig: null, proacl: null,
  };
}

function pgTables(v: CatalogView): Row[] {
  const acls = catalogAcls(v.ctx);
  return v.tables.map((t) => ({
    schemaname: t.namespace, tablename: t.name, tableowner: acls.userName(acls.relation(t.id).owner), tablespace: null, hasindexes: t.primaryKey.length > 0 || uniqueIndexesOf(t).length > 0,
    hasrules: false, hastriggers: false, rowsecurity: false,
  }));
}

function pgIndexes(v: CatalogView): Row[] {
  return [...v.tables.filter((t) => t.primaryKey.length > 0).map((t) => ({
    schemaname: t.namespace, tablename: t.name, indexname: pkName(t), tablespace: null,
    indexdef: `CREATE UNIQUE INDEX ${pkName(t)} ON ${t.namespace}.${t.name} USING btree (${t.primaryKey.join(', ')})`,
  })), ...indexedRelations(v).flatMap(uniquePgIndexesRows)];
}


// information_schema

function isSchemata(v: CatalogView): Row[] {
  const acls = catalogAcls(v.ctx);
  const scope = informationSchemaScope(v);
  return allNamespaces(v).flatMap((n) => {
    const owner = acls.roleName(acls.schema(n).owner);
    return owner === undefined || !scope.schema(n) ? [] : [{ catalog_name: v.ctx.database, schema_name: n, schema_owner: owner, default_character_set_catalog: null, default_character_set_schema: null, default_character_set_name: null, sql_path: null }];
  });
}

function isTables(v: CatalogView): Row[] {
  const rows: Row[] = v.tables.map((t) => ({
    table_catalog: v.ctx.database, table_schema: t.namespace, table_name: t.name, table_type: isTempNamespaceName(t.namespace) ? 'LOCAL TEMPORARY' : 'BASE TABLE', self_referencing_column_name: null,
    reference_generation: null, user_defined_type_catalog: null, user_defined_type_schema: null, user_defined_type_name: null,
    is_insertable_into: 'YES', is_typed: 'NO', commit_action: null,
  }));
  rows.push(...isTablesViewRows(v));
  for (const vt of v.virtualTables) {
    rows.push({ table_catalog: v.ctx.database, table_schema: vt.schema, table_name: vt.name, table_type: virtualRelkind(vt.schema, vt.name) === 'r' ? 'BASE TABLE' : 'VIEW', is_insertable_into: 'NO', is_typed: 'NO' });
  }
  const scope = informationSchemaScope(v);
  return rows.filter((r) => scope.relation(String(r.table_schema), String(r.table_name)));
}

function dataTypeName(t: SqlType): string {
  if (t.kind === 'array') return 'ARRAY';
  if (t.kind === 'text' && t.enumType !== undefined) return 'USER-DEFINED';
  if (t.kind === 'bpchar') return 'character';
  return formatType(t.kind === 'varchar' ? { kind: 'varchar' } : t.kind === 'numeric' ? { kind: 'numeric' } : t);
}

function isColumns(v: CatalogView): Row[] {
  const rows: Row[] = [];
  const push = (schema: string, table: string, i: number, c: CatalogTableInfo['columns'][number], pk: boolean) => {
    const t = c.type;
    const numericPrecision = t.kind === 'int2' ? 16 : t.kind === 'int4' ? 32 : t.kind === 'int8' ? 64 : t.kind === 'float4' ? 24 : t.kind === 'float8' ? 53 : t.kind === 'numeric' ? t.precision ?? null : null;
    rows.push({
      table_catalog: v.ctx.database, table_schema: schema, table_name: table, column_name: c.name, ordinal_position: i + 1,
      column_default: c.defaultExpr === undefined ? null : deparseSequenceCalls(v, deparseDefault(c.defaultExpr, c.type)), is_nullable: c.nullable && !pk ? 'YES' : 'NO', data_type: dataTypeName(t),
      character_maximum_length: t.kind === 'varchar' || t.kind === 'bpchar' ? t.length ?? null : null,
      character_octet_length: t.kind === 'varchar' || t.kind === 'bpchar' || (t.kind === 'text' && t.enumType === undefined) ? (t.kind !== 'text' && t.length !== undefined ? t.length * 4 : 1073741824) : null,
      numeric_precision: numericPrecision,
      numeric_precision_radix: numericPrecision === null ? null : t.kind === 'numeric' ? 10 : 2,
      numeric_scale: t.kind === 'numeric' ? t.scale ?? null : t.kind === 'int2' || t.kind === 'int4' || t.kind === 'int8' ? 0 : null,
      datetime_precision: t.kind === 'date' ? 0 : t.kind === 'time' || t.kind === 'timetz' || t.kind === 'timestamp' || t.kind === 'timestamptz' || t.kind === 'interval' ? 6 : null,
      ...udtColumns(v.ctx.database, t),
      dtd_identifier: String(i + 1), is_self_referencing: 'NO', is_identity: 'NO', identity_cycle: 'NO', is_generated: 'NEVER', is_updatable: 'YES',
      ...identityColumns(v, c),
    });
  };
  for (const t of v.tables) t.columns.forEach((c, i) => push(t.namespace, t.name, i, c, t.primaryKey.includes(c.name)));
  for (const view of v.views) view.columns.forEach((c, i) => push(view.namespace, view.name, i, { ...c, nullable: true }, false));
  for (const vt of v.virtualTables) userColumns(vt).forEach((c, i) => push(vt.schema, vt.name, i, { ...c, nullable: true }, false));
  const scope = informationSchemaScope(v);
  return rows.filter((r) => scope.column(String(r.table_schema), String(r.table_name), String(r.column_name)));
}

function isTableConstraints(v: CatalogView): Row[] {
  return [...v.tables.filter((t) => t.primaryKey.length > 0).map((t) => ({
    constraint_catalog: v.ctx.database, constraint_schema: t.namespace, constraint_name: pkName(t), table_catalog: v.ctx.database,
    table_schema: t.namespace, table_name: t.name, constraint_type: 'PRIMARY KEY', is_deferrable: 'NO', initially_deferred: 'NO', enforced: 'YES', nulls_distinct: null,
  })), ...v.tables.flatMap((t) => uniqueTableConstraintRows(t, v.ctx.database)), ...checkAndForeignKeyTableConstraints(v)];
}

function isKeyColumnUsage(v: CatalogView): Row[] {
  return [...v.tables.flatMap((t) => t.primaryKey.map((k, i) => ({
    constraint_catalog: v.ctx.database, constraint_schema: t.namespace, constraint_name: pkName(t), table_catalog: v.ctx.database,
    table_schema: t.namespace, table_name: t.name, column_name: k, ordinal_position: i + 1, position_in_unique_constraint: null,
  }))), ...v.tables.flatMap((t) => uniqueKeyColumnUsageRows(t, v.ctx.database)), ...foreignKeyColumnUsage(v)];
}

/** Row generators by `schema.name`; relations not listed here are valid and empty. */
export const catalogRowSources: Readonly<Record<string, (v: CatalogView) => Row[]>> = {
  'pg_catalog.pg_class': pgClass,
  'pg_catalog.pg_attribute': pgAttribute,
  'pg_catalog.pg_index': pgIndex,
  'pg_catalog.pg_constraint': pgConstraint,
  'pg_catalog.pg_attrdef': pgAttrdef,
  'pg_catalog.pg_namespace': pgNamespace,
  'pg_catalog.pg_type': (v) => [...pgTypeRows(), ...userTypePgTypeRows(v)],
  'pg_catalog.pg_enum': pgEnumRows,
  'pg_catalog.pg_roles': pgRolesRows,
  'pg_catalog.pg_authid': pgAuthidRows,
  'pg_catalog.pg_user': pgUserRows,
  'pg_catalog.pg_shadow': pgShadowRows,
  'pg_catalog.pg_policy': pgPolicyRows,
  'pg_catalog.pg_default_acl': pgDefaultAclRows,
  'pg_catalog.pg_policies': pgPoliciesRows,
  'pg_catalog.pg_hba_file_rules': (v) => [...(v.ctx.server?.hbaFileRules() ?? [])],
  'pg_catalog.pg_auth_members': pgAuthMembersRows,
  'pg_catalog.pg_database': pgDatabase,
  'pg_catalog.pg_settings': pgSettings,
  'pg_catalog.pg_am': () => pgAm(),
  'pg_catalog.pg_tablespace': () => pgTablespace(),
  'pg_catalog.pg_collation': () => pgCollation(),
  'pg_catalog.pg_proc': () => pgProc(),
  'pg_catalog.pg_language': () => pgLanguage(),
  'pg_catalog.pg_tables': pgTables,
  'pg_catalog.pg_indexes': pgIndexes,
  'pg_catalog.pg_stat_activity': pgStatActivityRows,
  'pg_catalog.pg_locks': pgLocksRows,
  'pg_catalog.pg_partitioned_table': pgPartitionedTableRows,
  'information_schema.schemata': isSchemata,
  'information_schema.tables': isTables,
  'information_schema.views': (v) => {
    const scope = informationSchemaScope(v);
    return [...isViewsRows(v), ...serviceViewRows(v)].filter((r) => scope.relation(String(r.table_schema), String(r.table_name)));
  },
  'pg_catalog.pg_views': pgViewsRows,
  'pg_catalog.pg_matviews': pgMatviewsRows,
  'information_schema.columns': isColumns,
  'information_schema.table_constraints': isTableConstraints,
  'information_schema.key_column_usage': isKeyColumnUsage,
  ...sequenceRowSources,
  ...checkAndForeignKeyRowSources,
  ...privilegeRowSources,
  'information_schema.sequences': (v) => {
    const scope = informationSchemaScope(v);
    return (sequenceRowSources['information_schema.sequences']?.(v) ?? []).filter((r) => scope.sequence(String(r.sequence_schema), String(r.sequence_name)));
  },
  'pg_catalog.pg_depend': (v) => [...(sequenceRowSources['pg_catalog.pg_depend']?.(v) ?? []), ...columnDefaultDependencies(v), ...viewRuleDependencies(v)],
  'pg_catalog.pg_rewrite': pgRewriteRows,
  'pg_catalog.pg_description': (v) => [...pgDescription(), ...pgDescriptionRows(v)],
};

/** Comments: the public schema's, as initdb sets it (pg_dump would otherwise blank it on restore). */
const PG_NAMESPACE_OID = 2615;

function pgDescription(): Row[] {
  return [{ objoid: PUBLIC_NAMESPACE_OID, classoid: PG_NAMESPACE_OID, objsubid: 0, description: 'standard public schema' }];
}

export { PG_CLASS_OID };
