import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AclRight, aclItem } from '../../../src/lake/security/acl.js';
import { aclMerge, aclNewOwner } from '../../../src/lake/security/acl-merge.js';

const { select: r, insert: a, update: w } = AclRight;
const plain = (acl: readonly object[]) => acl.map((i) => ({ ...i }));

describe('ACL merge and new owner', () => {
  test('aclMerge: one item per grantee and grantor, OR-ed, in first-seen order', () => {
    const merged = aclMerge([aclItem(1, 10, r), aclItem(2, 10, a)], [aclItem(2, 10, w, w), aclItem(3, 1, r)]);
    assert.deepEqual(plain(merged), [
      { grantee: 1, grantor: 10, privileges: r, grantOptions: 0 },
      { grantee: 2, grantor: 10, privileges: a | w, grantOptions: w },
      { grantee: 3, grantor: 1, privileges: r, grantOptions: 0 },
    ]);
  });

  test('aclNewOwner: the old owner becomes the new one as grantee and grantor, merged with what the new one had', () => {
    const acl = [aclItem(10, 10, r | a), aclItem(20, 10, r), aclItem(20, 20, w), aclItem(0, 10, r)];
    assert.deepEqual(plain(aclNewOwner(acl, 10, 20)), [
      { grantee: 20, grantor: 20, privileges: r | a | w, grantOptions: 0 },
      { grantee: 0, grantor: 20, privileges: r, grantOptions: 0 },
    ]);
  });
});
