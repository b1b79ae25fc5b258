import { after, before, describe, test } from 'node:test';
import { seededRandom } from '../helpers/seeded-random.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { FloeError } from '../../../src/common/floe-error.js';
import {
  AclRight, PUBLIC_ROLE, aclItem, acldefault, formatAcl, formatAclItem, grantOptionFor, parseAcl, parseAclItem,
  privilegeFromName, quoteRoleName,
  type Acl, type AclObjectKind,
} from '../../../src/lake/security/acl.js';
import {
  aclMask, columnPrivilegeMask, hasColumnPrivilege, hasPrivilege, noMemberships, selectBestGrantor,
  type MembershipOracle,
} from '../../../src/lake/security/acl-check.js';
import {
  applyGrant, applyRevoke,
  type AclChange, type AclTarget, type ColumnAcl, type GrantStatement, type RevokeStatement,
} from '../../../src/lake/security/acl-grant.js';
import { startPostgres, type PostgresServer } from '../../harness/postgres-server.js';

const { insert: a, select: r, update: w, delete: d, truncate: D, references: x, trigger: t, usage: U } = AclRight;

// Fixed oids for the unit tests: the owner, three roles and a superuser.
const OWNER = 100;
const ALICE = 101;
const BOB = 102;
const CAROL = 103;
const ROOT = 10;
const names = new Map<number, string>([[OWNER, 'owner'], [ALICE, 'alice'], [BOB, 'bob'], [CAROL, 'carol'], [ROOT, 'root']]);
const roleName = (oid: number) => names.get(oid);
const roleOid = (name: string) => [...names].find(([, n]) => n === name)?.[0];
const show = (acl: Acl | null) => (acl === null ? null : formatAcl(acl, roleName));

function membership(memberOf: ReadonlyMap<number, readonly number[]>, superusers: readonly number[] = [ROOT]): MembershipOracle {
  return {
    isMemberOf: (role, of) => memberOf.get(role)?.includes(of) ?? false,
    isSuperuser: (role) => superusers.includes(role),
  };
}
const plainRoles = membership(new Map());

function table(acl: Acl | null, name = 't'): AclTarget {
  return { kind: 'table', owner: OWNER, acl, name };
}

/** Runs statements in order, each on the ACL the previous one left. */
function run(start: AclTarget, steps: readonly ((target: AclTarget) => AclChange)[]): AclChange {
  let change: AclChange = { acl: start.acl, grantor: 0, privileges: 0, warnings: [] };
  let target = start;
  for (const step of steps) {
    change = step(target);
    target = { ...target, acl: change.acl };
  }
  return change;
}

const grant = (currentRole: number, grantees: number[], privileges: number | readonly number[] | 'all', more: Partial<GrantStatement> = {}, roles = plainRoles) =>
  (target: AclTarget) => applyGrant({ target, currentRole, grantees, privileges, ...more }, roles);
const revoke = (currentRole: number, grantees: number[], privileges: number | readonly number[] | 'all', more: Partial<RevokeStatement> = {}, roles = plainRoles) =>
  (target: AclTarget) => applyRevoke({ target, currentRole, grantees, privileges, ...more }, roles);

function sqlstateOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    if (e instanceof FloeError) return e.sqlstate;
    throw e;
  }
}

