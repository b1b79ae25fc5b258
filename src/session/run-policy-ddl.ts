import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { PUBLIC_ROLE, type Warehouse } from '../lake/index.js';
import type { PolicyDdl, RoleRef } from '../sql/index.js';
import type { SessionIdentity } from './session-identity.js';
import type { SessionPrivileges } from './session-privileges.js';

export interface PolicyDdlIo {
  readonly warehouse: Warehouse;
  readonly identity: SessionIdentity;
  readonly privileges: SessionPrivileges;
  notice(message: string): void;
}

function roleOids(io: PolicyDdlIo, refs: readonly RoleRef[]): number[] {
  const g = io.identity.graph();
  return refs.map((ref) => {
    if (ref.kind === 'public') return PUBLIC_ROLE;
    const name = ref.kind === 'name' ? ref.name : ref.kind === 'session_user' ? io.identity.sessionUser() : io.identity.currentUser();
    const r = g.role(name);
    if (r === undefined) throw new FloeError(SqlState.undefinedObject, `role "${name}" does not exist`);
    return r.oid;
  });
}

/** CREATE / ALTER / DROP POLICY and the table's row-security switch: its owner's to change, as in PostgreSQL. */
export function runPolicyDdl(io: PolicyDdlIo, c: PolicyDdl): string {
  const w = io.warehouse;
  const table = w.getTable(c.table.namespace, c.table.name);
  if (table === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${c.table.name}" does not exist`);
  io.privileges.requireOwner({ kind: 'relation', id: table.id }, 'table', table.name);
  const existing = (name: string) => w.rowPolicies.policies(table.id).find((p) => p.name === name);
  const missing = (name: string) => new FloeError(SqlState.undefinedObject, `policy "${name}" for table "${table.name}" does not exist`);
  const taken = (name: string) => new FloeError(SqlState.duplicateObject, `policy "${name}" for table "${table.name}" already exists`);
  switch (c.kind) {
    case 'createPolicy':
      if (existing(c.name) !== undefined) throw taken(c.name);
      w.rowPolicies.createPolicy({
        tableId: table.id, name: c.name, command: c.command, permissive: c.permissive, roles: roleOids(io, c.roles),
        using: c.using ?? null, check: c.check ?? null,
      });
      return 'CREATE POLICY';
    case 'alterPolicy': {
      const p = existing(c.name);
      if (p === undefined) throw missing(c.name);
      if (c.rename !== undefined && existing(c.rename) !== undefined) throw taken(c.rename);
      if (c.check !== undefined && (p.command === 'select' || p.command === 'delete')) throw new FloeError(SqlState.syntaxError, 'WITH CHECK cannot be applied to SELECT or DELETE');
      if (c.using !== undefined && p.command === 'insert') throw new FloeError(SqlState.syntaxError, 'only WITH CHECK expression allowed for INSERT');
      w.rowPolicies.alterPolicy(p.oid, {
        ...(c.rename === undefined ? {} : { name: c.rename }), ...(c.roles === undefined ? {} : { roles: roleOids(io, c.roles) }),
        ...(c.using === undefined ? {} : { using: c.using }), ...(c.check === undefined ? {} : { check: c.check }),
      });
      return 'ALTER POLICY';
    }
    case 'dropPolicy': {
      const p = existing(c.name);
      if (p === undefined) {
        if (!c.ifExists) throw missing(c.name);
        io.notice(`policy "${c.name}" for relation "${c.written}" does not exist, skipping`);
        return 'DROP POLICY';
      }
      w.rowPolicies.dropPolicy(p.oid);
      return 'DROP POLICY';
    }
    case 'rowSecurity':
      w.rowPolicies.setRowSecurity(table.id, { ...(c.enabled === undefined ? {} : { enabled: c.enabled }), ...(c.forced === undefined ? {} : { forced: c.forced }) });
      return 'ALTER TABLE';
  }
}
