import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { parseTimestamptz } from '../common/datetime.js';
import { formatScramVerifier, makeScramVerifier, parseScramVerifier } from '../common/scram-secret.js';
import { md5StoredPassword } from '../common/md5-password.js';
import { BOOTSTRAP_SUPERUSER_OID, DEFAULT_ROLE_ATTRIBUTES, PG_DATABASE_OWNER_OID } from '../lake/index.js';
import type { PrivilegeCatalog, RoleAttributes, RoleCatalog, RoleGraph, RoleRecord, SecuredObject } from '../lake/index.js';
import type { RoleDdl, RoleOptions, RoleRef } from '../sql/index.js';
import type { SessionIdentity } from './session-identity.js';

/** What role DDL needs from the session. */
export interface RoleDdlIo {
  readonly roles: RoleCatalog;
  /** Owners and ACLs: a role that owns or holds anything cannot be dropped. */
  readonly privileges: PrivilegeCatalog;
  /** An object as PostgreSQL's dependency messages name it ("table s.t", "schema s"); undefined when it is gone. */
  describe(object: SecuredObject): string | undefined;
  readonly identity: SessionIdentity;
  /** password_encryption and TimeZone. */
  setting(name: string): string | undefined;
  notice(severity: 'NOTICE' | 'WARNING', sqlstate: string, message: string): void;
}

const denied = (message: string) => new FloeError(SqlState.insufficientPrivilege, message);
const undefinedRole = (name: string) => new FloeError(SqlState.undefinedObject, `role "${name}" does not exist`);

/** Roles PostgreSQL pins: the bootstrap superuser and the predefined pg_* roles. */
const isPinned = (r: RoleRecord) => r.oid === BOOTSTRAP_SUPERUSER_OID || r.oid < 16384;

/**
 * CREATE / ALTER / DROP ROLE, RENAME, GRANT and REVOKE role membership, with PostgreSQL 15's
 * permission rules (user.c): CREATEROLE manages ordinary roles, only superusers touch
 * superuser, replication and bypassrls roles, anyone may change their own password, and
 * membership is granted by CREATEROLE holders or those with ADMIN OPTION on the role.
 */
