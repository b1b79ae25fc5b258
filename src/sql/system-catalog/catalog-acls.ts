import {
  AclRight, DEFAULT_ROLE_ATTRIBUTES, PUBLIC_ROLE, RoleGraph,
  aclItem, aclMask, aclMaskOfAcl, allDataRelationRights, allDataSchemaRights, defaultObjectAcl, formatAclItem, securedObjectKey,
} from '../../lake/index.js';
import type { Acl, MembershipOracle, ObjectAclRecord, PrivilegeCatalog, SecuredObject } from '../../lake/index.js';
import { BOOTSTRAP_SUPERUSER_OID } from './catalog-oids.js';
import { roleCatalogOf } from './role-rows.js';

/**
 * Owners and ACLs as the catalogs show them (relowner/relacl, attacl, nspowner/nspacl,
 * datdba/datacl) and as has_*_privilege and information_schema judge them: the warehouse's
 * records (src/lake/security/object-acl.ts) for lake objects, and PostgreSQL 15's initdb
 * ACLs for the system schemas and catalog relations, whose owner is the bootstrap superuser.
 */

/** An object's owner and ACL (NULL: its kind's default), with a relation's column ACLs by name. */
export interface OwnedAcl {
  readonly owner: number;
  readonly acl: Acl | null;
  readonly columnAcls: Readonly<Record<string, Acl>>;
}

/** A relation as pg_class_aclmask reads it. */
export interface AclRelationFacts {
  /** 'S' for a sequence; any other relkind is checked as a table. */
  readonly relkind: string;
  readonly owner: number;
  readonly acl: Acl | null;
  /** A catalog table with a pinned oid: PostgreSQL lets only superusers write it, whatever its ACL. */
  readonly systemCatalog?: boolean;
}

export interface CatalogAcls {
  readonly graph: RoleGraph;
  /** Membership as privileges use it (INHERIT chains, superusers, pg_database_owner for the database's owner). */
  readonly oracle: MembershipOracle;
  /** The current user's oid, or undefined when the role is gone. */
  readonly currentRole: number | undefined;
  relation(id: number): OwnedAcl;
  schema(name: string): OwnedAcl;
  database(): OwnedAcl;
  /** A catalog relation (pg_catalog, information_schema, Floe's own views). */
  catalogRelation(schema: string, name: string): OwnedAcl;
  /** has_privs_of_role(role, of). */
  hasPrivilegesOf(role: number, of: number): boolean;
  /**
   * pg_namespace_aclmask: the bits of `mask` `role` holds on the schema, counting
   * pg_read_all_data / pg_write_all_data for USAGE and the session's temporary schema.
   */
  schemaMask(role: number, schema: string, mask: number): number;
  /** pg_database_aclmask. */
  databaseMask(role: number, mask: number): number;
  /** A type's owner and ACL (pg_type.typowner, typacl). */
  type(oid: number): OwnedAcl;
  /** A type's rights held by `role` (a built-in or user type: USAGE for everyone unless revoked). */
  typeMask(role: number, oid: number, mask: number): number;
  /**
   * pg_class_aclmask (how: any): catalog tables are written by superusers only;
   * pg_read_all_data adds SELECT and pg_write_all_data INSERT, UPDATE and DELETE.
   */
  relationMask(role: number, rel: AclRelationFacts, mask: number): number;
  /** pg_attribute_aclmask (how: any): what a column's own ACL gives (NULL gives nothing); table-level rights not included. */
  columnMask(role: number, tableOwner: number, columnAcl: Acl | null, mask: number): number;
  roleName(oid: number): string | undefined;
  /** pg_get_userbyid: the name, or `unknown (OID=n)` for a role that is gone. */
  userName(oid: number): string;
  /** An ACL as the catalogs' aclitem[] columns print it (text elements), NULL for NULL. */
  aclText(acl: Acl | null): string[] | null;
}

const R = AclRight;
const TABLE_RIGHTS = R.insert | R.select | R.update | R.delete | R.truncate | R.references | R.trigger;
const PG_READ_ALL_STATS_OID = 3375;

/** pg_catalog's and information_schema's ACL after initdb: the bootstrap superuser may use and create, everyone may use. */
export const SYSTEM_SCHEMA_ACL: Acl = [
  aclItem(BOOTSTRAP_SUPERUSER_OID, BOOTSTRAP_SUPERUSER_OID, R.usage | R.create),
  aclItem(PUBLIC_ROLE, BOOTSTRAP_SUPERUSER_OID, R.usage),
];

