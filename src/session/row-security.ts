import { PUBLIC_ROLE, type RowPolicy, type Warehouse } from '../lake/index.js';
import type { RowSecurityCommand, RowSecurityExprs } from '../sql/index.js';
import type { SessionIdentity } from './session-identity.js';

const parenthesized = (exprs: readonly string[]) => exprs.map((e) => `(${e})`);

/**
 * PostgreSQL 15's row-level security for the session's current role: whether a table's
 * policies apply (ENABLE ROW LEVEL SECURITY; not for superusers, BYPASSRLS roles, or the
 * owner unless FORCE), and which — those for the command or ALL whose roles include PUBLIC
 * or a role the user has the privileges of. Permissive policies are OR'ed (none at all: no
 * row), restrictive ones AND'ed on top; a write's check is each policy's WITH CHECK, or
 * its USING where it has none, as PostgreSQL does.
 */
export function rowSecurityOf(warehouse: Warehouse, identity: SessionIdentity) {
  return (tableId: number, command: RowSecurityCommand): RowSecurityExprs | undefined => {
    const policies = (warehouse as { rowPolicies?: Warehouse['rowPolicies'] }).rowPolicies;
    if (policies === undefined || !policies.rowSecurity(tableId).enabled) return undefined;
    const me = identity.currentRole();
    if (me.superuser || me.bypassRls) return undefined;
    const g = identity.graph();
    const owner = warehouse.privileges.get({ kind: 'relation', id: tableId }).owner;
    if (!policies.rowSecurity(tableId).forced && g.hasPrivilegesOf(me.oid, owner)) return undefined;
    const applicable = policies.policies(tableId).filter((p) =>
      (p.command === 'all' || p.command === command) && p.roles.some((r) => r === PUBLIC_ROLE || g.hasPrivilegesOf(me.oid, r)));
    const permissive = applicable.filter((p) => p.permissive);
    const restrictive = applicable.filter((p) => !p.permissive);
    const using = (p: RowPolicy) => p.using;
    // A policy without WITH CHECK checks new rows with its USING (an INSERT policy has no USING).
    const check = (p: RowPolicy) => p.check ?? p.using;
    const permissiveUsing = permissive.map(using).filter((e): e is string => e !== null);
    const restrictiveUsing = restrictive.map(using).filter((e): e is string => e !== null);
    const usingExpr = command === 'insert' ? undefined
      : [permissiveUsing.length === 0 ? 'false' : parenthesized(permissiveUsing).join(' OR '), ...parenthesized(restrictiveUsing)].map((e) => `(${e})`).join(' AND ');
    if (command === 'select' || command === 'delete') return { ...(usingExpr === undefined ? {} : { using: usingExpr }), checks: [] };
    const permissiveChecks = permissive.map(check).filter((e): e is string => e !== null);
    const checks = [
      { expr: permissiveChecks.length === 0 ? 'false' : parenthesized(permissiveChecks).join(' OR ') },
      ...restrictive.flatMap((p) => (check(p) === null ? [] : [{ name: p.name, expr: check(p)! }])),
    ];
    return { ...(usingExpr === undefined ? {} : { using: usingExpr }), checks };
  };
}
