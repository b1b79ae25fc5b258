import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
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
 * its USING where it has none, as PostgreSQL does. Inside a view the role is the view's
 * owner (`viewId`); with `row_security` off a table the policies would filter is an error.
 */
export function rowSecurityOf(warehouse: Warehouse, identity: SessionIdentity, rowSecurityOn: () => boolean) {
  return (tableId: number, command: RowSecurityCommand, viewId?: number): RowSecurityExprs | undefined => {
    const policies = (warehouse as { rowPolicies?: Warehouse['rowPolicies'] }).rowPolicies;
    if (policies === undefined || !policies.rowSecurity(tableId).enabled) return undefined;
    const g = identity.graph();
    // Through a view (not security_invoker) the table is read as the view's owner, as PostgreSQL does.
    const me = viewId === undefined ? identity.currentRole() : g.roleByOid(warehouse.privileges.get({ kind: 'relation', id: viewId }).owner);
    if (me === undefined || me.superuser || me.bypassRls) return undefined;
    const owner = warehouse.privileges.get({ kind: 'relation', id: tableId }).owner;
    const isOwner = g.hasPrivilegesOf(me.oid, owner);
    if (!policies.rowSecurity(tableId).forced && isOwner) return undefined;
    if (!rowSecurityOn()) {
      // row_security = off: a query the policies would filter fails rather than quietly see fewer rows.
      const name = warehouse.getTableById(tableId)?.name ?? String(tableId);
      throw new FloeError(SqlState.insufficientPrivilege, `query would be affected by row-level security policy for table "${name}"`,
        isOwner ? { hint: 'To disable the policy for the table\'s owner, use ALTER TABLE NO FORCE ROW LEVEL SECURITY.' } : {});
    }
    const applicable = policies.policies(tableId).filter((p) =>
      (p.command === 'all' || p.command === command) && p.roles.some((r) => r === PUBLIC_ROLE || g.hasPrivilegesOf(me.oid, r)));
    const permissive = applicable.filter((p) => p.permissive);
    const restrictive = applicable.filter((p) => !p.permissive);
    // One expression of each policy as tests: the permissive ones OR'ed into one (none at all: no row passes), each restrictive one by name.
    const asTests = (pick: (p: RowPolicy) => string | null) => {
      const permissiveExprs = permissive.map(pick).filter((e): e is string => e !== null);
      return [
        { expr: permissiveExprs.length === 0 ? 'false' : parenthesized(permissiveExprs).join(' OR ') },
        ...restrictive.flatMap((p) => { const e = pick(p); return e === null ? [] : [{ name: p.name, expr: e }]; }),
      ];
    };
    // An INSERT policy has no USING; a policy without WITH CHECK checks new rows with its USING.
    const usingChecks = command === 'insert' ? [] : asTests((p) => p.using);
    const checks = command === 'select' || command === 'delete' ? [] : asTests((p) => p.check ?? p.using);
    const using = usingChecks.length === 0 ? undefined : parenthesized(usingChecks.map((t) => t.expr)).join(' AND ');
    return { ...(using === undefined ? {} : { using }), checks, usingChecks };
  };
}