describe('text form', () => {
  test('items print grantee=privileges/grantor with * after grantable letters and an empty grantee for PUBLIC', () => {
    assert.equal(formatAclItem(aclItem(ALICE, OWNER, r | w, r), roleName), 'alice=r*w/owner');
    assert.equal(formatAclItem(aclItem(PUBLIC_ROLE, OWNER, a), roleName), '=a/owner');
    assert.equal(formatAclItem(aclItem(999, OWNER, r), roleName), '999=r/owner', 'a dropped role prints as its oid');
    assert.equal(formatAclItem(aclItem(ALICE, OWNER, (1 << 14) - 1, (1 << 14) - 1), roleName), 'alice=a*r*w*d*D*x*t*X*U*C*T*c*s*A*/owner');
  });

  test('names are quoted as putid quotes them', () => {
    assert.equal(quoteRoleName('plain_Name9'), 'plain_Name9');
    assert.equal(quoteRoleName('a b'), '"a b"');
    assert.equal(quoteRoleName('say "hi"'), '"say ""hi"""');
    assert.equal(quoteRoleName('zqé'), '"zqé"');
    assert.equal(quoteRoleName('x=y/z'), '"x=y/z"');
  });

  test('arrays quote elements as array_out does', () => {
    const odd = new Map<number, string>([[1, 'zq a b'], [2, 'zq"q'], [3, 'NULL'], [4, 'o'], [5, 'zq{}']]);
    const acl = [aclItem(4, 4, a | r), aclItem(1, 4, r), aclItem(2, 4, r), aclItem(3, 4, r), aclItem(5, 4, r), aclItem(0, 4, a)];
    assert.equal(
      formatAcl(acl, (oid) => odd.get(oid)),
      String.raw`{o=ar/o,"\"zq a b\"=r/o","\"zq\"\"q\"=r/o",NULL=r/o,"\"zq{}\"=r/o",=a/o}`,
    );
    assert.equal(formatAcl([], roleName), '{}');
  });

  test('parsing reads back what formatting wrote', () => {
    const odd = new Map<number, string>([[1, 'zq a b'], [2, 'zq"q'], [3, 'NULL'], [4, 'o'], [5, 'zq{}'], [6, 'x\\y']]);
    const oidOf = (name: string) => [...odd].find(([, n]) => n === name)?.[0];
    const acl = [aclItem(4, 4, a | r | w, r), aclItem(1, 4, r), aclItem(2, 1, r, r), aclItem(3, 4, r), aclItem(5, 4, r), aclItem(6, 4, U), aclItem(0, 4, a)];
    const text = formatAcl(acl, (oid) => odd.get(oid));
    assert.deepEqual(parseAcl(text, oidOf), acl);
    for (const item of acl) assert.deepEqual(parseAclItem(formatAclItem(item, (oid) => odd.get(oid)), oidOf), item);
  });

  test('parsing follows aclitemin: old spellings, R and leading * ignored, default grantor', () => {
    assert.deepEqual(parseAclItem('  alice =r*w/ owner ', roleOid), aclItem(ALICE, OWNER, r | w, r));
    assert.equal(sqlstateOf(() => parseAclItem('alice= r/owner', roleOid)), '22P02', 'no space may follow "="');
    assert.deepEqual(parseAclItem('group alice=rR/owner', roleOid), aclItem(ALICE, OWNER, r));
    assert.deepEqual(parseAclItem('alice=*r/owner', roleOid), aclItem(ALICE, OWNER, r));
    assert.deepEqual(parseAclItem('=X/owner', roleOid), aclItem(PUBLIC_ROLE, OWNER, AclRight.execute));
    assert.deepEqual(parseAclItem('alice=r', roleOid), aclItem(ALICE, 10, r));
    assert.deepEqual(parseAclItem('"al""ice"=r/owner', (n) => (n === 'al"ice' ? 7 : roleOid(n))), aclItem(7, OWNER, r));
    assert.deepEqual(parseAcl(' { alice=r/owner , "=a/owner" } ', roleOid), [aclItem(ALICE, OWNER, r), aclItem(PUBLIC_ROLE, OWNER, a)]);
    assert.deepEqual(parseAcl('{}', roleOid), []);
  });

  test('malformed text fails with PostgreSQL\'s SQLSTATEs', () => {
    assert.equal(sqlstateOf(() => parseAclItem('alice=rq/owner', roleOid)), '22P02');
    assert.equal(sqlstateOf(() => parseAclItem('alice r/owner', roleOid)), '22P02');
    assert.equal(sqlstateOf(() => parseAclItem('alice=r/', roleOid)), '22P02');
    assert.equal(sqlstateOf(() => parseAclItem('alice=r/owner junk', roleOid)), '22P02');
    assert.equal(sqlstateOf(() => parseAclItem('nobody=r/owner', roleOid)), '42704');
    assert.equal(sqlstateOf(() => parseAclItem(`${'n'.repeat(64)}=r/owner`, roleOid)), '42622');
    assert.equal(sqlstateOf(() => parseAcl('{alice=r/owner,NULL}', roleOid)), '22004');
    assert.equal(sqlstateOf(() => parseAcl('{{alice=r/owner}}', roleOid)), '22023');
    assert.equal(sqlstateOf(() => parseAcl('alice=r/owner', roleOid)), '22P02');
  });

  test('privilege names are GRANT\'s keywords; RULE means nothing', () => {
    assert.equal(privilegeFromName('SELECT'), r);
    assert.equal(privilegeFromName('temp'), AclRight.temporary);
    assert.equal(privilegeFromName('ALTER  SYSTEM'), AclRight.alterSystem);
    assert.equal(privilegeFromName('rule'), 0);
    assert.equal(sqlstateOf(() => privilegeFromName('bogus')), '42601');
  });
});

test('defaults are PostgreSQL 15\'s acldefault()', () => {
  const pgName = new Map([[10, 'postgres']]);
  const expected: [AclObjectKind, string][] = [
    ['column', '{}'],
    ['table', '{postgres=arwdDxt/postgres}'],
    ['sequence', '{postgres=rwU/postgres}'],
    ['database', '{=Tc/postgres,postgres=CTc/postgres}'],
    ['function', '{=X/postgres,postgres=X/postgres}'],
    ['language', '{=U/postgres,postgres=U/postgres}'],
    ['largeobject', '{postgres=rw/postgres}'],
    ['schema', '{postgres=UC/postgres}'],
    ['parameter', '{postgres=sA/postgres}'],
    ['tablespace', '{postgres=C/postgres}'],
    ['foreign-data-wrapper', '{postgres=U/postgres}'],
    ['foreign-server', '{postgres=U/postgres}'],
    ['type', '{=U/postgres,postgres=U/postgres}'],
  ];
  for (const [kind, text] of expected) assert.equal(formatAcl(acldefault(kind, 10), (oid) => pgName.get(oid)), text, kind);
});