const ownerOnly = (extra: Acl = []): Acl => [aclItem(BOOTSTRAP_SUPERUSER_OID, BOOTSTRAP_SUPERUSER_OID, TABLE_RIGHTS), ...extra];
const byBootstrap = (grantee: number, privileges: number) => aclItem(grantee, BOOTSTRAP_SUPERUSER_OID, privileges);

/** Most catalog relations: readable by everyone. */
const READABLE_CATALOG_ACL = ownerOnly([byBootstrap(PUBLIC_ROLE, R.select)]);

/** The catalog relations whose initdb ACL is not READABLE_CATALOG_ACL (PostgreSQL 15's system_views.sql and catalogs). */
const CATALOG_ACL_EXCEPTIONS: ReadonlyMap<string, Acl | null> = new Map<string, Acl | null>([
  ...['pg_file_settings', 'pg_hba_file_rules', 'pg_ident_file_mappings', 'pg_config', 'pg_authid', 'pg_shadow', 'pg_statistic_ext_data',
    'pg_user_mapping', 'pg_replication_origin_status', 'pg_subscription', 'pg_statistic', 'pg_largeobject']
    .map((n): [string, Acl] => [`pg_catalog.${n}`, ownerOnly()]),
  ['pg_catalog.pg_settings', ownerOnly([byBootstrap(PUBLIC_ROLE, R.select | R.update)])],
  ['pg_catalog.pg_backend_memory_contexts', ownerOnly([byBootstrap(PG_READ_ALL_STATS_OID, R.select)])],
  ['pg_catalog.pg_shmem_allocations', ownerOnly([byBootstrap(PG_READ_ALL_STATS_OID, R.select)])],
  ...['sql_parts', 'transforms', '_pg_foreign_table_columns', '_pg_foreign_data_wrappers', '_pg_foreign_servers', '_pg_foreign_tables',
    '_pg_user_mappings'].map((n): [string, null] => [`information_schema.${n}`, null]),
]);

/** pg_subscription is unreadable except column by column, subconninfo (which may hold a password) excepted. */
const SUBSCRIPTION_SECRET_COLUMN = 'subconninfo';

/** The initdb ACL of a catalog relation's column, or undefined when it has none. */
export function catalogColumnAcl(schema: string, name: string, column: string): Acl | undefined {
  return schema === 'pg_catalog' && name === 'pg_subscription' && column !== SUBSCRIPTION_SECRET_COLUMN
    ? [byBootstrap(PUBLIC_ROLE, R.select)] : undefined;
}

function isSystemSchema(name: string): boolean {
  return name === 'pg_catalog' || name === 'information_schema';
}

export function privilegeCatalogOf(ctx: { readonly warehouse: unknown }): PrivilegeCatalog | undefined {
  return (ctx.warehouse as { readonly privileges?: PrivilegeCatalog } | undefined)?.privileges;
}

function recordKey(o: SecuredObject): string {
  return `${o.kind}:${securedObjectKey(o)}`;
}

class CatalogAclsImpl implements CatalogAcls {
  readonly graph: RoleGraph;
  readonly oracle: MembershipOracle;
  readonly currentRole: number | undefined;
  readonly #records: ReadonlyMap<string, ObjectAclRecord>;
  readonly #tempNamespace: string | undefined;

  constructor(ctx: { readonly warehouse: unknown; readonly user?: string }) {
    this.#tempNamespace = (ctx.warehouse as { readonly tempNamespace?: string } | undefined)?.tempNamespace;
    this.#records = new Map((privilegeCatalogOf(ctx)?.list() ?? []).map((r) => [recordKey(r.object), r]));
    const roles = roleCatalogOf(ctx);
    // The database's owner has the privileges of pg_database_owner, as PostgreSQL's roles_is_member_of adds it.
    const options = { databaseOwner: this.database().owner };
    // A warehouse without roles (a bare catalog, a test's stub) knows one user, who may do everything.
    this.graph = roles === undefined
      ? new RoleGraph([{ ...DEFAULT_ROLE_ATTRIBUTES, oid: BOOTSTRAP_SUPERUSER_OID, name: ctx.user ?? 'floe', superuser: true }], [], options)
      : new RoleGraph(roles.list(), roles.memberships(), options);
    this.oracle = this.graph.privilegeOracle;
    this.currentRole = ctx.user === undefined ? undefined : this.graph.role(ctx.user)?.oid;
  }

