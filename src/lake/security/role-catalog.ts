import type { RoleAttributes, RoleMembership, RoleRecord } from './role-metadata.js';

/**
 * The catalog's roles and memberships. Writes are single catalog transactions; every
 * gateway on the catalog sees them at its next read, so a new connection is checked
 * against the roles as they are now (no restart, no reload).
 */
export interface RoleCatalog {
  list(): RoleRecord[];
  get(name: string): RoleRecord | undefined;
  getByOid(oid: number): RoleRecord | undefined;
  memberships(): RoleMembership[];
  /** 42710 when the name is taken. */
  create(name: string, attributes: RoleAttributes): RoleRecord;
  /** The bootstrap superuser (oid 10) under `name`, unless a role has oid 10 already; returns that role. */
  ensureBootstrap(name: string, password: string | null): RoleRecord;
  /** 42704 when the role does not exist. */
  alter(oid: number, change: Partial<RoleAttributes>): RoleRecord;
  /** 42710 when the new name is taken. */
  rename(oid: number, to: string): RoleRecord;
  /** Drops the role and every membership it is part of. */
  drop(oid: number): void;
  /** Adds or updates a membership (admin option only grows, as GRANT … WITH ADMIN OPTION does). */
  grant(m: RoleMembership): void;
  /** REVOKE [ADMIN OPTION FOR]: false when there was no such membership. */
  revoke(roleOid: number, memberOid: number, adminOptionOnly: boolean): boolean;
}
