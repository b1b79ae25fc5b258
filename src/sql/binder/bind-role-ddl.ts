import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BoundStatement } from '../bound-statement.js';
import type { RoleOptions, RoleRef } from '../ddl-command.js';
import { type Raw } from './ast.js';
import { defElemValue } from './def-elem.js';

/**
 * CREATE / ALTER / DROP ROLE (and USER, GROUP), RENAME, GRANT role TO and REVOKE role FROM,
 * with the checks PostgreSQL makes before looking at any role: reserved names, conflicting
 * options, the connection limit's range. Who may do what is the session's to check.
 */

export function roleRef(spec: Raw): RoleRef {
  switch (spec.roletype) {
    case 'ROLESPEC_CSTRING': return { kind: 'name', name: spec.rolename };
    case 'ROLESPEC_CURRENT_USER': return { kind: 'current_user' };
    case 'ROLESPEC_SESSION_USER': return { kind: 'session_user' };
    case 'ROLESPEC_CURRENT_ROLE': return { kind: 'current_role' };
    case 'ROLESPEC_PUBLIC': return { kind: 'public' };
    default: throw new FloeError(SqlState.featureNotSupported, `role specification ${String(spec.roletype)} is not supported`);
  }
}

const roleSpecs = (list: Raw): Raw[] => ((list?.List?.items ?? []) as Raw[]).map((x) => x.RoleSpec ?? x);

/** Names only: IN ROLE, ROLE and ADMIN take plain names in PostgreSQL's grammar. */
function roleNames(list: Raw): string[] {
  return roleSpecs(list).map((s) => {
    const r = roleRef(s);
    if (r.kind !== 'name') throw new FloeError(SqlState.featureNotSupported, 'only named roles may be listed here');
    return r.name;
  });
}

export function checkNewRoleName(name: string): void {
  if (name === 'public' || name === 'none') throw new FloeError(SqlState.reservedName, `role name "${name}" is reserved`);
  if (name.startsWith('pg_')) throw new FloeError(SqlState.reservedName, `role name "${name}" is reserved`, { detail: 'Role names starting with "pg_" are reserved.' });
}

function roleOptions(options: readonly Raw[] | undefined, allowed: ReadonlySet<string>): RoleOptions {
  const out: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const o of options ?? []) {
    const d = o.DefElem;
    const name = d.defname as string;
    if (seen.has(name)) throw new FloeError(SqlState.syntaxError, 'conflicting or redundant options', { position: d.location + 1 });
    seen.add(name);
    if (!allowed.has(name)) throw new FloeError(SqlState.syntaxError, `option "${name}" not recognized`, { position: d.location + 1 });
    const bool = () => d.arg?.Boolean?.boolval === true;
    switch (name) {
      case 'superuser': out.superuser = bool(); break;
      case 'createdb': out.createDb = bool(); break;
      case 'createrole': out.createRole = bool(); break;
      case 'inherit': out.inherit = bool(); break;
      case 'canlogin': out.canLogin = bool(); break;
      case 'isreplication': out.replication = bool(); break;
      case 'bypassrls': out.bypassRls = bool(); break;
      case 'connectionlimit': {
        const limit = Number(defElemValue(d.arg));
        if (!Number.isInteger(limit) || limit < -1) throw new FloeError(SqlState.invalidParameterValue, `invalid connection limit: ${defElemValue(d.arg)}`);
        out.connectionLimit = limit;
        break;
      }
      case 'password': out.password = d.arg === undefined ? null : defElemValue(d.arg) ?? null; break;
      case 'validUntil': out.validUntil = defElemValue(d.arg); break;
      case 'addroleto': out.inRoles = roleNames(d.arg); break;
      case 'rolemembers': out.members = roleNames(d.arg); break;
      case 'adminmembers': out.adminMembers = roleNames(d.arg); break;
      case 'sysid': break; // Accepted and ignored, as PostgreSQL does.
    }
  }
  return out as RoleOptions;
}

const ATTRIBUTES = ['superuser', 'createdb', 'createrole', 'inherit', 'canlogin', 'isreplication', 'bypassrls', 'connectionlimit', 'password', 'validUntil'];
const CREATE_OPTIONS = new Set([...ATTRIBUTES, 'addroleto', 'rolemembers', 'adminmembers', 'sysid']);
const ALTER_OPTIONS = new Set(ATTRIBUTES);

export function bindCreateRole(n: Raw): BoundStatement {
  checkNewRoleName(n.role);
  const options = roleOptions(n.options, CREATE_OPTIONS);
  // CREATE USER is CREATE ROLE … LOGIN.
  const login = n.stmt_type === 'ROLESTMT_USER' && options.canLogin === undefined ? { canLogin: true } : {};
  return { kind: 'ddl', command: { kind: 'createRole', name: n.role, options: { ...options, ...login } } };
}

export function bindAlterRole(n: Raw): BoundStatement {
  // action -1 is ALTER GROUP … DROP USER, +1 everything else.
  if (n.action === -1) {
    const members = (n.options as Raw[]).find((o) => o.DefElem.defname === 'rolemembers');
    return {
      kind: 'ddl',
      command: { kind: 'revokeRole', roles: [roleName(n.role)], grantees: roleSpecs(members?.DefElem.arg).map(roleRef), adminOption: false, cascade: false },
    };
  }
  const members = (n.options as Raw[] | undefined)?.find((o) => o.DefElem.defname === 'rolemembers');
  if (members !== undefined) {
    return {
      kind: 'ddl',
      command: { kind: 'grantRole', roles: [roleName(n.role)], grantees: roleSpecs(members.DefElem.arg).map(roleRef), adminOption: false, cascade: false },
    };
  }
  return { kind: 'ddl', command: { kind: 'alterRole', role: roleRef(n.role), options: roleOptions(n.options, ALTER_OPTIONS) } };
}

function roleName(spec: Raw): string {
  const r = roleRef(spec);
  if (r.kind !== 'name') throw new FloeError(SqlState.featureNotSupported, 'only a named role may be altered here');
  return r.name;
}

export function bindDropRole(n: Raw): BoundStatement {
  return { kind: 'ddl', command: { kind: 'dropRole', roles: (n.roles as Raw[]).map((r) => roleRef(r.RoleSpec)), ifExists: n.missing_ok === true } };
}

export function bindRenameRole(n: Raw): BoundStatement {
  checkNewRoleName(n.newname);
  return { kind: 'ddl', command: { kind: 'renameRole', from: n.subname, to: n.newname } };
}

export function bindGrantRole(n: Raw): BoundStatement {
  const admin = (n.opt as Raw[] | undefined)?.some((o) => o.DefElem.defname === 'admin') === true;
  return {
    kind: 'ddl',
    command: {
      kind: n.is_grant === true ? 'grantRole' : 'revokeRole',
      roles: (n.granted_roles as Raw[]).map((r) => r.AccessPriv.priv_name as string),
      grantees: (n.grantee_roles as Raw[]).map((r) => roleRef(r.RoleSpec)),
      adminOption: admin,
      ...(n.grantor === undefined ? {} : { grantedBy: roleRef(n.grantor) }),
      cascade: n.behavior === 'DROP_CASCADE',
    },
  };
}
