import type { RoleCatalog, RoleRecord } from '../../lake/index.js';
import type { VirtualTableContext } from '../binder/virtual-table.js';
import type { CatalogView } from './catalog-view.js';

type Row = Record<string, unknown>;

/**
 * pg_authid, pg_roles, pg_user, pg_shadow and pg_auth_members from the catalog's roles
 * (src/lake/security). pg_roles and pg_user mask the password as PostgreSQL does;
 * pg_authid and pg_shadow show the verifier, and only superusers may read them
 * (relation-privileges.ts).
 */
export function roleCatalogOf(ctx: Pick<VirtualTableContext, 'warehouse'>): RoleCatalog | undefined {
  return (ctx.warehouse as { readonly roles?: RoleCatalog } | undefined)?.roles;
}

function roles(v: CatalogView): readonly RoleRecord[] {
  return roleCatalogOf(v.ctx)?.list() ?? [];
}

function authidRow(r: RoleRecord): Row {
  return {
    oid: r.oid, rolname: r.name, rolsuper: r.superuser, rolinherit: r.inherit, rolcreaterole: r.createRole, rolcreatedb: r.createDb,
    rolcanlogin: r.canLogin, rolreplication: r.replication, rolbypassrls: r.bypassRls, rolconnlimit: r.connectionLimit,
    rolpassword: r.password, rolvaliduntil: r.validUntilMicros,
  };
}

export function pgAuthidRows(v: CatalogView): Row[] {
  return roles(v).map(authidRow);
}

export function pgRolesRows(v: CatalogView): Row[] {
  return roles(v).map((r) => ({ ...authidRow(r), rolpassword: '********', rolconfig: null }));
}

export function pgUserRows(v: CatalogView): Row[] {
  return pgShadowRows(v).map((r) => ({ ...r, passwd: '********' }));
}

export function pgShadowRows(v: CatalogView): Row[] {
  return roles(v).filter((r) => r.canLogin).map((r) => ({
    usename: r.name, usesysid: r.oid, usecreatedb: r.createDb, usesuper: r.superuser, userepl: r.replication,
    usebypassrls: r.bypassRls, passwd: r.password, valuntil: r.validUntilMicros, useconfig: null,
  }));
}

export function pgAuthMembersRows(v: CatalogView): Row[] {
  return (roleCatalogOf(v.ctx)?.memberships() ?? []).map((m) => ({
    roleid: m.roleOid, member: m.memberOid, grantor: m.grantorOid, admin_option: m.adminOption,
  }));
}

/** The role name for pg_get_userbyid and ::regrole output. */
export function roleNameByOid(ctx: Pick<VirtualTableContext, 'warehouse'>, oid: number): string | undefined {
  return roleCatalogOf(ctx)?.getByOid(oid)?.name;
}
