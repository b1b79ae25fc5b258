import {
  PUBLIC_ROLE, aclOrDefault, allGrantOptionBits, grantOptionFor, grantOptionsIn, itemMode,
  type Acl, type AclObjectKind,
} from './acl.js';

/*
 * What a role may do given an ACL, the owner and role memberships: PostgreSQL's aclmask,
 * aclmask_direct, has_privs_of_role, select_best_grantor and the pg_*_aclmask wrappers.
 * Modes are masks of privilege bits and grant-option bits (acl.ts: grantOptionFor).
 */

/**
 * The role facts a check consults: role-graph.ts's `RoleGraph.privilegeOracle` (RoleGraph's
 * own isMemberOf is SET ROLE membership, which does not carry privileges).
 */
export interface MembershipOracle {
  /**
   * True when `role` has the privileges of `of` through memberships (directly or through a
   * chain of roles that INHERIT), as PostgreSQL's roles_is_member_of with ROLERECURSE_PRIVS.
   * Superuser status is asked separately; `role === of` need not be answered.
   */
  isMemberOf(role: number, of: number): boolean;
  isSuperuser(role: number): boolean;
  /**
   * The roles whose privileges `role` has, `role` first and then breadth-first, in PostgreSQL's
   * order. Only selectBestGrantor needs it, and only to break ties between several roles that
   * could each be the grantor; without it candidates are taken in ascending oid order, which is
   * PostgreSQL's order when memberships are one level deep.
   */
  privilegeRolesOf?(role: number): readonly number[];
}

/** A role that holds no memberships and is no superuser: checks see only the ACL. */
export const noMemberships: MembershipOracle = Object.freeze({
  isMemberOf: () => false,
  isSuperuser: () => false,
});

/** PostgreSQL's has_privs_of_role: itself, a superuser (who has the privileges of every role), or an inheriting member. */
export function hasPrivsOfRole(role: number, of: number, roles: MembershipOracle): boolean {
  if (role === of) return true;
  if (role === PUBLIC_ROLE) return false;
  return roles.isSuperuser(role) || (of !== PUBLIC_ROLE && roles.isMemberOf(role, of));
}

/** 'all': every bit of the mask that is held; 'any': stop once one is known (callers test for zero). */
export type AclMaskHow = 'all' | 'any';

const done = (result: number, mask: number, how: AclMaskHow): boolean => (how === 'all' ? result === mask : result !== 0);

/**
 * PostgreSQL's aclmask: the bits of `mask` that `role` holds through `acl` (never NULL here):
 * grants to the role, to PUBLIC and to roles whose privileges it has, plus every grant option
 * when it has the owner's privileges. It knows nothing of superusers beyond has_privs_of_role.
 */
export function aclMaskOfAcl(acl: Acl, role: number, owner: number, mask: number, roles: MembershipOracle, how: AclMaskHow = 'all'): number {
  if (mask === 0) return 0;
  let result = 0;
  if ((mask & allGrantOptionBits) !== 0 && hasPrivsOfRole(role, owner, roles)) {
    result = mask & allGrantOptionBits;
    if (done(result, mask, how)) return result;
  }
  for (const item of acl) {
    if (item.grantee !== PUBLIC_ROLE && item.grantee !== role) continue;
    result |= itemMode(item) & mask;
    if (done(result, mask, how)) return result;
  }
  // Memberships are asked only for items that could still add something.
  for (const item of acl) {
    if (item.grantee === PUBLIC_ROLE || item.grantee === role) continue;
    const remaining = mask & ~result;
    if ((itemMode(item) & remaining) === 0 || !hasPrivsOfRole(role, item.grantee, roles)) continue;
    result |= itemMode(item) & mask;
    if (done(result, mask, how)) return result;
  }
  return result;
}

/** PostgreSQL's aclmask_direct: like aclMaskOfAcl, but only what is granted to `role` itself (not PUBLIC, not through memberships). */
export function aclMaskDirect(acl: Acl, role: number, owner: number, mask: number, how: AclMaskHow = 'all'): number {
  if (mask === 0) return 0;
  let result = 0;
  if ((mask & allGrantOptionBits) !== 0 && role === owner) {
    result = mask & allGrantOptionBits;
    if (done(result, mask, how)) return result;
  }
  for (const item of acl) {
    if (item.grantee !== role) continue;
    result |= itemMode(item) & mask;
    if (done(result, mask, how)) return result;
  }
  return result;
}

/** An object as far as access control goes: its kind, owner and ACL (NULL = the kind's default). */
export interface AclObject {
  readonly kind: AclObjectKind;
  readonly owner: number;
  readonly acl: Acl | null;
}

