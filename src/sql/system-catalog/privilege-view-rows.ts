import { AclRight, PG_DATABASE_OWNER_OID, PUBLIC_ROLE, acldefault, defaultObjectAcl } from '../../lake/index.js';
import type { Acl } from '../../lake/index.js';
import { explodeAcl } from './acl-functions.js';
import { SYSTEM_SCHEMA_ACL, catalogAcls, catalogColumnAcl, type CatalogAcls } from './catalog-acls.js';
import { BOOTSTRAP_SUPERUSER_OID, PG_CLASS_OID, namespaceOid } from './catalog-oids.js';
import { catalogShapes } from './catalog-shapes.js';
import type { CatalogView } from './catalog-view.js';
import { roleCatalogOf } from './role-rows.js';
import { SEQUENCE_COLUMNS } from './sequence-catalog-rows.js';

/**
 * information_schema's privilege views (table_privileges, column_privileges,
 * usage_privileges and their role_* subsets), the role views they filter by (enabled_roles,
 * applicable_roles, administrable_role_authorizations), and pg_init_privs. Each follows
 * PostgreSQL 15's definition in information_schema.sql: an ACL (or its default) exploded
 * into one row per grantee and privilege, shown when the current user has the privileges
 * of the grantor or of the grantee, or the grantee is PUBLIC.
 */
type Row = Record<string, unknown>;

const R = AclRight;
const TABLE_RIGHTS = R.insert | R.select | R.update | R.delete | R.truncate | R.references | R.trigger;
const COLUMN_RIGHTS = R.insert | R.select | R.update | R.references;
const PG_NAMESPACE_OID = 2615;

/** A relation as the privilege views read it from pg_class and pg_attribute. */
interface AclRelation {
  readonly schema: string;
  readonly name: string;
  readonly relkind: string;
  readonly owner: number;
  readonly acl: Acl | null;
  readonly columns: readonly { readonly name: string; readonly acl: Acl | null }[];
}

const catalogKinds = new Map(catalogShapes.map((c) => [`${c.schema}.${c.name}`, c.relkind]));

function aclRelations(v: CatalogView, acls: CatalogAcls): AclRelation[] {
  const lake = (id: number, schema: string, name: string, relkind: string, columns: readonly string[]): AclRelation => {
    const r = acls.relation(id);
    return { schema, name, relkind, owner: r.owner, acl: r.acl, columns: columns.map((c) => ({ name: c, acl: r.columnAcls[c] ?? null })) };
  };
  return [
    ...v.tables.map((t) => lake(t.id, t.namespace, t.name, 'r', t.columns.map((c) => c.name))),
    ...v.views.map((view) => lake(view.id, view.namespace, view.name, 'v', view.columns.map((c) => c.name))),
    ...v.sequences.map((s) => lake(s.id, s.namespace, s.name, 'S', SEQUENCE_COLUMNS.map((c) => c.name))),
    ...v.virtualTables.map((vt): AclRelation => {
      const { owner, acl } = acls.catalogRelation(vt.schema, vt.name);
      const columns = vt.columns.filter((c) => c.system !== true).map((c) => ({ name: c.name, acl: catalogColumnAcl(vt.schema, vt.name, c.name) ?? null }));
      return { schema: vt.schema, name: vt.name, relkind: catalogKinds.get(`${vt.schema}.${vt.name}`) ?? 'v', owner, acl, columns };
    }),
  ];
}

/** What the privilege views share: role names, the current user's view of roles, and the visibility rule. */
class GrantReader {
  readonly acls: CatalogAcls;
  readonly #me: number | undefined;

  constructor(v: CatalogView) {
    this.acls = catalogAcls(v.ctx);
    this.#me = this.acls.currentRole;
  }

  /** pg_has_role(role, 'USAGE') for the current user. */
  mine(role: number): boolean {
    return this.#me !== undefined && this.acls.hasPrivilegesOf(this.#me, role);
  }

  /** The grantee as the views name it: PUBLIC, a role's name, or undefined for a role that is gone. */
  granteeName(oid: number): string | undefined {
    return oid === PUBLIC_ROLE ? 'PUBLIC' : this.acls.roleName(oid);
  }

