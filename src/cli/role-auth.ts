import { RoleGraph, type RoleCatalog, type RoleRecord } from '../lake/index.js';
import { md5StoredPassword, matchesScram, parseScramVerifier } from '../wire/index.js';
import type { AuthProvider, HbaFileResult } from '../wire/index.js';
import type { HttpCredentials } from '../http/index.js';

/** A role's password is usable when it has one that has not expired (VALID UNTIL). */
function liveVerifier(r: RoleRecord | undefined): string | undefined {
  if (r?.password == null) return undefined;
  if (r.validUntilMicros !== null && r.validUntilMicros < BigInt(Date.now()) * 1000n) return undefined;
  return r.password;
}

/** The wire's authentication against the catalog's roles, as they are at each login, under `hba`'s rules. */
export function catalogAuthProvider(roles: RoleCatalog, hba: HbaFileResult): AuthProvider {
  return {
    hba: () => hba,
    role: (name) => roles.get(name),
    isMemberOf(user, role) {
      const g = new RoleGraph(roles.list(), roles.memberships());
      const u = g.role(user);
      const r = g.role(role);
      // hba's +role asks plain membership: a superuser is not thereby a member.
      return u !== undefined && r !== undefined && (u.oid === r.oid || g.rolesOf(u.oid, false).has(r.oid));
    },
  };
}

/** The same roles for the management API's HTTP Basic and login form: a login role's password; superusers by attribute. */
export function catalogHttpCredentials(roles: RoleCatalog): HttpCredentials {
  return {
    verify(user, password) {
      const r = roles.get(user);
      const stored = liveVerifier(r);
      if (r === undefined || !r.canLogin || stored === undefined) return false;
      const scram = parseScramVerifier(stored);
      return scram !== undefined ? matchesScram(scram, password) : stored === md5StoredPassword(user, password);
    },
    isSuperuser: (user) => roles.get(user)?.superuser === true,
  };
}
