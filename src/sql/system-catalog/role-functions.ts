import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import type { EvalContext } from '../../exec/index.js';
import type { registerCatalogFunction } from './register-catalog-function.js';
import { RoleGraph, type RoleRecord } from '../../lake/index.js';
import { roleCatalogOf } from './role-rows.js';

const BOOL: SqlType = { kind: 'bool' };

/** The roles as the query's warehouse has them now. */
export function roleGraphOf(ctx: EvalContext): RoleGraph {
  const roles = roleCatalogOf(ctx);
  return new RoleGraph(roles?.list() ?? [], roles?.memberships() ?? []);
}

/** A role argument: a name (text) or an oid, as PostgreSQL's overloads take them. */
export function roleArgument(g: RoleGraph, value: unknown): RoleRecord {
  const r = typeof value === 'number' || typeof value === 'bigint' ? g.roleByOid(Number(value)) : g.role(String(value));
  if (r === undefined) {
    throw typeof value === 'string' ? new FloeError(SqlState.undefinedObject, `role "${value}" does not exist`)
      : new FloeError(SqlState.undefinedObject, `role with OID ${String(value)} does not exist`);
  }
  return r;
}

/** pg_has_role's privilege text: comma-separated MEMBER / USAGE, each optionally WITH ADMIN|GRANT OPTION. */
function roleModes(text: string): { member: boolean; usage: boolean; admin: boolean }[] {
  return text.split(',').map((part) => {
    const m = /^\s*(member|usage)(\s+with\s+(admin|grant)\s+option)?\s*$/i.exec(part);
    if (!m) throw new FloeError(SqlState.invalidParameterValue, `unrecognized privilege type: "${part.trim()}"`);
    const member = m[1]!.toLowerCase() === 'member';
    return { member, usage: !member, admin: m[2] !== undefined };
  });
}

/** A role argument as pg_has_role takes it: a name must exist; an oid is taken as is (an unknown one is nobody's member). */
function roleOidArgument(g: RoleGraph, value: unknown): number {
  return typeof value === 'number' || typeof value === 'bigint' ? Number(value) : roleArgument(g, value).oid;
}

function hasRole(g: RoleGraph, user: number, role: number, privileges: string): boolean {
  return roleModes(privileges).some((mode) =>
    (mode.admin ? g.isAdminOf(user, role) : mode.member ? g.isMemberOf(user, role) : g.hasPrivilegesOf(user, role)));
}

/** pg_has_role(user, role, privilege) and pg_has_role(role, privilege) for the current user. */
export function registerRoleFunctions(reg: typeof registerCatalogFunction): void {
  reg({
    name: 'pg_has_role', args: ['any', 'any', 'any'], returns: BOOL,
    impl: (a, ctx) => {
      if (a[0] == null || a[1] == null || a[2] == null) return null;
      const g = roleGraphOf(ctx);
      return hasRole(g, roleOidArgument(g, a[0]), roleOidArgument(g, a[1]), String(a[2]));
    },
  });
  reg({
    name: 'pg_has_role', args: ['any', 'any'], returns: BOOL,
    impl: (a, ctx) => {
      if (a[0] == null || a[1] == null) return null;
      const g = roleGraphOf(ctx);
      return hasRole(g, roleArgument(g, ctx.user).oid, roleOidArgument(g, a[0]), String(a[1]));
    },
  });
}
