import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { AclRight, type Warehouse } from '../lake/index.js';
import type { RelationAccess, StatementAccesses } from '../sql/index.js';
import type { SessionIdentity } from './session-identity.js';
import { SessionPrivileges } from './session-privileges.js';


const COLUMN_RIGHTS: readonly { readonly right: number; readonly columns: (a: RelationAccess) => ReadonlySet<number> }[] = [
  { right: AclRight.select, columns: (a) => a.selectColumns },
  { right: AclRight.insert, columns: (a) => a.insertColumns },
  { right: AclRight.update, columns: (a) => a.updateColumns },
];

/**
 * PostgreSQL's ExecCheckRTPerms at each execution of a bound statement: every relation it
 * reads or writes, as the current user (or, for what a view's query names, as the view's
 * owner). A right missing on the whole relation may still be held on each column the
 * statement touches (column privileges); one that names no column needs it on some column.
 * Superusers pass without a look.
 */
export function checkAccesses(warehouse: Warehouse, identity: SessionIdentity, accesses: StatementAccesses | undefined): void {
  if (accesses === undefined) return;
  const me = identity.currentRole();
  if (me.superuser) return;
  for (const s of accesses.superuserOnly) throw new FloeError(SqlState.insufficientPrivilege, `permission denied for ${s.kind} ${s.name}`);
  if (accesses.relations.length === 0) return;
  const g = identity.graph();
  const privileges = new SessionPrivileges(warehouse, identity);
  // The schemas the statement named relations in: USAGE first, as PostgreSQL checks it while looking the names up.
  for (const schema of new Set(accesses.relations.filter((a) => a.throughView === undefined).map((a) => a.namespace))) {
    if (!privileges.schemaUsable(schema)) throw new FloeError(SqlState.insufficientPrivilege, `permission denied for schema ${schema}`);
  }
  for (const a of accesses.relations) {
    const role = a.throughView === undefined ? me.oid : warehouse.privileges.get({ kind: 'relation', id: a.throughView }).owner;
    if (g.isSuperuser(role)) continue;
    const missing = a.rights & ~privileges.relationMask(a.id, a.kind, a.rights, role);
    if (missing === 0) continue;
    const names = columnNames(warehouse, a);
    for (const { right, columns } of COLUMN_RIGHTS) {
      if ((missing & right) === 0) continue;
      const onColumn = (name: string) => privileges.columnAclHeld(a.id, name, right, role);
      const wanted = [...columns(a)].map((n) => names[n - 1]).filter((n): n is string => n !== undefined);
      const ok = wanted.length === 0 ? names.some(onColumn) : wanted.every(onColumn);
      if (!ok) throw denied(a);
    }
    // DELETE and TRUNCATE have no column form.
    if ((missing & ~(AclRight.select | AclRight.insert | AclRight.update)) !== 0) throw denied(a);
  }
}

function denied(a: RelationAccess): FloeError {
  return new FloeError(SqlState.insufficientPrivilege, `permission denied for ${a.kind} ${a.name}`);
}

function columnNames(w: Warehouse, a: RelationAccess): readonly string[] {
  if (a.kind === 'view') return w.getViewById(a.id)?.columns.map((c) => c.name) ?? [];
  return w.getTableById(a.id)?.columns.map((c) => c.name) ?? [];
}