  visible(grantor: number, grantee: number): boolean {
    return grantee === PUBLIC_ROLE || this.mine(grantor) || this.mine(grantee);
  }

  /** is_grantable: the grantee has the owner's privileges (owners hold every grant option) or holds the option. */
  grantable(grantee: number, owner: number, option: boolean): string {
    return option || (grantee !== PUBLIC_ROLE && this.acls.hasPrivilegesOf(grantee, owner)) ? 'YES' : 'NO';
  }

  /** enabled_roles: the role names whose privileges the current user has. */
  enabledRoleNames(): Set<string> {
    return new Set(this.acls.graph.roles().filter((r) => this.mine(r.oid)).map((r) => r.name));
  }
}

function tablePrivileges(v: CatalogView): Row[] {
  const g = new GrantReader(v);
  const rows: Row[] = [];
  for (const rel of aclRelations(v, g.acls)) {
    if (rel.relkind !== 'r' && rel.relkind !== 'v') continue;
    for (const e of explodeAcl(rel.acl ?? acldefault('table', rel.owner))) {
      const grantor = g.acls.roleName(e.grantor);
      const grantee = g.granteeName(e.grantee);
      if ((e.right & TABLE_RIGHTS) === 0 || grantor === undefined || grantee === undefined || !g.visible(e.grantor, e.grantee)) continue;
      rows.push({
        grantor, grantee, table_catalog: v.ctx.database, table_schema: rel.schema, table_name: rel.name, privilege_type: e.privilegeType,
        is_grantable: g.grantable(e.grantee, rel.owner, e.isGrantable), with_hierarchy: e.right === R.select ? 'YES' : 'NO',
      });
    }
  }
  return rows;
}