/**
 * The bits of `mask` that `role` holds on `object`, as pg_class_aclmask and its siblings
 * compute them: a superuser holds everything; otherwise the ACL (or its default) decides.
 * Predefined roles such as pg_read_all_data are not modelled; the caller adds them.
 */
export function aclMask(object: AclObject, role: number, mask: number, roles: MembershipOracle, how: AclMaskHow = 'all'): number {
  if (role !== PUBLIC_ROLE && roles.isSuperuser(role)) return mask;
  return aclMaskOfAcl(aclOrDefault(object.acl, object.kind, object.owner), role, object.owner, mask, roles, how);
}

/**
 * has_*_privilege: true when `role` holds any bit of `mode` on `object`. Use grantOptionFor
 * for "WITH GRANT OPTION". The owner always holds every grant option, even after revoking
 * its own privileges.
 */
export function hasPrivilege(object: AclObject, role: number, mode: number, roles: MembershipOracle): boolean {
  return aclMask(object, role, mode, roles, 'any') !== 0;
}

/** Who a GRANT or REVOKE acts as, and the grant options (as privilege bits) it may use. */
export interface BestGrantor {
  readonly grantor: number;
  readonly grantOptions: number;
}

/**
 * PostgreSQL's select_best_grantor. The owner and superusers act as the owner, with every
 * grant option. Anyone else acts as the first role whose privileges they have (themselves
 * first) that directly holds grant options for all of `privileges`; failing that, the one
 * holding the most of them; failing that, themselves with none. Granting as the role that
 * holds the option keeps the grant dependent on it, so revoking that option cascades.
 */
export function selectBestGrantor(role: number, privileges: number, acl: Acl, owner: number, roles: MembershipOracle): BestGrantor {
  const needed = grantOptionFor(privileges);
  if (role === owner || roles.isSuperuser(role)) return { grantor: owner, grantOptions: privileges };
  let best: BestGrantor = { grantor: role, grantOptions: 0 };
  let bestCount = 0;
  for (const candidate of grantorCandidates(role, acl, owner, roles)) {
    const held = aclMaskDirect(acl, candidate, owner, needed);
    if (held === needed) return { grantor: candidate, grantOptions: grantOptionsIn(held) };
    const count = bitCount(held);
    if (count > bestCount) {
      best = { grantor: candidate, grantOptions: grantOptionsIn(held) };
      bestCount = count;
    }
  }
  return best;
}

// Only the owner and the ACL's grantees can hold grant options, so other roles need not be listed.
function grantorCandidates(role: number, acl: Acl, owner: number, roles: MembershipOracle): readonly number[] {
  if (roles.privilegeRolesOf !== undefined) return roles.privilegeRolesOf(role);
  const others = new Set<number>([owner]);
  for (const item of acl) if (item.grantee !== PUBLIC_ROLE) others.add(item.grantee);
  others.delete(role);
  const members = [...others].filter((of) => roles.isMemberOf(role, of)).sort((a, b) => a - b);
  return [role, ...members];
}

function bitCount(bits: number): number {
  let count = 0;
  for (let b = bits; b !== 0; b &= b - 1) count++;
  return count;
}

// ---------------------------------------------------------------------------------------------
// Columns

/**
 * pg_attribute_aclmask: what `role` holds through a column's own ACL (attacl; NULL grants
 * nothing). The table's owner holds every grant option on its columns; a superuser holds all.
 * Table-level privileges are not included: see columnPrivilegeMask.
 */
export function columnAclMask(table: AclObject, columnAcl: Acl | null, role: number, mask: number, roles: MembershipOracle, how: AclMaskHow = 'all'): number {
  if (role !== PUBLIC_ROLE && roles.isSuperuser(role)) return mask;
  return aclMaskOfAcl(columnAcl ?? [], role, table.owner, mask, roles, how);
}

/** What `role` may do with one column: a table-level privilege covers every column, a column grant only its own. */
export function columnPrivilegeMask(table: AclObject, columnAcl: Acl | null, role: number, mask: number, roles: MembershipOracle): number {
  return aclMask(table, role, mask, roles) | columnAclMask(table, columnAcl, role, mask, roles);
}

/** has_column_privilege: any bit of `mode` on the table, or on the column itself. */
export function hasColumnPrivilege(table: AclObject, columnAcl: Acl | null, role: number, mode: number, roles: MembershipOracle): boolean {
  return hasPrivilege(table, role, mode, roles) || columnAclMask(table, columnAcl, role, mode, roles, 'any') !== 0;
}