export function runRoleDdl(io: RoleDdlIo, c: RoleDdl): string {
  const g = io.identity.graph();
  const me = io.identity.currentRole();
  const superuser = me.superuser;
  const createRole = superuser || me.createRole;
  switch (c.kind) {
    case 'createRole': {
      const o = c.options;
      if (o.superuser === true && !superuser) throw denied('must be superuser to create superusers');
      if (o.replication === true && !superuser) throw denied('must be superuser to create replication users');
      if (o.bypassRls === true && !superuser) throw denied('must be superuser to create bypassrls users');
      if (!createRole) throw denied('permission denied to create role');
      if (g.role(c.name) !== undefined) throw new FloeError(SqlState.duplicateObject, `role "${c.name}" already exists`);
      // Every role named must exist before anything is written.
      const inRoles = (o.inRoles ?? []).map((n) => namedRole(g, n));
      const members = (o.members ?? []).map((n) => namedRole(g, n));
      const admins = (o.adminMembers ?? []).map((n) => namedRole(g, n));
      const created = io.roles.create(c.name, { ...DEFAULT_ROLE_ATTRIBUTES, ...attributes(io, c.name, o) });
      for (const r of inRoles) addMember(io, io.identity.graph(), me, r, created, false);
      for (const m of members) addMember(io, io.identity.graph(), me, created, m, false);
      for (const m of admins) addMember(io, io.identity.graph(), me, created, m, true);
      return 'CREATE ROLE';
    }
    case 'alterRole': {
      const target = resolveRole(io, g, c.role);
      const o = c.options;
      if (target.superuser || o.superuser !== undefined) {
        if (!superuser) throw denied('must be superuser to alter superuser roles or change superuser attribute');
      } else if (target.replication || o.replication !== undefined) {
        if (!superuser) throw denied('must be superuser to alter replication roles or change replication attribute');
      } else if (o.bypassRls !== undefined) {
        if (!superuser) throw denied('must be superuser to change bypassrls attribute');
      } else if (!createRole) {
        // Without CREATEROLE a role may change its own password and nothing else.
        const onlyPassword = Object.keys(o).every((k) => k === 'password') && o.password !== undefined;
        if (!onlyPassword || target.oid !== me.oid) throw denied('permission denied');
      }
      // PostgreSQL 15 allows it, 16 refuses it: the bootstrap superuser is what loopback trust and the catalog's objects rest on.
      if (target.oid === BOOTSTRAP_SUPERUSER_OID && o.superuser === false) {
        throw new FloeError(SqlState.insufficientPrivilege, 'permission denied to alter role', { detail: 'The bootstrap user must have the SUPERUSER attribute.' });
      }
      io.roles.alter(target.oid, attributes(io, target.name, o));
      return 'ALTER ROLE';
    }
    case 'renameRole': {
      const target = g.role(c.from);
      if (target === undefined) throw undefinedRole(c.from);
      if (target.name === io.identity.sessionUser()) throw new FloeError(SqlState.featureNotSupported, 'session user cannot be renamed');
      if (target.name === io.identity.currentUser()) throw new FloeError(SqlState.featureNotSupported, 'current user cannot be renamed');
      if (target.oid !== BOOTSTRAP_SUPERUSER_OID && target.oid < 16384) throw new FloeError(SqlState.reservedName, `role name "${target.name}" is reserved`, { detail: 'Role names starting with "pg_" are reserved.' });
      if (g.role(c.to) !== undefined) throw new FloeError(SqlState.duplicateObject, `role "${c.to}" already exists`);
      if (target.superuser ? !superuser : !createRole) throw denied(target.superuser ? 'must be superuser to rename superusers' : 'permission denied to rename role');
      io.roles.rename(target.oid, c.to);
      // An md5 verifier salts with the name: it no longer matches.
      if (target.password?.startsWith('md5') === true) {
        io.roles.alter(target.oid, { password: null });
        io.notice('NOTICE', SqlState.successfulCompletion, 'MD5 password cleared because of role rename');
      }
      return 'ALTER ROLE';
    }
    case 'dropRole': {
      if (!createRole) throw denied('permission denied to drop role');
      const targets: RoleRecord[] = [];
      for (const ref of c.roles) {
        const name = refName(io, ref);
        const target = g.role(name);
        if (target === undefined) {
          if (!c.ifExists) throw undefinedRole(name);
          io.notice('NOTICE', SqlState.successfulCompletion, `role "${name}" does not exist, skipping`);
          continue;
        }
        if (target.name === io.identity.currentUser()) throw new FloeError(SqlState.objectInUse, 'current user cannot be dropped');
        if (target.name === io.identity.sessionUser()) throw new FloeError(SqlState.objectInUse, 'session user cannot be dropped');
        if (target.superuser && !superuser) throw denied('must be superuser to drop superusers');
        if (isPinned(target)) {
          throw new FloeError(SqlState.dependentObjectsStillExist, `cannot drop role ${target.name} because it is required by the database system`);
        }
        const dependents = dependentsOf(io, target.oid);
        if (dependents.length > 0) {
          throw new FloeError(SqlState.dependentObjectsStillExist, `role "${target.name}" cannot be dropped because some objects depend on it`, { detail: dependents.join('\n') });
        }
        targets.push(target);
      }
      for (const t of targets) io.roles.drop(t.oid);
      return 'DROP ROLE';
    }
    case 'grantRole': case 'revokeRole': {
      if (c.grantedBy !== undefined) {
        const grantor = resolveRole(io, g, c.grantedBy);
        if (grantor.oid !== me.oid && !superuser) throw denied('must be superuser to set grantor');
      }
      const grantees = c.grantees.map((ref) => resolveRole(io, g, ref));
      for (const roleName of c.roles) {
        const role = namedRole(g, roleName);
        for (const member of grantees) {
          if (c.kind === 'grantRole') addMember(io, io.identity.graph(), me, role, member, c.adminOption);
          else removeMember(io, io.identity.graph(), me, role, member, c.adminOption);
        }
      }
      return c.kind === 'grantRole' ? 'GRANT ROLE' : 'REVOKE ROLE';
    }
  }
}

/** What a role owns or holds privileges on, as DROP ROLE's detail lists it. */
function dependentsOf(io: RoleDdlIo, oid: number): string[] {
  const lines: string[] = [];
  for (const r of io.privileges.list()) {
    const name = io.describe(r.object);
    if (name === undefined) continue;
    if (r.owner === oid) lines.push(`owner of ${name}`);
    const mentions = (acl: readonly { grantee: number; grantor: number }[] | null) => acl?.some((i) => i.grantee === oid || i.grantor === oid) === true;
    if (mentions(r.acl) || Object.values(r.columnAcls).some(mentions)) lines.push(`privileges for ${name}`);
  }
  return lines;
}