function columnPrivileges(v: CatalogView): Row[] {
  const g = new GrantReader(v);
  const rows: Row[] = [];
  for (const rel of aclRelations(v, g.acls)) {
    if (rel.relkind !== 'r' && rel.relkind !== 'v') continue;
    const tableLevel = explodeAcl(rel.acl ?? acldefault('table', rel.owner));
    // The view's UNION: a table-level grant stands for one row per column; a column grant the same row appears once.
    for (const column of rel.columns) {
      const seen = new Set<string>();
      for (const e of [...tableLevel, ...explodeAcl(column.acl ?? [])]) {
        const key = `${e.grantor}/${e.grantee}/${e.right}/${e.isGrantable}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const grantor = g.acls.roleName(e.grantor);
        const grantee = g.granteeName(e.grantee);
        if ((e.right & COLUMN_RIGHTS) === 0 || grantor === undefined || grantee === undefined || !g.visible(e.grantor, e.grantee)) continue;
        rows.push({
          grantor, grantee, table_catalog: v.ctx.database, table_schema: rel.schema, table_name: rel.name, column_name: column.name,
          privilege_type: e.privilegeType, is_grantable: g.grantable(e.grantee, rel.owner, e.isGrantable),
        });
      }
    }
  }
  return rows;
}

function usagePrivileges(v: CatalogView): Row[] {
  const g = new GrantReader(v);
  // Collations have no privileges: every one is shown as usable by PUBLIC (Floe has the default collation only).
  const rows: Row[] = [{
    grantor: g.acls.roleName(BOOTSTRAP_SUPERUSER_OID), grantee: 'PUBLIC', object_catalog: v.ctx.database, object_schema: 'pg_catalog',
    object_name: 'default', object_type: 'COLLATION', privilege_type: 'USAGE', is_grantable: 'NO',
  }];
  for (const rel of aclRelations(v, g.acls)) {
    if (rel.relkind !== 'S') continue;
    // PostgreSQL's view stands a table's default in for a sequence's NULL ACL, so such a sequence shows no USAGE.
    for (const e of explodeAcl(rel.acl ?? acldefault('table', rel.owner))) {
      const grantor = g.acls.roleName(e.grantor);
      const grantee = g.granteeName(e.grantee);
      if (e.right !== R.usage || grantor === undefined || grantee === undefined || !g.visible(e.grantor, e.grantee)) continue;
      rows.push({
        grantor, grantee, object_catalog: v.ctx.database, object_schema: rel.schema, object_name: rel.name, object_type: 'SEQUENCE',
        privilege_type: 'USAGE', is_grantable: g.grantable(e.grantee, rel.owner, e.isGrantable),
      });
    }
  }
  return rows;
}

/** The rows of `source` whose grantor or grantee is one of the current user's enabled roles. */
function roleGrants(source: (v: CatalogView) => Row[]): (v: CatalogView) => Row[] {
  return (v) => {
    const enabled = new GrantReader(v).enabledRoleNames();
    return source(v).filter((r) => enabled.has(String(r.grantor)) || enabled.has(String(r.grantee)));
  };
}

function enabledRoles(v: CatalogView): Row[] {
  return [...new GrantReader(v).enabledRoleNames()].map((role_name) => ({ role_name }));
}

function applicableRoles(v: CatalogView): Row[] {
  const g = new GrantReader(v);
  const edges = new Map<string, { member: number; role: number; admin: boolean }>();
  for (const m of roleCatalogOf(v.ctx)?.memberships() ?? []) edges.set(`${m.memberOid}/${m.roleOid}/${m.adminOption}`, { member: m.memberOid, role: m.roleOid, admin: m.adminOption });
  // The database's owner is an implicit member of pg_database_owner.
  const dba = g.acls.database().owner;
  edges.set(`${dba}/${PG_DATABASE_OWNER_OID}/false`, { member: dba, role: PG_DATABASE_OWNER_OID, admin: false });
  const rows: Row[] = [];
  for (const e of edges.values()) {
    const grantee = g.acls.roleName(e.member);
    const role = g.acls.roleName(e.role);
    if (grantee === undefined || role === undefined || !g.mine(e.member)) continue;
    rows.push({ grantee, role_name: role, is_grantable: e.admin ? 'YES' : 'NO' });
  }
  return rows;
}

/** pg_init_privs: the ACLs initdb gives pg_catalog, the public schema and pg_catalog's relations (pg_dump dumps only changes from them). */
function pgInitPrivs(v: CatalogView): Row[] {
  const acls = catalogAcls(v.ctx);
  const initial = (objoid: number, classoid: number, objsubid: number, acl: Acl | null): Row[] =>
    acl === null ? [] : [{ objoid, classoid, objsubid, privtype: 'i', initprivs: acls.aclText(acl) }];
  const rows: Row[] = [
    ...initial(namespaceOid('pg_catalog'), PG_NAMESPACE_OID, 0, SYSTEM_SCHEMA_ACL),
    ...initial(namespaceOid('public'), PG_NAMESPACE_OID, 0, defaultObjectAcl({ kind: 'schema', name: 'public' }).acl),
  ];
  for (const vt of v.virtualTables) {
    if (vt.schema !== 'pg_catalog') continue;
    rows.push(...initial(vt.oid, PG_CLASS_OID, 0, acls.catalogRelation(vt.schema, vt.name).acl));
    vt.columns.filter((c) => c.system !== true).forEach((c, i) => rows.push(...initial(vt.oid, PG_CLASS_OID, i + 1, catalogColumnAcl(vt.schema, vt.name, c.name) ?? null)));
  }
  return rows;
}

export const privilegeRowSources: Readonly<Record<string, (v: CatalogView) => Row[]>> = {
  'information_schema.table_privileges': tablePrivileges,
  'information_schema.role_table_grants': roleGrants(tablePrivileges),
  'information_schema.column_privileges': columnPrivileges,
  'information_schema.role_column_grants': roleGrants(columnPrivileges),
  'information_schema.usage_privileges': usagePrivileges,
  'information_schema.role_usage_grants': roleGrants(usagePrivileges),
  'information_schema.enabled_roles': enabledRoles,
  'information_schema.applicable_roles': applicableRoles,
  'information_schema.administrable_role_authorizations': (v) => applicableRoles(v).filter((r) => r.is_grantable === 'YES'),
  'pg_catalog.pg_init_privs': pgInitPrivs,
};
