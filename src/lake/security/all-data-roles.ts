import { AclRight } from './acl.js';
import type { RoleGraph } from './role-graph.js';
import { PG_READ_ALL_DATA_OID, PG_WRITE_ALL_DATA_OID } from './role-metadata.js';

/*
 * pg_read_all_data and pg_write_all_data: rights no ACL shows, which PostgreSQL's
 * pg_class_aclmask and pg_namespace_aclmask add on top of the ACL's answer (acl-check.ts
 * leaves them to the caller).
 */

const WRITES = AclRight.insert | AclRight.update | AclRight.delete;

/** The bits of `mask` the two roles give `role` on a table or view: SELECT through the first, INSERT, UPDATE and DELETE through the second. */
export function allDataRelationRights(g: RoleGraph, role: number, mask: number): number {
  let held = 0;
  if ((mask & AclRight.select) !== 0 && g.hasPrivilegesOf(role, PG_READ_ALL_DATA_OID)) held |= AclRight.select;
  if ((mask & WRITES) !== 0 && g.hasPrivilegesOf(role, PG_WRITE_ALL_DATA_OID)) held |= mask & WRITES;
  return held;
}

/** The bits of `mask` they give on a schema: USAGE through either. */
export function allDataSchemaRights(g: RoleGraph, role: number, mask: number): number {
  if ((mask & AclRight.usage) === 0) return 0;
  return g.hasPrivilegesOf(role, PG_READ_ALL_DATA_OID) || g.hasPrivilegesOf(role, PG_WRITE_ALL_DATA_OID) ? AclRight.usage : 0;
}