  #record(object: SecuredObject): ObjectAclRecord | undefined {
    return this.#records.get(recordKey(object));
  }

  relation(id: number): OwnedAcl {
    return this.#record({ kind: 'relation', id }) ?? defaultObjectAcl({ kind: 'relation', id });
  }

  schema(name: string): OwnedAcl {
    const object: SecuredObject = { kind: 'schema', name };
    const r = this.#record(object);
    if (r !== undefined) return r;
    return isSystemSchema(name) ? { owner: BOOTSTRAP_SUPERUSER_OID, acl: SYSTEM_SCHEMA_ACL, columnAcls: {} } : defaultObjectAcl(object);
  }

  database(): OwnedAcl {
    return this.#record({ kind: 'database' }) ?? defaultObjectAcl({ kind: 'database' });
  }

  catalogRelation(schema: string, name: string): OwnedAcl {
    const key = `${schema}.${name}`;
    const acl = CATALOG_ACL_EXCEPTIONS.has(key) ? CATALOG_ACL_EXCEPTIONS.get(key)! : READABLE_CATALOG_ACL;
    return { owner: BOOTSTRAP_SUPERUSER_OID, acl, columnAcls: {} };
  }

  hasPrivilegesOf(role: number, of: number): boolean {
    return this.graph.hasPrivilegesOf(role, of);
  }

  schemaMask(role: number, schema: string, mask: number): number {
    if (this.graph.isSuperuser(role)) return mask;
    // The session's own temporary schema: every right with TEMP on the database, else USAGE alone.
    if (schema === this.#tempNamespace) return this.databaseMask(role, R.temporary) !== 0 ? mask & (R.usage | R.create) : mask & R.usage;
    const { owner, acl } = this.schema(schema);
    const held = aclMask({ kind: 'schema', owner, acl }, role, mask, this.oracle, 'any');
    return held !== 0 ? held : allDataSchemaRights(this.graph, role, mask);
  }

  databaseMask(role: number, mask: number): number {
    const { owner, acl } = this.database();
    return aclMask({ kind: 'database', owner, acl }, role, mask, this.oracle, 'any');
  }

  type(oid: number): OwnedAcl {
    const object: SecuredObject = { kind: 'type', oid };
    return this.#record(object) ?? defaultObjectAcl(object);
  }

  typeMask(role: number, oid: number, mask: number): number {
    const { owner, acl } = this.type(oid);
    return aclMask({ kind: 'type', owner, acl }, role, mask, this.oracle, 'any');
  }

  relationMask(role: number, rel: AclRelationFacts, wanted: number): number {
    let mask = wanted;
    if (rel.systemCatalog === true && !this.graph.isSuperuser(role)) mask &= ~(R.insert | R.update | R.delete | R.truncate | R.usage);
    const held = aclMask({ kind: rel.relkind === 'S' ? 'sequence' : 'table', owner: rel.owner, acl: rel.acl }, role, mask, this.oracle, 'any');
    // How 'any' asks: the predefined roles only when the ACL gave nothing (sequences too, as pg_class_aclmask).
    return held !== 0 ? held : allDataRelationRights(this.graph, role, mask);
  }

  columnMask(role: number, tableOwner: number, columnAcl: Acl | null, mask: number): number {
    return columnAcl === null ? 0 : aclMaskOfAcl(columnAcl, role, tableOwner, mask, this.oracle, 'any');
  }

  roleName(oid: number): string | undefined {
    return this.graph.roleByOid(oid)?.name;
  }

  userName(oid: number): string {
    return this.roleName(oid) ?? `unknown (OID=${oid})`;
  }

  aclText(acl: Acl | null): string[] | null {
    return acl === null ? null : acl.map((item) => formatAclItem(item, (oid) => this.roleName(oid)));
  }
}

/** The owners and ACLs of the query's warehouse, as of now. Build one per catalog scan or function call. */
export function catalogAcls(ctx: { readonly warehouse: unknown; readonly user?: string }): CatalogAcls {
  return new CatalogAclsImpl(ctx);
}