describe('GRANT and REVOKE', () => {
  test('the owner grants as itself, and the first grant writes the default out', () => {
    const change = run(table(null), [grant(OWNER, [ALICE], r)]);
    assert.equal(show(change.acl), '{owner=arwdDxt/owner,alice=r/owner}');
    assert.deepEqual(change.warnings, []);
  });

  test('a superuser grants as the owner', () => {
    const change = run(table(null), [grant(ROOT, [ALICE, PUBLIC_ROLE], r | a)]);
    assert.equal(change.grantor, OWNER);
    assert.equal(show(change.acl), '{owner=arwdDxt/owner,alice=ar/owner,=ar/owner}');
  });

  test('a role with a grant option grants as itself; the chain cascades on revoke', () => {
    const chain = [grant(OWNER, [ALICE], r | w, { withGrantOption: true }), grant(ALICE, [BOB], r, { withGrantOption: true }), grant(BOB, [CAROL], r)];
    assert.equal(show(run(table(null), chain).acl), '{owner=arwdDxt/owner,alice=r*w*/owner,bob=r*/alice,carol=r/bob}');
    const restrict = () => run(table(null), [...chain, revoke(OWNER, [ALICE], r)]);
    assert.throws(restrict, (e: FloeError) => e.sqlstate === '2BP01' && e.message === 'dependent privileges exist' && e.hint === 'Use CASCADE to revoke them too.');
    assert.equal(show(run(table(null), [...chain, revoke(OWNER, [ALICE], r, { cascade: true })]).acl), '{owner=arwdDxt/owner,alice=w*/owner}');
    assert.equal(
      show(run(table(null), [...chain, revoke(OWNER, [ALICE], r, { grantOptionFor: true, cascade: true })]).acl),
      '{owner=arwdDxt/owner,alice=rw*/owner}',
    );
  });

  test('a grant option held from two grantors survives losing one of them', () => {
    const steps = [
      grant(OWNER, [ALICE, BOB], r, { withGrantOption: true }),
      grant(ALICE, [CAROL], r, { withGrantOption: true }),
      grant(BOB, [CAROL], r, { withGrantOption: true }),
      grant(CAROL, [PUBLIC_ROLE], r),
      revoke(OWNER, [ALICE], r, { grantOptionFor: true }),
    ];
    assert.equal(show(run(table(null), steps.slice(0, 4)).acl), '{owner=arwdDxt/owner,alice=r*/owner,bob=r*/owner,carol=r*/alice,carol=r*/bob,=r/carol}');
    // carol=r*/alice depends on alice's option, so RESTRICT refuses; with CASCADE it goes, but
    // carol keeps the option from bob, so carol's grant to PUBLIC stays.
    assert.throws(() => run(table(null), steps), (e: FloeError) => e.sqlstate === '2BP01');
    const cascaded = run(table(null), [...steps.slice(0, 4), revoke(OWNER, [ALICE], r, { grantOptionFor: true, cascade: true })]);
    assert.equal(show(cascaded.acl), '{owner=arwdDxt/owner,alice=r/owner,bob=r*/owner,carol=r*/bob,=r/carol}');
  });

  test('grant options cannot go to PUBLIC nor back to their source', () => {
    const toPublic = () => run(table(null), [grant(OWNER, [PUBLIC_ROLE], r, { withGrantOption: true })]);
    assert.throws(toPublic, (e: FloeError) => e.sqlstate === '0LP01' && e.message === 'grant options can only be granted to roles');
    const circular = () => run(table(null), [
      grant(OWNER, [ALICE], r, { withGrantOption: true }),
      grant(ALICE, [BOB], r, { withGrantOption: true }),
      grant(BOB, [ALICE], r, { withGrantOption: true }),
    ]);
    assert.throws(circular, (e: FloeError) => e.sqlstate === '0LP01' && e.message === 'grant options cannot be granted back to your own grantor');
  });

  test('granting more than the grant options held warns and grants the rest', () => {
    const some = run(table(null), [grant(OWNER, [ALICE], r | w, { withGrantOption: true }), grant(ALICE, [BOB], r | a)]);
    assert.deepEqual(some.warnings, [{ sqlstate: '01007', message: 'not all privileges were granted for "t"' }]);
    assert.equal(show(some.acl), '{owner=arwdDxt/owner,alice=r*w*/owner,bob=r/alice}');
    const all = run(table(null), [grant(OWNER, [ALICE], r | w, { withGrantOption: true }), grant(ALICE, [BOB], 'all')]);
    assert.deepEqual(all.warnings, [], 'ALL PRIVILEGES grants what it can without a warning');
    assert.equal(show(all.acl), '{owner=arwdDxt/owner,alice=r*w*/owner,bob=rw/alice}');
    const none = run(table(null), [grant(OWNER, [ALICE], r), grant(ALICE, [BOB], r)]);
    assert.deepEqual(none.warnings, [{ sqlstate: '01007', message: 'no privileges were granted for "t"' }]);
    const revokeNone = run(table(null), [grant(OWNER, [ALICE], r), revoke(ALICE, [BOB], r)]);
    assert.deepEqual(revokeNone.warnings, [{ sqlstate: '01006', message: 'no privileges could be revoked for "t"' }]);
  });

  test('a role with no right at all on the object is refused', () => {
    assert.throws(() => run(table(null), [grant(ALICE, [BOB], r)]), (e: FloeError) => e.sqlstate === '42501' && e.message === 'permission denied for table t');
    assert.throws(() => run(table(null), [revoke(ALICE, [BOB], r)]), (e: FloeError) => e.sqlstate === '42501');
    // A right held through PUBLIC is enough to get a warning instead.
    const viaPublic = run(table(null), [grant(OWNER, [PUBLIC_ROLE], r), grant(ALICE, [BOB], r)]);
    assert.equal(viaPublic.warnings[0]?.sqlstate, '01007');
  });

  test('a member acts as the role holding the grant option; a member of the owner acts as the owner', () => {
    const roles = membership(new Map([[BOB, [ALICE]], [CAROL, [OWNER]]]));
    const viaAlice = run(table(null), [grant(OWNER, [ALICE], r, { withGrantOption: true }), grant(BOB, [CAROL], r, {}, roles)]);
    assert.equal(viaAlice.grantor, ALICE);
    assert.equal(show(viaAlice.acl), '{owner=arwdDxt/owner,alice=r*/owner,carol=r/alice}');
    const viaOwner = run(table(null), [grant(CAROL, [BOB], a, {}, roles)]);
    assert.equal(viaOwner.grantor, OWNER);
    assert.equal(show(viaOwner.acl), '{owner=arwdDxt/owner,bob=a/owner}');
    assert.deepEqual(selectBestGrantor(BOB, r | w, viaAlice.acl!, OWNER, roles), { grantor: ALICE, grantOptions: r });
    assert.deepEqual(selectBestGrantor(BOB, r, [], OWNER, noMemberships), { grantor: BOB, grantOptions: 0 });
  });

  test('an item left empty is removed; the owner can revoke its own privileges', () => {
    const change = run(table(null), [grant(OWNER, [ALICE], r), revoke(OWNER, [ALICE], r), revoke(OWNER, [OWNER], 'all')]);
    assert.equal(show(change.acl), '{}');
  });

  test('sequences: TABLE syntax drops what a sequence lacks with a warning; SEQUENCE syntax insists on a sequence', () => {
    const seq: AclTarget = { kind: 'sequence', owner: OWNER, acl: null, name: 's' };
    const change = applyGrant({ target: seq, statementKind: 'table', currentRole: OWNER, grantees: [ALICE], privileges: a | r }, plainRoles);
    assert.deepEqual(change.warnings, [{ sqlstate: '0LP01', message: 'sequence "s" only supports USAGE, SELECT, and UPDATE privileges' }]);
    assert.equal(show(change.acl), '{owner=rwU/owner,alice=r/owner}');
    const all = applyGrant({ target: seq, statementKind: 'table', currentRole: OWNER, grantees: [ALICE], privileges: 'all' }, plainRoles);
    assert.equal(show(all.acl), '{owner=rwU/owner,alice=rwU/owner}');
    const onSequence = () => applyGrant({ target: table(null), statementKind: 'sequence', currentRole: OWNER, grantees: [ALICE], privileges: r }, plainRoles);
    assert.throws(onSequence, (e: FloeError) => e.sqlstate === '42809' && e.message === '"t" is not a sequence');
    const insertOnSequence = () => applyGrant({ target: seq, currentRole: OWNER, grantees: [ALICE], privileges: a }, plainRoles);
    assert.throws(insertOnSequence, (e: FloeError) => e.sqlstate === '0LP01' && e.message === 'invalid privilege type INSERT for sequence');
  });

  test('privileges a table cannot have are refused', () => {
    assert.throws(() => run(table(null), [grant(OWNER, [ALICE], U)]), (e: FloeError) => e.message === 'invalid privilege type USAGE for table' && e.sqlstate === '0LP01');
    assert.throws(() => run(table(null), [grant(OWNER, [ALICE], AclRight.execute)]), (e: FloeError) => e.message === 'invalid privilege type EXECUTE for relation');
    // Listed one by one, the first invalid privilege named is the one reported, as in PostgreSQL.
    assert.throws(() => run(table(null), [grant(OWNER, [ALICE], [r, AclRight.create, AclRight.execute])]), (e: FloeError) => e.message === 'invalid privilege type CREATE for relation');
    // GRANT RULE: nothing asked, nothing written.
    assert.deepEqual(run(table(null), [grant(OWNER, [ALICE], 0)]).acl, null);
  });

  test('other kinds: a database starts with PUBLIC\'s TEMP and CONNECT', () => {
    const db: AclTarget = { kind: 'database', owner: OWNER, acl: null, name: 'db' };
    const change = applyRevoke({ target: db, currentRole: OWNER, grantees: [PUBLIC_ROLE], privileges: AclRight.temporary }, plainRoles);
    assert.equal(show(change.acl), '{=c/owner,owner=CTc/owner}');
    const schema: AclTarget = { kind: 'schema', owner: OWNER, acl: null, name: 's' };
    const bad = () => applyGrant({ target: schema, currentRole: OWNER, grantees: [ALICE], privileges: r }, plainRoles);
    assert.throws(bad, (e: FloeError) => e.message === 'invalid privilege type SELECT for schema');
  });
});

