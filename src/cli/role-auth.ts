import { RoleGraph, type RoleCatalog } from '../lake/index.js';
import { checkPassword } from '../wire/index.js';
import type { AuthProvider, HbaFileResult } from '../wire/index.js';
import type { HttpCredentials } from '../http/index.js';

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
      return u !== undefined && r !== undefined && g.isMemberOfNoSuper(u.oid, r.oid);
    },
  };
}

/** The same roles for the management API's HTTP Basic and login form: a login role's password, checked as the wire checks it; superusers by attribute. */
export function catalogHttpCredentials(roles: RoleCatalog): HttpCredentials {
  return {
    verify(user, password) {
      const r = roles.get(user);
      return r !== undefined && r.canLogin && checkPassword(r, user, password);
    },
    isSuperuser: (user) => roles.get(user)?.superuser === true,
  };
}
