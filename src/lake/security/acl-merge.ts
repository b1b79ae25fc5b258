import type { Acl, AclItem } from './acl.js';

/**
 * PostgreSQL's aclmerge: the items of the ACLs together, one per grantee and grantor (their
 * privileges and grant options OR'ed), in the order each pair first appears.
 */
export function aclMerge(...acls: readonly Acl[]): Acl {
  const out = new Map<string, AclItem>();
  for (const i of acls.flat()) {
    const key = `${i.grantee}/${i.grantor}`;
    const prev = out.get(key);
    out.set(key, { ...i, privileges: (prev?.privileges ?? 0) | i.privileges, grantOptions: (prev?.grantOptions ?? 0) | i.grantOptions });
  }
  return [...out.values()];
}

/** PostgreSQL's aclnewowner: the old owner's items, as grantee or grantor, become the new owner's, merged with any the new owner had. */
export function aclNewOwner(acl: Acl, from: number, to: number): Acl {
  const swap = (role: number) => (role === from ? to : role);
  return aclMerge(acl.map((i) => ({ ...i, grantee: swap(i.grantee), grantor: swap(i.grantor) })));
}
