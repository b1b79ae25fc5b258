import type { MembershipOracle } from './acl-check.js';
import { PG_DATABASE_OWNER_OID } from './object-acl.js';
import type { RoleMembership, RoleRecord } from './role-metadata.js';

/**
 * Who is a member of whom, as PostgreSQL 15 answers it (acl.c's roles_is_member_of):
 * membership follows GRANT role TO member edges through any number of steps;
 * privileges are inherited only along steps taken by roles with INHERIT; superusers
 * hold every role's privileges. Every "has role A the privileges of role B" is asked here.
 */
export class RoleGraph {
  readonly #byOid: ReadonlyMap<number, RoleRecord>;
  readonly #byName: ReadonlyMap<string, RoleRecord>;
  /** member oid → the roles it was granted directly. */
  readonly #grantedTo = new Map<number, RoleMembership[]>();
  readonly #databaseOwner: number | undefined;

  /**
   * What acl-check.ts asks: privileges flow as hasPrivilegesOf says (its isMemberOf is not
   * this class's, which is SET ROLE membership and carries no privileges).
   */
  readonly privilegeOracle: MembershipOracle = Object.freeze({
    isMemberOf: (role: number, of: number) => this.hasPrivilegesOf(role, of),
    isSuperuser: (role: number) => this.isSuperuser(role),
  });

  /**
   * `databaseOwner`, when given, is implicitly a member of pg_database_owner, as
   * roles_is_member_of adds it for the current database's owner.
   */
  constructor(roles: readonly RoleRecord[], memberships: readonly RoleMembership[], options: { readonly databaseOwner?: number } = {}) {
    this.#byOid = new Map(roles.map((r) => [r.oid, r]));
    this.#byName = new Map(roles.map((r) => [r.name, r]));
    this.#databaseOwner = options.databaseOwner;
    for (const m of memberships) {
      const list = this.#grantedTo.get(m.memberOid) ?? [];
      list.push(m);
      this.#grantedTo.set(m.memberOid, list);
    }
  }

  role(name: string): RoleRecord | undefined {
    return this.#byName.get(name);
  }

  roleByOid(oid: number): RoleRecord | undefined {
    return this.#byOid.get(oid);
  }

  roles(): RoleRecord[] {
    return [...this.#byOid.values()];
  }

  isSuperuser(oid: number): boolean {
    return this.#byOid.get(oid)?.superuser === true;
  }

  /** `member` itself and every role it is a member of (inheritOnly: only through INHERIT roles). */
  rolesOf(member: number, inheritOnly: boolean): Set<number> {
    const seen = new Set<number>([member]);
    const todo = [member];
    while (todo.length > 0) {
      const m = todo.pop()!;
      if (inheritOnly && this.#byOid.get(m)?.inherit === false) continue;
      for (const g of this.#grantedTo.get(m) ?? []) {
        if (!seen.has(g.roleOid)) {
          seen.add(g.roleOid);
          todo.push(g.roleOid);
        }
      }
    }
    return seen;
  }

  /** is_member_of_role_nosuper (hba's +role): membership through GRANTs alone; being a superuser does not count. */
  isMemberOfNoSuper(member: number, role: number): boolean {
    return member === role || this.rolesOf(member, false).has(role);
  }

  /** pg_has_role(…, 'MEMBER'): SET ROLE to `role` is allowed. Superusers are members of every role. */
  isMemberOf(member: number, role: number): boolean {
    return this.isSuperuser(member) || this.isMemberOfNoSuper(member, role);
  }

  /** pg_has_role(…, 'USAGE'), has_privs_of_role: `member` holds `role`'s privileges without SET ROLE. */
  hasPrivilegesOf(member: number, role: number): boolean {
    if (this.#inheritsFrom(member, role)) return true;
    const dba = this.#databaseOwner;
    return dba !== undefined && this.#inheritsFrom(member, dba)
      && (role === PG_DATABASE_OWNER_OID || this.#inheritsFrom(PG_DATABASE_OWNER_OID, role));
  }

  #inheritsFrom(member: number, role: number): boolean {
    return member === role || this.isSuperuser(member) || this.rolesOf(member, true).has(role);
  }

  /** May grant and revoke membership in `role` (WITH ADMIN OPTION held directly or through membership). */
  isAdminOf(member: number, role: number): boolean {
    if (this.isSuperuser(member)) return true;
    for (const r of this.rolesOf(member, false)) {
      if ((this.#grantedTo.get(r) ?? []).some((g) => g.roleOid === role && g.adminOption)) return true;
    }
    return false;
  }
}