describe('checks', () => {
  const roles = membership(new Map([[BOB, [ALICE]]]));

  test('superusers hold everything; PUBLIC applies to all; memberships inherit', () => {
    const obj = table(run(table(null), [grant(OWNER, [ALICE], r), grant(OWNER, [PUBLIC_ROLE], a)]).acl);
    assert.equal(aclMask(obj, ROOT, r | w | grantOptionFor(D), roles), r | w | grantOptionFor(D));
    assert.equal(aclMask(obj, BOB, r | a | w, roles), r | a, 'bob has alice\'s SELECT and PUBLIC\'s INSERT');
    assert.equal(aclMask(obj, CAROL, r | a | w, roles), a);
    assert.equal(hasPrivilege(obj, PUBLIC_ROLE, a, roles), true);
    assert.equal(hasPrivilege(obj, ALICE, grantOptionFor(r), roles), false);
  });

  test('the owner keeps its grant options after revoking its own privileges', () => {
    const obj = table(run(table(null), [revoke(OWNER, [OWNER], r | w)]).acl);
    assert.equal(hasPrivilege(obj, OWNER, r, roles), false);
    assert.equal(hasPrivilege(obj, OWNER, grantOptionFor(r), roles), true);
    assert.equal(aclMask(obj, OWNER, a | r | w | d, roles), a | d);
  });

  test('a table privilege covers every column; a column grant only its column', () => {
    const tbl = table(run(table(null), [grant(OWNER, [ALICE], r)]).acl);
    const columnAcl = [aclItem(BOB, OWNER, w | x)];
    assert.equal(hasColumnPrivilege(tbl, null, ALICE, r, noMemberships), true);
    assert.equal(hasColumnPrivilege(tbl, columnAcl, BOB, w, noMemberships), true);
    assert.equal(hasColumnPrivilege(tbl, null, BOB, w, noMemberships), false);
    assert.equal(columnPrivilegeMask(tbl, columnAcl, BOB, r | w | x | t, noMemberships), w | x);
  });

  test('column grants: only arwx, the table\'s grant options count, and an emptied column ACL is NULL again', () => {
    const tbl = table(run(table(null), [grant(OWNER, [ALICE], r, { withGrantOption: true })]).acl);
    const column = (acl: Acl | null): AclTarget => ({ kind: 'column', owner: OWNER, acl, name: 'c', table: tbl });
    const granted = applyGrant({ target: column(null), currentRole: ALICE, grantees: [BOB], privileges: r | w }, noMemberships);
    assert.equal(granted.grantor, ALICE);
    assert.deepEqual(granted.warnings, [{ sqlstate: '01007', message: 'not all privileges were granted for column "c" of relation "t"' }]);
    assert.equal(show(granted.acl), '{bob=r/alice}');
    const revoked = applyRevoke({ target: column(granted.acl), currentRole: ALICE, grantees: [BOB], privileges: r }, noMemberships);
    assert.equal(revoked.acl, null);
    const bad = () => applyGrant({ target: column(null), currentRole: OWNER, grantees: [BOB], privileges: d }, noMemberships);
    assert.throws(bad, (e: FloeError) => e.message === 'invalid privilege type DELETE for column');
  });
});

