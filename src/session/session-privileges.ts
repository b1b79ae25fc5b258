import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { isTempNamespaceName } from '../common/temp-namespace.js';
import {
  AclRight, aclMask, allDataRelationRights, allDataSchemaRights, columnAclMask, type ObjectAclRecord, type RoleGraph, type SecuredObject, type Warehouse,
} from '../lake/index.js';
import type { SessionIdentity } from './session-identity.js';

/** What a relation is, for privilege messages ("permission denied for view v"). */
export type RelationKind = 'table' | 'view' | 'sequence';

/**
 * The session's privilege checks, PostgreSQL's rules over the catalog's owners and ACLs
 * (src/lake/security): relation privileges (whole table or per column), schema USAGE and
 * CREATE, and ownership for DDL. Denials are 42501 in PostgreSQL's words. A check asks for
 * the current role unless given another (a view's owner, an object's new owner).
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

  #graph(): RoleGraph {
    return this.#identity.graph();
  }

  #current(): number {
    return this.#identity.currentRole().oid;
  }

  isSuperuser(): boolean {
    return this.#identity.currentRole().superuser;
  }

  /** Owner or a member (with privileges) of the owning role, or a superuser: pg_class_ownercheck. */
  isOwner(object: SecuredObject): boolean {
    return this.#graph().hasPrivilegesOf(this.#current(), this.record(object).owner);
  }

  /** 42501 "must be owner of table t" unless the current role owns the object. */
  requireOwner(object: SecuredObject, kindWord: string, name: string): void {
    if (!this.isOwner(object)) throw new FloeError(SqlState.insufficientPrivilege, `must be owner of ${kindWord} ${name}`);
  }

  /**
   * The bits of `mask` `role` holds on a relation (table level), counting pg_read_all_data
   * (SELECT) and pg_write_all_data (INSERT, UPDATE, DELETE) on tables, views and sequences
   * alike, as PostgreSQL does: nextval and setval need UPDATE, so a writer may call them.
   */
  relationMask(id: number, kind: RelationKind, mask: number, role = this.#current()): number {
    const g = this.#graph();
    const r = this.record({ kind: 'relation', id });
    const held = aclMask({ kind: kind === 'sequence' ? 'sequence' : 'table', owner: r.owner, acl: r.acl }, role, mask, g.privilegeOracle);
    return (held | allDataRelationRights(g, role, mask)) & mask;
  }

  /** Whether `role` holds `right` through the column's own ACL (attacl), table-level rights aside. */
  columnAclHeld(id: number, column: string, right: number, role = this.#current()): boolean {
    const r = this.record({ kind: 'relation', id });
    return columnAclMask({ kind: 'table', owner: r.owner, acl: r.acl }, r.columnAcls[column] ?? null, role, right, this.#graph().privilegeOracle) === right;
  }

  /** Whether the current role holds `right` on the column, through the table's ACL or the column's own. */
  columnHeld(id: number, column: string, right: number): boolean {
    return this.relationMask(id, 'table', right) === right || this.columnAclHeld(id, column, right);
  }

  /** Any column of the relation with `right` (PostgreSQL's rule for a statement that names no column, as count(*)). */
  anyColumnHeld(id: number, columns: readonly string[], right: number): boolean {
    return columns.some((c) => this.columnHeld(id, c, right));
  }

  /** Schema USAGE or CREATE through the schema's ACL, as pg_namespace_aclcheck; the system schemas are usable by all. */
  schemaHeld(name: string, right: number, role = this.#current()): boolean {
    if (name === 'pg_catalog' || name === 'information_schema') return right === AclRight.usage;
    const r = this.record({ kind: 'schema', name });
    return aclMask({ kind: 'schema', owner: r.owner, acl: r.acl }, role, right, this.#graph().privilegeOracle) === right;
  }

  /**
   * Whether the current role may look names up in the schema (USAGE, through its ACL or
   * pg_read_all_data / pg_write_all_data); its own temporary schema always.
   */
  schemaUsable(name: string): boolean {
    if (isTempNamespaceName(name) || this.isSuperuser()) return true;
    return this.schemaHeld(name, AclRight.usage) || allDataSchemaRights(this.#graph(), this.#current(), AclRight.usage) !== 0;
  }

  requireSchema(name: string, right: number): void {
    if (!this.schemaHeld(name, right)) throw new FloeError(SqlState.insufficientPrivilege, `permission denied for schema ${name}`);
  }
}