function namedRole(g: RoleGraph, name: string): RoleRecord {
  const r = g.role(name);
  if (r === undefined) throw undefinedRole(name);
  return r;
}

function refName(io: RoleDdlIo, ref: RoleRef): string {
  switch (ref.kind) {
    case 'name': return ref.name;
    case 'current_user': case 'current_role': return io.identity.currentUser();
    case 'session_user': return io.identity.sessionUser();
    case 'public': throw new FloeError(SqlState.undefinedObject, 'role "public" does not exist');
  }
}

function resolveRole(io: RoleDdlIo, g: RoleGraph, ref: RoleRef): RoleRecord {
  return namedRole(g, refName(io, ref));
}

/** PostgreSQL's AddRoleMems checks, one role and member at a time. */
function checkMembershipChange(g: RoleGraph, me: RoleRecord, role: RoleRecord): void {
  if (role.superuser) {
    if (!me.superuser) throw denied('must be superuser to alter superusers');
  } else if (!me.superuser && !me.createRole && !g.isAdminOf(me.oid, role.oid)) {
    throw denied(`must have admin option on role "${role.name}"`);
  }
}

function addMember(io: RoleDdlIo, g: RoleGraph, me: RoleRecord, role: RoleRecord, member: RoleRecord, admin: boolean): void {
  checkMembershipChange(g, me, role);
  if (role.oid === PG_DATABASE_OWNER_OID) throw new FloeError(SqlState.invalidGrantOperation, `role "${role.name}" cannot have explicit members`);
  // A loop would make a role a member of itself.
  if (g.isMemberOfNoSuper(role.oid, member.oid)) {
    throw new FloeError(SqlState.invalidGrantOperation, `role "${role.name}" is a member of role "${member.name}"`);
  }
  const existing = io.roles.memberships().find((m) => m.roleOid === role.oid && m.memberOid === member.oid);
  if (existing !== undefined && (!admin || existing.adminOption)) {
    io.notice('NOTICE', SqlState.successfulCompletion, `role "${member.name}" is already a member of role "${role.name}"`);
    return;
  }
  io.roles.grant({ roleOid: role.oid, memberOid: member.oid, grantorOid: me.oid, adminOption: admin });
}

function removeMember(io: RoleDdlIo, g: RoleGraph, me: RoleRecord, role: RoleRecord, member: RoleRecord, adminOnly: boolean): void {
  checkMembershipChange(g, me, role);
  if (!io.roles.revoke(role.oid, member.oid, adminOnly)) {
    io.notice('WARNING', SqlState.warning, `role "${member.name}" is not a member of role "${role.name}"`);
  }
}

/** The attributes the options set, the password turned into a verifier (never stored as written). */
function attributes(io: RoleDdlIo, roleName: string, o: RoleOptions): Partial<RoleAttributes> {
  const out: { -readonly [K in keyof RoleAttributes]?: RoleAttributes[K] } = {};
  if (o.superuser !== undefined) out.superuser = o.superuser;
  if (o.createDb !== undefined) out.createDb = o.createDb;
  if (o.createRole !== undefined) out.createRole = o.createRole;
  if (o.inherit !== undefined) out.inherit = o.inherit;
  if (o.canLogin !== undefined) out.canLogin = o.canLogin;
  if (o.replication !== undefined) out.replication = o.replication;
  if (o.bypassRls !== undefined) out.bypassRls = o.bypassRls;
  if (o.connectionLimit !== undefined) out.connectionLimit = o.connectionLimit;
  if (o.password !== undefined) out.password = passwordVerifier(io, roleName, o.password);
  if (o.validUntil !== undefined) {
    out.validUntilMicros = /^\s*infinity\s*$/i.test(o.validUntil) ? null : parseTimestamptz(o.validUntil, io.setting('timezone') ?? 'UTC');
  }
  return out;
}

function passwordVerifier(io: RoleDdlIo, roleName: string, password: string | null): string | null {
  if (password === null) return null;
  if (password === '') {
    io.notice('NOTICE', SqlState.successfulCompletion, 'empty string is not a valid password, clearing password');
    return null;
  }
  // A verifier given as the password (pg_dump's output, \password) is stored as it is, as PostgreSQL does.
  if (parseScramVerifier(password) !== undefined || /^md5[0-9a-f]{32}$/.test(password)) return password;
  return io.setting('password_encryption') === 'md5' ? md5StoredPassword(roleName, password) : formatScramVerifier(makeScramVerifier(password));
}