// ---------------------------------------------------------------------------------------------
// Differential: the same GRANT/REVOKE statements on PostgreSQL 15 and on the model.

type RoleKey = 'o' | 'a' | 'b' | 'c' | 'd' | 'm' | 'n';
type Actor = RoleKey | 'superuser';
type Grantee = RoleKey | 'PUBLIC';

interface AclOp {
  readonly verb: 'GRANT' | 'REVOKE';
  readonly actor: Actor;
  readonly privileges: readonly string[] | 'ALL';
  readonly on: 'TABLE' | 'SEQUENCE';
  readonly object: 't' | 's';
  readonly grantees: readonly Grantee[];
  /** WITH GRANT OPTION for GRANT, GRANT OPTION FOR for REVOKE. */
  readonly grantOption: boolean;
  readonly behavior?: 'CASCADE' | 'RESTRICT';
  /** A column privilege statement: `SELECT (x)` rather than `SELECT`. */
  readonly column?: 'x' | 'last_value';
}

interface Outcome {
  readonly error?: string;
  readonly warnings: readonly string[];
  readonly acl: string | null;
  /** `column=acl` for each column with an ACL of its own. */
  readonly columnAcls: readonly string[];
}

const tablePrivileges = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER'] as const;
const columnPrivileges = ['SELECT', 'INSERT', 'UPDATE', 'REFERENCES'] as const;
const roleKeys: readonly RoleKey[] = ['o', 'a', 'b', 'c', 'd', 'm', 'n'];


function randomOp(random: () => number): AclOp {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const roll = random();
  const actor: Actor = roll < 0.2 ? 'o' : roll < 0.3 ? 'superuser' : pick(['a', 'b', 'c', 'm', 'n', 'a', 'b', 'c']);
  // SELECT, INSERT and UPDATE are drawn most, so chains of grants on the same privilege build up.
  const common = ['SELECT', 'SELECT', 'INSERT', 'UPDATE', ...tablePrivileges];
  let privileges: readonly string[] | 'ALL';
  if (random() < 0.1) privileges = 'ALL';
  else privileges = [...new Set(Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(common)))];
  if (random() < 0.03) privileges = [pick(['USAGE', 'EXECUTE', 'RULE'])];
  // One statement in eight is about column x, mostly with the privileges a column can have.
  const column = random() < 0.125 ? { column: 'x' as const } : {};
  if ('column' in column && privileges !== 'ALL') privileges = privileges.map((p) => (random() < 0.9 ? pick(columnPrivileges) : p));
  privileges = privileges === 'ALL' ? privileges : [...new Set(privileges)];
  const grantees = [...new Set(Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick<Grantee>(['a', 'b', 'c', 'd', 'm', 'n', 'o', 'PUBLIC', 'a', 'b', 'c'])))];
  if (random() < 0.55) return { verb: 'GRANT', actor, privileges, on: 'TABLE', object: 't', grantees, grantOption: random() < 0.5, ...column };
  const behaviorRoll = random();
  return {
    verb: 'REVOKE', actor, privileges, on: 'TABLE', object: 't', grantees, grantOption: random() < 0.35, ...column,
    ...(behaviorRoll < 0.5 ? { behavior: 'CASCADE' as const } : behaviorRoll < 0.75 ? { behavior: 'RESTRICT' as const } : {}),
  };
}

