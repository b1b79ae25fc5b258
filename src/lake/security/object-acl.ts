import { AclRight, PUBLIC_ROLE, aclItem, type Acl } from './acl.js';
import { BOOTSTRAP_SUPERUSER_OID } from './role-metadata.js';

/**
 * Owners and access-control lists of the objects privileges apply to: relations (tables,
 * views and sequences, by id), schemas (by name) and the database. An object with no
 * record is owned by the bootstrap superuser and has the default ACL of its kind (NULL, as
 * relacl), except the public schema, which PostgreSQL 15 gives to pg_database_owner.
 */
export type SecuredObject =
  | { readonly kind: 'relation'; readonly id: number }
  | { readonly kind: 'schema'; readonly name: string }
  /** A user-defined type (CREATE TYPE), by oid. */
  | { readonly kind: 'type'; readonly oid: number }
  /**
   * ALTER DEFAULT PRIVILEGES: what objects of one kind (pg_default_acl's letter: r tables, S
   * sequences, T types, n schemas) get when `role` creates them, in one schema or (null) any.
   */
  | { readonly kind: 'defaults'; readonly role: number; readonly schema: string | null; readonly objtype: DefaultAclObjectType }
  | { readonly kind: 'database' };

export type DefaultAclObjectType = 'r' | 'S' | 'T' | 'n';

export interface ObjectAclRecord {
  readonly object: SecuredObject;
  readonly owner: number;
  /** NULL: the kind's default (acl.ts's acldefault). */
  readonly acl: Acl | null;
  /** A relation's column ACLs by column name (attacl); a column not listed has none. */
  readonly columnAcls: Readonly<Record<string, Acl>>;
}

export const PG_DATABASE_OWNER_OID = 6171;

/** The public schema's ACL as PostgreSQL 15 creates it: its owner (pg_database_owner) may use and create, everyone may use. */
export const PUBLIC_SCHEMA_ACL: Acl = [
  aclItem(PG_DATABASE_OWNER_OID, PG_DATABASE_OWNER_OID, AclRight.usage | AclRight.create),
  aclItem(PUBLIC_ROLE, PG_DATABASE_OWNER_OID, AclRight.usage),
];

export function securedObjectKey(o: SecuredObject): string {
  switch (o.kind) {
    case 'relation': return String(o.id);
    case 'schema': return o.name;
    case 'type': return String(o.oid);
    case 'defaults': return JSON.stringify([o.role, o.schema, o.objtype]);
    case 'database': return '';
  }
}

/** The record an object without one has. */
export function defaultObjectAcl(object: SecuredObject): ObjectAclRecord {
  if (object.kind === 'schema' && object.name === 'public') return { object, owner: PG_DATABASE_OWNER_OID, acl: PUBLIC_SCHEMA_ACL, columnAcls: {} };
  if (object.kind === 'defaults') return { object, owner: object.role, acl: null, columnAcls: {} };
  return { object, owner: BOOTSTRAP_SUPERUSER_OID, acl: null, columnAcls: {} };
}

export interface PrivilegeCatalog {
  /** Every record (objects with none are not listed). */
  list(): ObjectAclRecord[];
  /** The object's record, or its default. */
  get(object: SecuredObject): ObjectAclRecord;
  /** Writes the records in one catalog transaction (a GRANT on several objects is one change). */
  put(records: readonly ObjectAclRecord[]): void;
  /** The object is gone (dropped): its record goes with it. */
  forget(object: SecuredObject): void;
}
