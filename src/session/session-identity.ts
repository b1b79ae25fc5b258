import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { RoleGraph } from '../lake/index.js';
import type { RoleCatalog, RoleRecord, Warehouse } from '../lake/index.js';
import type { SessionSettings } from './session-settings.js';

/**
 * Who a session is: the user it authenticated as, the session user (SET SESSION
 * AUTHORIZATION, superusers only) and the current user (SET ROLE). The last two are
 * the settings `session_authorization` and `role`, so they are transactional like any
 * SET, and `is_superuser` follows the current user, as PostgreSQL reports it.
 */
export class SessionIdentity {
  readonly authenticatedUser: string;
  readonly #warehouse: Warehouse;
  readonly #settings: SessionSettings;
  #graph: { roles: readonly RoleRecord[]; members: unknown; graph: RoleGraph } | undefined;

  constructor(warehouse: Warehouse, authenticatedUser: string, settings: SessionSettings) {
    this.#warehouse = warehouse;
    this.authenticatedUser = authenticatedUser;
    this.#settings = settings;
    settings.values.set('session_authorization', authenticatedUser);
    settings.values.set('is_superuser', this.isSuperuser(authenticatedUser) ? 'on' : 'off');
  }

  get #roles(): RoleCatalog | undefined {
    return (this.#warehouse as { readonly roles?: RoleCatalog }).roles;
  }

  sessionUser(): string {
    return this.#settings.get('session_authorization') ?? this.authenticatedUser;
  }

  currentUser(): string {
    const role = this.#settings.get('role');
    return role === undefined || role === 'none' ? this.sessionUser() : role;
  }

  /** The roles and memberships as the catalog has them now (rebuilt only when they changed). */
  graph(): RoleGraph {
    const catalog = this.#roles;
    const roles = catalog?.list() ?? [];
    const members = catalog?.memberships() ?? [];
    if (this.#graph === undefined || this.#graph.roles !== roles || this.#graph.members !== members) {
      this.#graph = { roles, members, graph: new RoleGraph(roles, members) };
    }
    return this.#graph.graph;
  }

  role(name: string): RoleRecord | undefined {
    return this.graph().role(name);
  }

  isSuperuser(name: string): boolean {
    return this.role(name)?.superuser === true;
  }

  /** The current user's role; 42704 when it was dropped under the session. */
  currentRole(): RoleRecord {
    const name = this.currentUser();
    const r = this.role(name);
    if (r === undefined) throw new FloeError(SqlState.undefinedObject, `role "${name}" does not exist`);
    return r;
  }

  /** SET ROLE name | NONE, and RESET ROLE (null): a role the session user is a member of. */
  setRole(value: string | null): void {
    const name = value === null || value.toLowerCase() === 'none' ? 'none' : value;
    if (name !== 'none') {
      const g = this.graph();
      const target = g.role(name);
      if (target === undefined) throw new FloeError(SqlState.invalidParameterValue, `role "${name}" does not exist`);
      const session = g.role(this.sessionUser());
      if (session === undefined || !g.isMemberOf(session.oid, target.oid)) {
        throw new FloeError(SqlState.insufficientPrivilege, `permission denied to set role "${name}"`);
      }
    }
    this.#settings.assign('role', name);
    this.#syncSuperuser();
  }

  /** SET SESSION AUTHORIZATION name | DEFAULT (null): only for a session that authenticated as a superuser. */
  setSessionAuthorization(value: string | null): void {
    const name = value === null || value.toLowerCase() === 'default' ? this.authenticatedUser : value;
    if (!this.isSuperuser(this.authenticatedUser) && name !== this.authenticatedUser) {
      throw new FloeError(SqlState.insufficientPrivilege, 'permission denied to set session authorization');
    }
    if (this.role(name) === undefined) throw new FloeError(SqlState.invalidParameterValue, `role "${name}" does not exist`);
    this.#settings.assign('session_authorization', name);
    this.#settings.assign('role', 'none');
    this.#syncSuperuser();
  }

  #syncSuperuser(): void {
    const on = this.isSuperuser(this.currentUser()) ? 'on' : 'off';
    if (this.#settings.get('is_superuser') !== on) this.#settings.assign('is_superuser', on);
  }
}