// A few statements chosen for the paths a random walk reaches rarely.
const scriptedOps: readonly AclOp[] = [
  { verb: 'GRANT', actor: 'c', privileges: ['SELECT'], on: 'TABLE', object: 't', grantees: ['d'], grantOption: false },
  { verb: 'REVOKE', actor: 'm', privileges: ['SELECT'], on: 'TABLE', object: 't', grantees: ['d'], grantOption: false },
  { verb: 'GRANT', actor: 'o', privileges: ['SELECT', 'UPDATE'], on: 'TABLE', object: 't', grantees: ['a'], grantOption: true },
  { verb: 'GRANT', actor: 'a', privileges: ['SELECT'], on: 'TABLE', object: 't', grantees: ['b'], grantOption: true },
  { verb: 'GRANT', actor: 'b', privileges: ['SELECT'], on: 'TABLE', object: 't', grantees: ['c', 'd'], grantOption: false },
  { verb: 'GRANT', actor: 'c', privileges: ['SELECT'], on: 'TABLE', object: 't', grantees: ['a'], grantOption: false },
  { verb: 'GRANT', actor: 'b', privileges: ['SELECT'], on: 'TABLE', object: 't', grantees: ['a'], grantOption: true },
  { verb: 'GRANT', actor: 'm', privileges: ['SELECT', 'INSERT'], on: 'TABLE', object: 't', grantees: ['d'], grantOption: false },
  { verb: 'GRANT', actor: 'n', privileges: ['TRUNCATE'], on: 'TABLE', object: 't', grantees: ['m'], grantOption: true },
  { verb: 'GRANT', actor: 'superuser', privileges: ['DELETE'], on: 'TABLE', object: 't', grantees: ['PUBLIC'], grantOption: false },
  { verb: 'GRANT', actor: 'o', privileges: ['SELECT'], on: 'TABLE', object: 't', grantees: ['PUBLIC'], grantOption: true },
  { verb: 'GRANT', actor: 'a', privileges: 'ALL', on: 'TABLE', object: 't', grantees: ['c'], grantOption: false },
  { verb: 'GRANT', actor: 'd', privileges: ['SELECT'], on: 'TABLE', object: 't', grantees: ['c'], grantOption: false },
  { verb: 'GRANT', actor: 'c', privileges: ['INSERT'], on: 'TABLE', object: 't', grantees: ['d'], grantOption: false },
  { verb: 'REVOKE', actor: 'o', privileges: ['SELECT'], on: 'TABLE', object: 't', grantees: ['a'], grantOption: true },
  { verb: 'REVOKE', actor: 'o', privileges: ['SELECT'], on: 'TABLE', object: 't', grantees: ['a'], grantOption: true, behavior: 'RESTRICT' },
  { verb: 'REVOKE', actor: 'o', privileges: ['SELECT'], on: 'TABLE', object: 't', grantees: ['a'], grantOption: true, behavior: 'CASCADE' },
  { verb: 'REVOKE', actor: 'b', privileges: ['SELECT'], on: 'TABLE', object: 't', grantees: ['c'], grantOption: false },
  { verb: 'REVOKE', actor: 'o', privileges: 'ALL', on: 'TABLE', object: 't', grantees: ['o'], grantOption: false },
  { verb: 'GRANT', actor: 'o', privileges: ['SELECT'], on: 'TABLE', object: 't', grantees: ['o'], grantOption: true },
  { verb: 'GRANT', actor: 'o', privileges: ['USAGE'], on: 'TABLE', object: 't', grantees: ['a'], grantOption: false },
  { verb: 'GRANT', actor: 'o', privileges: ['EXECUTE'], on: 'TABLE', object: 't', grantees: ['a'], grantOption: false },
  { verb: 'GRANT', actor: 'o', privileges: ['RULE'], on: 'TABLE', object: 't', grantees: ['a'], grantOption: false },
  { verb: 'GRANT', actor: 'o', privileges: ['SELECT'], on: 'SEQUENCE', object: 't', grantees: ['a'], grantOption: false },
  { verb: 'GRANT', actor: 'o', privileges: ['SELECT', 'UPDATE'], on: 'TABLE', object: 't', grantees: ['b'], grantOption: true, column: 'x' },
  { verb: 'GRANT', actor: 'b', privileges: ['SELECT'], on: 'TABLE', object: 't', grantees: ['c'], grantOption: false, column: 'x' },
  { verb: 'GRANT', actor: 'b', privileges: 'ALL', on: 'TABLE', object: 't', grantees: ['d'], grantOption: false, column: 'x' },
  { verb: 'GRANT', actor: 'o', privileges: ['DELETE'], on: 'TABLE', object: 't', grantees: ['d'], grantOption: false, column: 'x' },
  { verb: 'REVOKE', actor: 'o', privileges: ['SELECT'], on: 'TABLE', object: 't', grantees: ['b'], grantOption: true, column: 'x' },
  { verb: 'REVOKE', actor: 'o', privileges: ['SELECT', 'TRUNCATE'], on: 'TABLE', object: 't', grantees: ['b'], grantOption: false, behavior: 'CASCADE' },
  { verb: 'REVOKE', actor: 'd', privileges: ['UPDATE'], on: 'TABLE', object: 't', grantees: ['b'], grantOption: false },
  { verb: 'GRANT', actor: 'o', privileges: ['INSERT', 'SELECT'], on: 'TABLE', object: 's', grantees: ['a'], grantOption: true },
  { verb: 'GRANT', actor: 'o', privileges: ['SELECT', 'UPDATE'], on: 'TABLE', object: 's', grantees: ['b'], grantOption: false, column: 'last_value' },
  { verb: 'GRANT', actor: 'a', privileges: ['SELECT', 'USAGE'], on: 'SEQUENCE', object: 's', grantees: ['b'], grantOption: false },
  { verb: 'GRANT', actor: 'o', privileges: ['INSERT'], on: 'SEQUENCE', object: 's', grantees: ['a'], grantOption: false },
  { verb: 'REVOKE', actor: 'd', privileges: ['SELECT'], on: 'SEQUENCE', object: 's', grantees: ['c'], grantOption: false },
  { verb: 'GRANT', actor: 'superuser', privileges: 'ALL', on: 'TABLE', object: 's', grantees: ['c', 'PUBLIC'], grantOption: false },
  { verb: 'REVOKE', actor: 'b', privileges: ['UPDATE'], on: 'SEQUENCE', object: 's', grantees: ['c'], grantOption: false },
  { verb: 'REVOKE', actor: 'd', privileges: ['SELECT'], on: 'SEQUENCE', object: 's', grantees: ['c'], grantOption: false },
  { verb: 'REVOKE', actor: 'o', privileges: ['SELECT'], on: 'SEQUENCE', object: 's', grantees: ['a'], grantOption: false, behavior: 'CASCADE' },
];

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

