import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import {
  AclRight, PG_READ_ALL_DATA_OID, PG_WRITE_ALL_DATA_OID, aclMask, columnAclMask, type MembershipOracle, type ObjectAclRecord, type RoleGraph,
  type SecuredObject, type Warehouse,
} from '../lake/index.js';
import type { SessionIdentity } from './session-identity.js';

/** What a relation is, for privilege messages ("permission denied for view v"). */
export type RelationKind = 'table' | 'view' | 'sequence';


/** The oracle acl-check.ts asks: privileges flow along INHERIT memberships; superusers hold all. */
export function membershipOracle(g: RoleGraph): MembershipOracle {
  return { isMemberOf: (role, of) => g.hasPrivilegesOf(role, of), isSuperuser: (role) => g.isSuperuser(role) };
}

/**
 * The session's privilege checks, PostgreSQL's rules over the catalog's owners and ACLs
 * (src/lake/security): relation privileges (whole table or per column), schema USAGE and
 * CREATE, and ownership for DDL. Denials are 42501 in PostgreSQL's words.
 */
export class SessionPrivileges {
  readonly #warehouse: Warehouse;
  readonly #identity: SessionIdentity;

  constructor(warehouse: Warehouse, identity: SessionIdentity) {
    this.#warehouse = warehouse;
    this.#identity = identity;
  }

  record(object: SecuredObject): ObjectAclRecord {
    return this.#warehouse.privileges.get(object);
  }

  /** The current role's oid and the oracle its checks use. */
  #who(): { role: number; roles: MembershipOracle; g: RoleGraph } {
    const g = this.#identity.graph();
    return { role: this.#identity.currentRole().oid, roles: membershipOracle(g), g };
  }

  isSuperuser(): boolean {
    return this.#identity.currentRole().superuser;
  }

  /** Owner or a member (with privileges) of the owning role, or a superuser: pg_class_ownercheck. */
  isOwner(object: SecuredObject): boolean {
    const { role, g } = this.#who();
    return g.hasPrivilegesOf(role, this.record(object).owner);
  }

  /** 42501 "must be owner of table t" unless the current role owns the object. */
  requireOwner(object: SecuredObject, kindWord: string, name: string): void {
    if (!this.isOwner(object)) throw new FloeError(SqlState.insufficientPrivilege, `must be owner of ${kindWord} ${name}`);
  }

  /**
   * The bits of `mask` the current role holds on a relation (table level), counting
   * pg_read_all_data for SELECT and pg_write_all_data for INSERT, UPDATE and DELETE.
   */
  relationMask(id: number, kind: RelationKind, mask: number): number {
    const { role, roles, g } = this.#who();
    const r = this.record({ kind: 'relation', id });
    let held = aclMask({ kind: kind === 'sequence' ? 'sequence' : 'table', owner: r.owner, acl: r.acl }, role, mask, roles);
    if (kind !== 'sequence') {
      if ((mask & AclRight.select) !== 0 && g.hasPrivilegesOf(role, PG_READ_ALL_DATA_OID)) held |= AclRight.select;
      const writes = AclRight.insert | AclRight.update | AclRight.delete;
      if ((mask & writes) !== 0 && g.hasPrivilegesOf(role, PG_WRITE_ALL_DATA_OID)) held |= mask & writes;
    }
    return held & mask;
  }

  /** Whether the current role holds `right` on the column, through the table's ACL or the column's own. */
  columnHeld(id: number, column: string, right: number): boolean {
    if (this.relationMask(id, 'table', right) === right) return true;
    const { role, roles } = this.#who();
    const r = this.record({ kind: 'relation', id });
    return columnAclMask({ kind: 'table', owner: r.owner, acl: r.acl }, r.columnAcls[column] ?? null, role, right, roles) === right;
  }

  /** Any column of the relation with `right` (PostgreSQL's rule for a statement that names no column, as count(*)). */
  anyColumnHeld(id: number, columns: readonly string[], right: number): boolean {
    return columns.some((c) => this.columnHeld(id, c, right));
  }

  /** Schema USAGE or CREATE, as pg_namespace_aclcheck; the system schemas are usable by all. */
  schemaHeld(name: string, right: number): boolean {
    if (name === 'pg_catalog' || name === 'information_schema') return right === AclRight.usage;
    const { role, roles } = this.#who();
    const r = this.record({ kind: 'schema', name });
    return aclMask({ kind: 'schema', owner: r.owner, acl: r.acl }, role, right, roles) === right;
  }

  requireSchema(name: string, right: number): void {
    if (!this.schemaHeld(name, right)) throw new FloeError(SqlState.insufficientPrivilege, `permission denied for schema ${name}`);
  }
}
