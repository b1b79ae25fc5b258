import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AclRight } from '../../../src/lake/security/acl.js';
import { allDataRelationRights, allDataSchemaRights } from '../../../src/lake/security/all-data-roles.js';
import { PG_DATABASE_OWNER_OID } from '../../../src/lake/security/object-acl.js';
import { RoleGraph } from '../../../src/lake/security/role-graph.js';
import {
  DEFAULT_ROLE_ATTRIBUTES, PG_READ_ALL_DATA_OID, PG_WRITE_ALL_DATA_OID, type RoleMembership, type RoleRecord,
} from '../../../src/lake/security/role-metadata.js';

const role = (oid: number, name: string, extra: Partial<RoleRecord> = {}): RoleRecord => ({ ...DEFAULT_ROLE_ATTRIBUTES, oid, name, ...extra });
const member = (memberOid: number, roleOid: number): RoleMembership => ({ roleOid, memberOid, grantorOid: 10, adminOption: false });

// root (superuser) · alice ∈ team ∈ ops · noinh (NOINHERIT) ∈ team · reader ∈ pg_read_all_data · writer ∈ pg_write_all_data · dba's member
const roles = [
  role(10, 'root', { superuser: true }), role(100, 'alice'), role(101, 'team'), role(102, 'ops'), role(103, 'noinh', { inherit: false }),
  role(104, 'reader'), role(105, 'writer'), role(106, 'dba'), role(107, 'dbamember'),
  role(PG_READ_ALL_DATA_OID, 'pg_read_all_data'), role(PG_WRITE_ALL_DATA_OID, 'pg_write_all_data'), role(PG_DATABASE_OWNER_OID, 'pg_database_owner'),
];
const memberships = [
  member(100, 101), member(101, 102), member(103, 101), member(104, PG_READ_ALL_DATA_OID), member(105, PG_WRITE_ALL_DATA_OID), member(107, 106),
];

describe('RoleGraph', () => {
  const g = new RoleGraph(roles, memberships);

  test('privileges follow INHERIT memberships; SET ROLE membership follows every one', () => {
    assert.equal(g.hasPrivilegesOf(100, 102), true);
    assert.equal(g.hasPrivilegesOf(103, 101), false);
    assert.equal(g.isMemberOf(103, 102), true);
    assert.equal(g.hasPrivilegesOf(10, 100), true);
    assert.equal(g.privilegeOracle.isMemberOf(100, 102), true);
    assert.equal(g.privilegeOracle.isMemberOf(103, 101), false);
    assert.equal(g.privilegeOracle.isSuperuser(10), true);
  });

  test('is_member_of_role_nosuper: a superuser is no member by attribute', () => {
    assert.equal(g.isMemberOf(10, 101), true);
    assert.equal(g.isMemberOfNoSuper(10, 101), false);
    assert.equal(g.isMemberOfNoSuper(100, 102), true);
    assert.equal(g.isMemberOfNoSuper(101, 101), true);
  });

  test("the database's owner, and who has its privileges, has pg_database_owner's when the graph is told who it is", () => {
    assert.equal(g.hasPrivilegesOf(106, PG_DATABASE_OWNER_OID), false);
    const withOwner = new RoleGraph(roles, memberships, { databaseOwner: 106 });
    assert.equal(withOwner.hasPrivilegesOf(106, PG_DATABASE_OWNER_OID), true);
    assert.equal(withOwner.hasPrivilegesOf(107, PG_DATABASE_OWNER_OID), true);
    assert.equal(withOwner.hasPrivilegesOf(100, PG_DATABASE_OWNER_OID), false);
  });

  test('pg_read_all_data gives SELECT, pg_write_all_data INSERT, UPDATE and DELETE, either USAGE on schemas', () => {
    const { select, insert, update, delete: del, truncate, usage, create } = AclRight;
    assert.equal(allDataRelationRights(g, 104, select | insert | truncate), select);
    assert.equal(allDataRelationRights(g, 105, select | insert | update | del | truncate), insert | update | del);
    assert.equal(allDataRelationRights(g, 100, select | insert), 0);
    assert.equal(allDataSchemaRights(g, 104, usage | create), usage);
    assert.equal(allDataSchemaRights(g, 105, usage), usage);
    assert.equal(allDataSchemaRights(g, 105, create), 0);
    assert.equal(allDataSchemaRights(g, 100, usage), 0);
  });
});