describe('differential against PostgreSQL 15', () => {
  let server: PostgresServer;
  let client: pg.Client;
  let roleNames: Record<RoleKey, string>;
  const oids = new Map<RoleKey | 'superuser', number>();
  const nameByOid = new Map<number, string>();
  const model = new Map<'t' | 's', Acl | null>([['t', null], ['s', null]]);
  const modelColumns = new Map<'t' | 's', ColumnAcl[]>();
  let roles: MembershipOracle;
  let notices: { severity?: string; code?: string; message?: string }[] = [];

  before(async () => {
    server = await startPostgres();
    // Roles are cluster-wide, so they carry a random prefix; d's name needs quoting everywhere.
    const prefix = `acl_${randomBytes(3).toString('hex')}_`;
    roleNames = { o: `${prefix}o`, a: `${prefix}a`, b: `${prefix}b`, c: `${prefix}c`, d: `${prefix}d "q", x`, m: `${prefix}m`, n: `${prefix}n` };
    // One connection throughout, since SET ROLE is per session.
    client = new pg.Client({ connectionString: server.url });
    await client.connect();
    client.on('notice', (msg) => { notices.push(msg); });
    for (const key of roleKeys) await client.query(`CREATE ROLE ${quoteIdent(roleNames[key])}`);
    // m has a's privileges and n the owner's, both through INHERIT.
    await client.query(`GRANT ${quoteIdent(roleNames.a)} TO ${quoteIdent(roleNames.m)}`);
    await client.query(`GRANT ${quoteIdent(roleNames.o)} TO ${quoteIdent(roleNames.n)}`);
    await client.query('CREATE TABLE t (x int)');
    await client.query('CREATE SEQUENCE s');
    await client.query(`ALTER TABLE t OWNER TO ${quoteIdent(roleNames.o)}`);
    await client.query(`ALTER SEQUENCE s OWNER TO ${quoteIdent(roleNames.o)}`);
    const found = await client.query<{ oid: number; rolname: string; rolsuper: boolean }>(
      'SELECT oid::int AS oid, rolname, rolsuper FROM pg_roles WHERE rolname = ANY($1) OR rolname = current_user', [Object.values(roleNames)],
    );
    for (const row of found.rows) {
      nameByOid.set(row.oid, row.rolname);
      const key = roleKeys.find((k) => roleNames[k] === row.rolname);
      if (key !== undefined) oids.set(key, row.oid);
      else if (row.rolsuper) oids.set('superuser', row.oid);
    }
    assert.equal(oids.size, roleKeys.length + 1, 'the test connects as a superuser');
    for (const object of ['t', 's'] as const) {
      const columns = await client.query<{ attname: string }>('SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass ORDER BY attnum', [object]);
      modelColumns.set(object, columns.rows.map((c) => ({ name: c.attname, acl: null })));
    }
    const oid = (key: RoleKey | 'superuser') => oids.get(key)!;
    const memberOf = new Map([[oid('m'), [oid('a')]], [oid('n'), [oid('o')]]]);
    roles = membership(memberOf, [oid('superuser')]);
  });

  after(async () => {
    if (client !== undefined) {
      try {
        await client.query('RESET ROLE');
        await client.query('DROP TABLE IF EXISTS t');
        await client.query('DROP SEQUENCE IF EXISTS s');
        for (const key of roleKeys) if (roleNames !== undefined) await client.query(`DROP ROLE IF EXISTS ${quoteIdent(roleNames[key])}`);
      } finally {
        await client.end();
      }
    }
    await server?.stop();
  });

  function sqlOf(op: AclOp): string {
    const column = op.column === undefined ? '' : ` (${op.column})`;
    const privileges = op.privileges === 'ALL' ? `ALL${column}` : op.privileges.map((p) => p + column).join(', ');
    const grantees = op.grantees.map((g) => (g === 'PUBLIC' ? 'PUBLIC' : quoteIdent(roleNames[g]))).join(', ');
    if (op.verb === 'GRANT') {
      return `GRANT ${privileges} ON ${op.on} ${op.object} TO ${grantees}${op.grantOption ? ' WITH GRANT OPTION' : ''}`;
    }
    return `REVOKE ${op.grantOption ? 'GRANT OPTION FOR ' : ''}${privileges} ON ${op.on} ${op.object} FROM ${grantees}${op.behavior ? ` ${op.behavior}` : ''}`;
  }

  async function onPostgres(op: AclOp): Promise<Outcome> {
    await client.query(op.actor === 'superuser' ? 'RESET ROLE' : `SET ROLE ${quoteIdent(roleNames[op.actor])}`);
    notices = [];
    let error: string | undefined;
    try {
      await client.query(sqlOf(op));
    } catch (e) {
      const err = e as pg.DatabaseError;
      error = `${err.code} ${err.message}`;
    }
    const warnings = notices.filter((n) => n.severity === 'WARNING').map((n) => `${n.code} ${n.message}`);
    await client.query('RESET ROLE');
    const acl = await client.query<{ acl: string | null }>('SELECT relacl::text AS acl FROM pg_class WHERE oid = $1::regclass', [op.object]);
    const columnAcls = await client.query<{ attname: string; acl: string }>(
      'SELECT attname, attacl::text AS acl FROM pg_attribute WHERE attrelid = $1::regclass AND attacl IS NOT NULL ORDER BY attnum', [op.object],
    );
    // Warnings sent before an error are not part of the model's answer, which is the error alone.
    return {
      ...(error === undefined ? {} : { error }), warnings: error === undefined ? warnings : [], acl: acl.rows[0]!.acl,
      columnAcls: columnAcls.rows.map((c) => `${c.attname}=${c.acl}`),
    };
  }

  function onModel(op: AclOp): Outcome {
    const oid = (key: RoleKey | 'superuser') => oids.get(key)!;
    const current = model.get(op.object)!;
    const columns = modelColumns.get(op.object)!;
    const target: AclTarget = { kind: op.object === 's' ? 'sequence' : 'table', owner: oid('o'), acl: current, name: op.object };
    const show = (acl: Acl | null) => (acl === null ? null : formatAcl(acl, (o) => nameByOid.get(o)));
    const outcome = (error?: string, warnings: readonly string[] = []): Outcome => ({
      ...(error === undefined ? {} : { error }), warnings, acl: show(model.get(op.object)!),
      columnAcls: modelColumns.get(op.object)!.filter((c) => c.acl !== null).map((c) => `${c.name}=${show(c.acl)}`),
    });
    try {
      const privileges = op.privileges === 'ALL' ? 'all' as const : op.privileges.map(privilegeFromName);
      const index = columns.findIndex((c) => c.name === op.column);
      const onColumn: AclTarget | undefined = op.column === undefined ? undefined : { kind: 'column', owner: oid('o'), acl: columns[index]!.acl, name: op.column, table: target };
      const statement = {
        target: onColumn ?? target, statementKind: op.on === 'SEQUENCE' ? 'sequence' as const : 'table' as const,
        currentRole: oid(op.actor), grantees: op.grantees.map((g) => (g === 'PUBLIC' ? PUBLIC_ROLE : oid(g))), privileges,
      };
      const change = op.verb === 'GRANT'
        ? applyGrant({ ...statement, withGrantOption: op.grantOption }, roles)
        : applyRevoke({ ...statement, grantOptionFor: op.grantOption, cascade: op.behavior === 'CASCADE', columns }, roles);
      if (onColumn === undefined) {
        model.set(op.object, change.acl);
        if (change.columns !== undefined) modelColumns.set(op.object, [...change.columns]);
      } else {
        modelColumns.set(op.object, columns.map((c, i) => (i === index ? { name: c.name, acl: change.acl } : c)));
      }
      return outcome(undefined, change.warnings.map((w) => `${w.sqlstate} ${w.message}`));
    } catch (e) {
      if (!(e instanceof FloeError)) throw e;
      return outcome(`${e.sqlstate} ${e.message}`);
    }
  }

  async function replay(ops: readonly AclOp[], label: string): Promise<void> {
    for (const [i, op] of ops.entries()) {
      const expected = await onPostgres(op);
      const actual = onModel(op);
      assert.deepEqual(actual, expected, `${label} #${i} as ${op.actor}: ${sqlOf(op)}`);
    }
  }

  /** has_table_privilege and has_column_privilege (for t.x) for every role (and PUBLIC), each privilege, with and without grant option. */
  async function comparePrivilegeChecks(label: string): Promise<void> {
    const who = [...roleKeys.map((k) => roleNames[k]), 'public', nameByOid.get(oids.get('superuser')!)!];
    const modes = tablePrivileges.flatMap((p) => [p, `${p} WITH GRANT OPTION`]);
    const answers = await client.query<{ who: string; mode: string; held: boolean }>(
      'SELECT who, mode, has_table_privilege(who, \'t\', mode) AS held FROM unnest($1::text[]) who, unnest($2::text[]) mode', [who, modes],
    );
    const columnAnswers = await client.query<{ who: string; mode: string; held: boolean }>(
      'SELECT who, mode, has_column_privilege(who, \'t\', \'x\', mode) AS held FROM unnest($1::text[]) who, unnest($2::text[]) mode',
      [who, columnPrivileges.flatMap((p) => [p, `${p} WITH GRANT OPTION`])],
    );
    const oidOfName = (name: string) => (name === 'public' ? PUBLIC_ROLE : [...nameByOid].find(([, n]) => n === name)![0]);
    const object = { kind: 'table' as const, owner: oids.get('o')!, acl: model.get('t')! };
    const columnAcl = modelColumns.get('t')!.find((c) => c.name === 'x')!.acl;
    const modeOf = (text: string) => {
      const [privilege, withOption] = text.split(' WITH ');
      const bit = privilegeFromName(privilege!);
      return withOption === undefined ? bit : grantOptionFor(bit);
    };
    const mismatches = [
      ...answers.rows.filter((row) => hasPrivilege(object, oidOfName(row.who), modeOf(row.mode), roles) !== row.held),
      ...columnAnswers.rows.filter((row) => hasColumnPrivilege(object, columnAcl, oidOfName(row.who), modeOf(row.mode), roles) !== row.held)
        .map((row) => ({ ...row, column: 'x' })),
    ];
    assert.deepEqual(mismatches, [], label);
  }

  test('scripted statements', async () => {
    await replay(scriptedOps, 'scripted');
    await comparePrivilegeChecks('after the script');
  });

  test('random statements', async () => {
    const seed = Number(process.env.ACL_TEST_SEED ?? 20261201);
    const random = seededRandom(seed);
    for (let round = 0; round < 8; round++) {
      await replay(Array.from({ length: 50 }, () => randomOp(random)), `seed ${seed} round ${round}`);
      await comparePrivilegeChecks(`seed ${seed} after round ${round}`);
    }
  });
});
