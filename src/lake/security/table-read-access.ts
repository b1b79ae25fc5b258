import { AclRight } from './acl.js';
import { aclMask } from './acl-check.js';
import { allDataRelationRights } from './all-data-roles.js';
import type { PrivilegeCatalog } from './object-acl.js';
import type { RoleCatalog } from './role-catalog.js';
import { RoleGraph } from './role-graph.js';
import type { RowPolicyCatalog } from './row-policies.js';

/**
 * Whether `user` may read a table's rows whole, as a reader of its files would (the Iceberg
 * REST catalog hands out files, which no policy can filter): USAGE on its schema and SELECT
 * on it (or pg_read_all_data), and no row-level security that applies to the user. A
 * superuser may; an unknown user may not.
 */
export function tableReadAccess(
  c: { readonly roles: RoleCatalog; readonly privileges: PrivilegeCatalog; readonly rowPolicies: RowPolicyCatalog },
  user: string, table: { readonly id: number; readonly namespace: string },
): 'allowed' | 'denied' | 'rowSecurity' {
  const g = new RoleGraph(c.roles.list(), c.roles.memberships());
  const role = g.role(user);
  if (role === undefined) return 'denied';
  if (role.superuser) return 'allowed';
  const roles = g.privilegeOracle;
  // pg_read_all_data brings USAGE on every schema and SELECT on every table, as in PostgreSQL.
  const readsAll = allDataRelationRights(g, role.oid, AclRight.select) !== 0;
  const schema = c.privileges.get({ kind: 'schema', name: table.namespace });
  if (!readsAll && aclMask({ kind: 'schema', owner: schema.owner, acl: schema.acl }, role.oid, AclRight.usage, roles) === 0) return 'denied';
  const rel = c.privileges.get({ kind: 'relation', id: table.id });
  const select = readsAll || aclMask({ kind: 'table', owner: rel.owner, acl: rel.acl }, role.oid, AclRight.select, roles) !== 0;
  if (!select) return 'denied';
  const rls = c.rowPolicies.rowSecurity(table.id);
  if (rls.enabled && !role.bypassRls && (rls.forced || !g.hasPrivilegesOf(role.oid, rel.owner))) return 'rowSecurity';
  return 'allowed';
}
