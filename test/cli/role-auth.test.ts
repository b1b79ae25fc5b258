import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { md5StoredPassword } from '../../src/common/md5-password.js';
import { formatScramVerifier, makeScramVerifier } from '../../src/common/scram-secret.js';
import { catalogAuthProvider, catalogHttpCredentials } from '../../src/cli/role-auth.js';
import { DEFAULT_ROLE_ATTRIBUTES, type RoleCatalog, type RoleMembership, type RoleRecord } from '../../src/lake/index.js';
import { defaultHbaFile } from '../../src/wire/index.js';

const hour = 3_600_000_000n;
const records: RoleRecord[] = [
  { ...DEFAULT_ROLE_ATTRIBUTES, oid: 10, name: 'floe', superuser: true, canLogin: true },
  { ...DEFAULT_ROLE_ATTRIBUTES, oid: 100, name: 'scram', canLogin: true, password: formatScramVerifier(makeScramVerifier('pw')) },
  { ...DEFAULT_ROLE_ATTRIBUTES, oid: 101, name: 'md5', canLogin: true, password: md5StoredPassword('md5', 'pw') },
  {
    ...DEFAULT_ROLE_ATTRIBUTES, oid: 102, name: 'expired', canLogin: true, password: md5StoredPassword('expired', 'pw'),
    validUntilMicros: BigInt(Date.now()) * 1000n - hour,
  },
  { ...DEFAULT_ROLE_ATTRIBUTES, oid: 103, name: 'nologin', password: md5StoredPassword('nologin', 'pw') },
  { ...DEFAULT_ROLE_ATTRIBUTES, oid: 104, name: 'team' },
];
const memberships: RoleMembership[] = [{ roleOid: 104, memberOid: 101, grantorOid: 10, adminOption: false }];

/** Only what role-auth.ts reads of the catalog. */
const roles = {
  list: () => records,
  get: (name: string) => records.find((r) => r.name === name),
  memberships: () => memberships,
} as unknown as RoleCatalog;

describe('the catalog roles as the HTTP API and the wire see them', () => {
  test("HTTP Basic checks a login role's password as the wire does", () => {
    const http = catalogHttpCredentials(roles);
    assert.equal(http.verify('scram', 'pw'), true);
    assert.equal(http.verify('scram', 'nope'), false);
    assert.equal(http.verify('md5', 'pw'), true);
    assert.equal(http.verify('md5', 'nope'), false);
    assert.equal(http.verify('expired', 'pw'), false);
    assert.equal(http.verify('nologin', 'pw'), false);
    assert.equal(http.verify('nobody', 'pw'), false);
  });

  test("hba's +role is membership through GRANTs; a superuser is not thereby a member", () => {
    const auth = catalogAuthProvider(roles, defaultHbaFile('floe'));
    assert.equal(auth.isMemberOf('md5', 'team'), true);
    assert.equal(auth.isMemberOf('team', 'team'), true);
    assert.equal(auth.isMemberOf('floe', 'team'), false);
    assert.equal(auth.isMemberOf('scram', 'team'), false);
    assert.equal(auth.isMemberOf('nobody', 'team'), false);
  });
});
