import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { RoleCatalog } from '../security/role-catalog.js';
import { BOOTSTRAP_SUPERUSER_OID, DEFAULT_ROLE_ATTRIBUTES, PREDEFINED_ROLES } from '../security/role-metadata.js';
import type { RoleAttributes, RoleMembership, RoleRecord } from '../security/role-metadata.js';
import type { SqlCatalogAccess } from './sql-sequences.js';

/**
 * Roles (table `roles`, one row per role) and memberships (`role_members`) in the catalog.
 * Oids of new roles come from the relations' id counter, so no role's oid meets a
 * relation's or a type's; the bootstrap superuser has PostgreSQL's oid 10.
 */
interface RoleRow {
  role_oid: bigint; name: string; superuser: bigint; inherit: bigint; create_role: bigint; create_db: bigint; can_login: bigint;
  replication: bigint; bypass_rls: bigint; connection_limit: bigint; password: string | null; valid_until_micros: bigint | null;
}

interface MemberRow { role_oid: bigint; member_oid: bigint; grantor_oid: bigint; admin_option: bigint }

const toRole = (r: RoleRow): RoleRecord => ({
  oid: Number(r.role_oid), name: r.name, superuser: Number(r.superuser) !== 0, inherit: Number(r.inherit) !== 0,
  createRole: Number(r.create_role) !== 0, createDb: Number(r.create_db) !== 0, canLogin: Number(r.can_login) !== 0,
  replication: Number(r.replication) !== 0, bypassRls: Number(r.bypass_rls) !== 0, connectionLimit: Number(r.connection_limit),
  password: r.password, validUntilMicros: r.valid_until_micros === null ? null : BigInt(r.valid_until_micros),
});

const flag = (b: boolean) => (b ? 1 : 0);

function attributeValues(a: RoleAttributes): unknown[] {
  return [
    flag(a.superuser), flag(a.inherit), flag(a.createRole), flag(a.createDb), flag(a.canLogin), flag(a.replication),
    flag(a.bypassRls), a.connectionLimit, a.password, a.validUntilMicros,
  ];
}

function undefinedRole(what: string | number): FloeError {
  return new FloeError(SqlState.undefinedObject, typeof what === 'string' ? `role "${what}" does not exist` : `role with OID ${what} does not exist`);
}

export class SqlRoles implements RoleCatalog {
  readonly #c: SqlCatalogAccess;

  constructor(access: SqlCatalogAccess) {
    this.#c = access;
  }

  list(): RoleRecord[] {
    return this.#c.cached('roles', () => (this.#c.sql('SELECT * FROM roles ORDER BY role_oid').all() as RoleRow[]).map(toRole));
  }

  get(name: string): RoleRecord | undefined {
    return this.list().find((r) => r.name === name);
  }

  getByOid(oid: number): RoleRecord | undefined {
    return this.list().find((r) => r.oid === oid);
  }

  memberships(): RoleMembership[] {
    return this.#c.cached('role members', () => (this.#c.sql('SELECT * FROM role_members ORDER BY role_oid, member_oid').all() as MemberRow[]).map((r) => ({
      roleOid: Number(r.role_oid), memberOid: Number(r.member_oid), grantorOid: Number(r.grantor_oid), adminOption: Number(r.admin_option) !== 0,
    })));
  }

  create(name: string, attributes: RoleAttributes): RoleRecord {
    return this.#c.immediate(() => this.#insert(this.#c.nextId(), name, attributes));
  }

  ensureBootstrap(name: string, password: string | null): RoleRecord {
    const present = this.getByOid(BOOTSTRAP_SUPERUSER_OID);
    if (present !== undefined && PREDEFINED_ROLES.every((p) => this.getByOid(p.oid) !== undefined)) return present;
    return this.#c.immediate(() => {
      for (const p of PREDEFINED_ROLES) {
        if (this.#c.sql('SELECT 1 FROM roles WHERE role_oid = ?').get(p.oid) === undefined) this.#insert(p.oid, p.name, DEFAULT_ROLE_ATTRIBUTES);
      }
      const existing = this.#c.sql('SELECT * FROM roles WHERE role_oid = ?').get(BOOTSTRAP_SUPERUSER_OID) as RoleRow | undefined;
      if (existing !== undefined) return toRole(existing);
      return this.#insert(BOOTSTRAP_SUPERUSER_OID, name, {
        ...DEFAULT_ROLE_ATTRIBUTES, superuser: true, createRole: true, createDb: true, canLogin: true, replication: true, bypassRls: true, password,
      });
    });
  }

  #insert(oid: number, name: string, a: RoleAttributes): RoleRecord {
    if (this.#c.sql('SELECT 1 FROM roles WHERE name = ?').get(name) !== undefined) {
      throw new FloeError(SqlState.duplicateObject, `role "${name}" already exists`);
    }
    this.#c.sql('INSERT INTO roles VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(oid, name, ...attributeValues(a));
    return { oid, name, ...a };
  }

  alter(oid: number, change: Partial<RoleAttributes>): RoleRecord {
    return this.#c.immediate(() => {
      const row = this.#c.sql('SELECT * FROM roles WHERE role_oid = ?').get(oid) as RoleRow | undefined;
      if (row === undefined) throw undefinedRole(oid);
      const next = { ...toRole(row), ...change };
      this.#c.sql(`UPDATE roles SET superuser = ?, inherit = ?, create_role = ?, create_db = ?, can_login = ?, replication = ?,
        bypass_rls = ?, connection_limit = ?, password = ?, valid_until_micros = ? WHERE role_oid = ?`).run(...attributeValues(next), oid);
      return next;
    });
  }

  rename(oid: number, to: string): RoleRecord {
    return this.#c.immediate(() => {
      const row = this.#c.sql('SELECT * FROM roles WHERE role_oid = ?').get(oid) as RoleRow | undefined;
      if (row === undefined) throw undefinedRole(oid);
      if (this.#c.sql('SELECT 1 FROM roles WHERE name = ?').get(to) !== undefined) throw new FloeError(SqlState.duplicateObject, `role "${to}" already exists`);
      this.#c.sql('UPDATE roles SET name = ? WHERE role_oid = ?').run(to, oid);
      return { ...toRole(row), name: to };
    });
  }

  drop(oid: number): void {
    this.#c.immediate(() => {
      this.#c.sql('DELETE FROM role_members WHERE role_oid = ? OR member_oid = ?').run(oid, oid);
      this.#c.sql('DELETE FROM roles WHERE role_oid = ?').run(oid);
    });
  }

  grant(m: RoleMembership): void {
    this.#c.immediate(() => {
      this.#c.sql(`INSERT INTO role_members VALUES (?, ?, ?, ?)
        ON CONFLICT (role_oid, member_oid) DO UPDATE SET admin_option = CASE WHEN excluded.admin_option = 1 THEN 1 ELSE role_members.admin_option END`)
        .run(m.roleOid, m.memberOid, m.grantorOid, flag(m.adminOption));
    });
  }

  revoke(roleOid: number, memberOid: number, adminOptionOnly: boolean): boolean {
    return this.#c.immediate(() => {
      const existing = this.#c.sql('SELECT 1 FROM role_members WHERE role_oid = ? AND member_oid = ?').get(roleOid, memberOid);
      if (existing === undefined) return false;
      if (adminOptionOnly) this.#c.sql('UPDATE role_members SET admin_option = 0 WHERE role_oid = ? AND member_oid = ?').run(roleOid, memberOid);
      else this.#c.sql('DELETE FROM role_members WHERE role_oid = ? AND member_oid = ?').run(roleOid, memberOid);
      return true;
    });
  }
}
