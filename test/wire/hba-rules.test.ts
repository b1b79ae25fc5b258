import assert from 'node:assert/strict';
import { testCertificate } from '../harness/test-certificate.js';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import { startPostgresCluster } from '../../src/tools/pg/postgres-cluster.js';
import { matchHbaRule, type HbaConnection } from '../../src/wire/auth/hba-match.js';
import {
  defaultHbaFile, defaultHbaRules, parseHbaFile, pgHbaFileRuleRows, type HbaFileResult, type HbaRule, type PgHbaFileRuleRow,
} from '../../src/wire/auth/hba-rules.js';

function parse(text: string): HbaFileResult {
  return parseHbaFile(text, '/etc/floe/hba.conf');
}

function rows(text: string): PgHbaFileRuleRow[] {
  return pgHbaFileRuleRows(parse(text));
}

/** The rule on the only line of `line`; fails the test if the line has an error. */
function rule(line: string): HbaRule {
  const [parsed] = parse(line).lines;
  assert.ok(parsed !== undefined, `no line parsed from ${line}`);
  assert.equal(parsed.kind, 'rule', parsed.kind === 'error' ? parsed.error : '');
  return parsed as HbaRule;
}

/** The error on the only line of `line`. */
function errorOf(line: string): string | null {
  const [row] = rows(line);
  assert.ok(row !== undefined, `no line parsed from ${line}`);
  return row.error;
}

function errorRow(lineNumber: number, error: string): PgHbaFileRuleRow {
  return { line_number: lineNumber, type: null, database: null, user_name: null, address: null, netmask: null, auth_method: null, options: null, error };
}

describe('parseHbaFile', () => {
  test('comments and blank lines make no lines, and line numbers count them', () => {
    const result = parse('# header\n\n   \t\nlocal all all trust # why\n  # indented comment\nhost all all 127.0.0.1/32 md5\n');
    assert.deepEqual(result.lines.map((l) => l.lineNumber), [4, 6]);
    assert.deepEqual(result.errors, []);
    assert.equal(result.rules.length, 2);
  });

  test('a row holds the columns pg_hba_file_rules shows', () => {
    assert.deepEqual(rows('host all all 127.0.0.1/32 trust\nlocal db1,db2 alice md5'), [
      { line_number: 1, type: 'host', database: ['all'], user_name: ['all'], address: '127.0.0.1', netmask: '255.255.255.255', auth_method: 'trust', options: null, error: null },
      { line_number: 2, type: 'local', database: ['db1', 'db2'], user_name: ['alice'], address: null, netmask: null, auth_method: 'md5', options: null, error: null },
    ]);
  });

  test('double quotes make a literal name, keep blanks and commas, and "" is a quote', () => {
    const r = rule('host "all",all "my user","a,b","x""y",+grp,"+lit" 0.0.0.0/0 trust');
    assert.deepEqual(r.databases, [{ text: 'all', quoted: true }, { text: 'all', quoted: false }]);
    assert.deepEqual(r.users, [
      { text: 'my user', quoted: true }, { text: 'a,b', quoted: true }, { text: 'x"y', quoted: true },
      { text: '+grp', quoted: false }, { text: '+lit', quoted: true },
    ]);
    // Only a quote before the first character makes a token quoted, as in PostgreSQL.
    assert.deepEqual(rule('host al"l" "al"l 0.0.0.0/0 trust').databases, [{ text: 'all', quoted: false }]);
    assert.deepEqual(rule('host al"l" "al"l 0.0.0.0/0 trust').users, [{ text: 'all', quoted: true }]);
    assert.deepEqual(rule('host a"b c"d "" 0.0.0.0/0 trust').databases, [{ text: 'ab cd', quoted: false }]);
    assert.deepEqual(rule('host a"b c"d "" 0.0.0.0/0 trust').users, [{ text: '', quoted: true }]);
    assert.equal(rule('"host" "all" "all" "0.0.0.0/0" "trust"').method, 'trust');
  });

  test('a comma list goes on after a comma and blanks, but a blank then a comma starts a field', () => {
    assert.deepEqual(rule('local a, b,c all trust').databases.map((t) => t.text), ['a', 'b', 'c']);
    // `e` is the address, so the CIDR range lands where the method goes.
    assert.equal(errorOf('host a,b, c   d ,e 0.0.0.0/0 trust'), 'invalid authentication method "0.0.0.0/0"');
    assert.deepEqual(rule('local a,,b all trust').databases.map((t) => t.text), ['a', 'b']);
    assert.equal(errorOf('host all,#comment'), 'end-of-line before role specification');
  });

  test('a backslash at the end of a line continues it; the line keeps its first number', () => {
    const result = parse('host all all \\\n  127.0.0.1/32 trust\nlocal all all \\\n\\\ntrust\nlocal all all trust\r\n');
    assert.deepEqual(result.lines.map((l) => [l.lineNumber, l.kind]), [[1, 'rule'], [3, 'rule'], [6, 'rule']]);
    // Two backslashes then an empty line join once, leaving one backslash to read as an option.
    assert.deepEqual(rows('local all all trust \\\\\n\nlocal all all trust').map((r) => [r.line_number, r.error]), [
      [1, 'authentication option not in name=value format: \\'], [3, null],
    ]);
    assert.equal(errorOf('local all all \\'), 'end-of-line before authentication method');
  });

  test('IP address and mask in two fields, in CIDR, and in the forms getaddrinfo reads', () => {
    const cases: [string, string, string][] = [
      ['10.0.0.0 255.0.0.0', '10.0.0.0', '255.0.0.0'],
      ['10.0.0.0 0.255.0.255', '10.0.0.0', '0.255.0.255'],
      ['10.1.2.3/8', '10.1.2.3', '255.0.0.0'],
      ['0.0.0.0/0', '0.0.0.0', '0.0.0.0'],
      ['10.0.0.0/+8', '10.0.0.0', '255.0.0.0'],
      ['127.1/32', '127.0.0.1', '255.255.255.255'],
      ['010.0.0.1/32', '8.0.0.1', '255.255.255.255'],
      ['0x7f.1/32', '127.0.0.1', '255.255.255.255'],
      ['4294967295/32', '255.255.255.255', '255.255.255.255'],
      ['::1/128', '::1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
      ['::/0', '::', '::'],
      ['fe80::1%1/64', 'fe80::1', 'ffff:ffff:ffff:ffff::'],
      ['::1 ffff:ffff::', '::1', 'ffff:ffff::'],
      ['::ffff:1.2.3.4/128', '::ffff:1.2.3.4', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
      ['::1.2.3.4/96', '::1.2.3.4', 'ffff:ffff:ffff:ffff:ffff:ffff::'],
      ['::2/112', '::2', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:0'],
      ['1:0:0:1:0:0:0:1/64', '1:0:0:1::1', 'ffff:ffff:ffff:ffff::'],
      ['1:2:3:4:5:6:7::/128', '1:2:3:4:5:6:7:0', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
      ['ABCD:00EF::/16', 'abcd:ef::', 'ffff::'],
    ];
    for (const [written, address, netmask] of cases) {
      const [row] = rows(`host all all ${written} trust`);
      assert.deepEqual([row?.address, row?.netmask, row?.error], [address, netmask, null], written);
    }
    assert.deepEqual(rule('host all all 10.0.0.0/12 trust').address, {
      kind: 'range', family: 4, address: Uint8Array.of(10, 0, 0, 0), mask: Uint8Array.of(255, 240, 0, 0), addressText: '10.0.0.0', maskText: '255.240.0.0',
    });
    assert.deepEqual(rows('host all all all trust')[0]?.address, 'all');
  });

  test('every method Floe offers, and its options', () => {
    for (const method of ['trust', 'reject', 'scram-sha-256', 'md5', 'password']) {
      assert.equal(rule(`host all all 0.0.0.0/0 ${method}`).method, method);
      assert.equal(rule(`local all all ${method}`).method, method);
    }
    const cert = rule('hostssl all all 0.0.0.0/0 cert map=m map=n clientname=DN');
    assert.equal(cert.method, 'cert');
    assert.equal(cert.clientCert, 'verify-full');
    assert.deepEqual([...cert.options], [['map', 'n'], ['clientname', 'DN']]);
    assert.deepEqual(rows('hostssl all all 0.0.0.0/0 cert map=m map=n clientname=DN')[0]?.options, ['map=n', 'clientcert=verify-full']);
    assert.equal(rule('hostssl all all 0.0.0.0/0 scram-sha-256 clientcert=verify-ca').clientCert, 'verify-ca');
    assert.equal(rule('hostssl all all 0.0.0.0/0 scram-sha-256').clientCert, null);
    assert.equal(rule('hostnossl all all 0.0.0.0/0 md5').type, 'hostnossl');
    assert.equal(rule('hostnogssenc all all 0.0.0.0/0 md5').type, 'hostnogssenc');
  });

  test('each error gets PostgreSQL\'s wording, on a row of its own, and the file goes on', () => {
    const cases: [string, string][] = [
      ['host all all 0.0.0.0/0 bogus', 'invalid authentication method "bogus"'],
      ['host all all 0.0.0.0/0 TRUST', 'invalid authentication method "TRUST"'],
      ['HOST all all 0.0.0.0/0 trust', 'invalid connection type "HOST"'],
      ['local,host all all trust', 'multiple values specified for connection type'],
      ['host', 'end-of-line before database specification'],
      ['host all', 'end-of-line before role specification'],
      ['host all all', 'end-of-line before IP address specification'],
      ['host all all 10.0.0.0', 'end-of-line before netmask specification'],
      ['host all all 10.0.0.0/8', 'end-of-line before authentication method'],
      ['local all all', 'end-of-line before authentication method'],
      ['host all all 0.0.0.0/0,::/0 trust', 'multiple values specified for host address'],
      ['host all all 10.0.0.0 255.0.0.0,255.0.0.0 trust', 'multiple values specified for netmask'],
      ['host all all 0.0.0.0/0 trust,md5', 'multiple values specified for authentication type'],
      ['host all all 1.2.3.256/32 trust', 'specifying both host name and CIDR mask is invalid: "1.2.3.256/32"'],
      ['host all all 08.1.1.1/32 trust', 'specifying both host name and CIDR mask is invalid: "08.1.1.1/32"'],
      ['host all all ::1.2.3.04/128 trust', 'specifying both host name and CIDR mask is invalid: "::1.2.3.04/128"'],
      ['host all all 1::2::3/128 trust', 'specifying both host name and CIDR mask is invalid: "1::2::3/128"'],
      ['host all all 10.0.0.0/33 trust', 'invalid CIDR mask in address "10.0.0.0/33"'],
      ['host all all 10.0.0.0/-1 trust', 'invalid CIDR mask in address "10.0.0.0/-1"'],
      ['host all all 10.0.0.0/ trust', 'invalid CIDR mask in address "10.0.0.0/"'],
      ['host all all ::/129 trust', 'invalid CIDR mask in address "::/129"'],
      ['host all all ::/0x8 trust', 'invalid CIDR mask in address "::/0x8"'],
      ['host all all 10.0.0.0 bad trust', 'invalid IP mask "bad": Name or service not known'],
      ['host all all 10.0.0.0 ffff:: trust', 'IP address and mask do not match'],
      ['host all all 0.0.0.0/0 cert', 'cert authentication is only supported on hostssl connections'],
      ['hostnossl all all 0.0.0.0/0 trust clientcert=verify-ca', 'clientcert can only be configured for "hostssl" rows'],
      ['hostssl all all 0.0.0.0/0 cert clientcert=verify-ca', 'clientcert can only be set to "verify-full" when using "cert" authentication'],
      ['hostssl all all 0.0.0.0/0 trust clientcert=1', 'invalid value for clientcert: "1"'],
      ['host all all 0.0.0.0/0 trust clientname=CN', 'clientname can only be configured for "hostssl" rows'],
      ['hostssl all all 0.0.0.0/0 trust clientname=cn', 'invalid value for clientname: "cn"'],
      ['host all all 0.0.0.0/0 trust map=x', 'authentication option "map" is only valid for authentication methods ident, peer, gssapi, sspi, and cert'],
      ['local all all trust ldapserver=x', 'authentication option "ldapserver" is only valid for authentication methods ldap'],
      ['local all all trust krb_realm=x', 'authentication option "krb_realm" is only valid for authentication methods gssapi and sspi'],
      ['local all all trust foo', 'authentication option not in name=value format: foo'],
      ['local all all trust ""', 'authentication option not in name=value format: '],
      ['local all all trust a=b=c', 'unrecognized authentication option name: "a"'],
      ['local all all trust =x', 'unrecognized authentication option name: ""'],
      [`local ${'a'.repeat(10240)} all trust`, 'authentication file token too long'],
      [`local "${'a'.repeat(10239)}" all trust`, 'authentication file token too long'],
      [`local ${'a'.repeat(10238)}é all trust`, 'authentication file token too long'],
    ];
    const text = cases.map(([line]) => line).join('\n');
    assert.deepEqual(rows(text), cases.map(([, error], i) => errorRow(i + 1, error)));
    // The longest token PostgreSQL keeps, 10239 bytes, is fine.
    assert.equal(errorOf(`local ${'a'.repeat(10239)} all trust`), null);
  });

  test('what Floe cannot honour is an error on its line', () => {
    const cases: [string, string][] = [
      ['local all all peer', 'invalid authentication method "peer": not supported by this build'],
      ['host all all 0.0.0.0/0 ldap ldapbasedn=x', 'invalid authentication method "ldap": not supported by this build'],
      ['host all all 0.0.0.0/0 peer', 'peer authentication is only supported on local sockets'],
      ['local all all gss', 'gssapi authentication is not supported on local sockets'],
      ['hostgssenc all all 0.0.0.0/0 trust', 'hostgssenc record cannot match because GSSAPI is not supported by this build'],
      ['host all all samehost trust', 'address keyword "samehost" is not supported by this build'],
      ['host all all samenet trust', 'address keyword "samenet" is not supported by this build'],
      ['host all all db.example.com trust', 'invalid IP address "db.example.com": host names are not supported by this build'],
      ['host all all "all" trust', 'invalid IP address "all": host names are not supported by this build'],
      ['local all @admins trust', 'secondary authentication file "@admins" is not supported by this build'],
    ];
    assert.deepEqual(rows(cases.map(([line]) => line).join('\n')), cases.map(([, error], i) => errorRow(i + 1, error)));
    // Where PostgreSQL would reject the line anyway, it is PostgreSQL's complaint that is shown.
    assert.equal(errorOf('host all all db.example.com 255.0.0.0 trust'), 'invalid authentication method "255.0.0.0"');
    assert.equal(errorOf('hostgssenc all all samehost trust map=x'), 'authentication option "map" is only valid for authentication methods ident, peer, gssapi, sspi, and cert');
    assert.equal(errorOf('hostgssenc all all samehost trust'), 'hostgssenc record cannot match because GSSAPI is not supported by this build');
    // A lone @ and a quoted "@x" are names.
    assert.deepEqual(rule('local all @,"@x" trust').users.map((t) => t.text), ['@', '@x']);
  });

  test('errors name the line and file; a file without rules is an error too', () => {
    const result = parse('local all all trust\nlocal all all bogus\n');
    assert.deepEqual(result.errors, ['line 2 of configuration file "/etc/floe/hba.conf": invalid authentication method "bogus"']);
    assert.equal(result.rules.length, 1);
    assert.deepEqual(parse('# nothing\n').errors, ['configuration file "/etc/floe/hba.conf" contains no entries']);
  });
});

describe('defaultHbaRules', () => {
  test('trust for the superuser on loopback, SCRAM for everyone from anywhere', () => {
    assert.deepEqual(pgHbaFileRuleRows(defaultHbaFile('floe')).map((r) => [r.type, r.database, r.user_name, r.address, r.netmask, r.auth_method]), [
      ['local', ['all'], ['floe'], null, null, 'trust'],
      ['host', ['all'], ['floe'], '127.0.0.1', '255.255.255.255', 'trust'],
      ['host', ['all'], ['floe'], '::1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'trust'],
      ['host', ['replication'], ['floe'], '127.0.0.1', '255.255.255.255', 'trust'],
      ['host', ['replication'], ['floe'], '::1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'trust'],
      ['host', ['all'], ['all'], '0.0.0.0', '0.0.0.0', 'scram-sha-256'],
      ['host', ['all'], ['all'], '::', '::', 'scram-sha-256'],
    ]);
    const rules = defaultHbaRules('floe');
    const conn = (user: string, address: string): HbaConnection => ({
      type: 'host', ssl: false, address, database: 'floe', user, isMemberOf: () => false, isReplication: false,
    });
    assert.equal(matchHbaRule(rules, conn('floe', '127.0.0.1'))?.method, 'trust');
    assert.equal(matchHbaRule(rules, conn('floe', '::1'))?.method, 'trust');
    assert.equal(matchHbaRule(rules, conn('floe', '::ffff:127.0.0.1'))?.method, 'trust');
    assert.equal(matchHbaRule(rules, conn('floe', '10.0.0.5'))?.method, 'scram-sha-256');
    assert.equal(matchHbaRule(rules, conn('alice', '127.0.0.1'))?.method, 'scram-sha-256');
    assert.equal(matchHbaRule(rules, conn('alice', '2001:db8::1'))?.method, 'scram-sha-256');
    // Physical replication: the superuser on loopback only; nobody else matches any line.
    assert.equal(matchHbaRule(rules, { ...conn('floe', '127.0.0.1'), isReplication: true })?.method, 'trust');
    assert.equal(matchHbaRule(rules, { ...conn('alice', '127.0.0.1'), isReplication: true }), undefined);
  });

  test('the superuser is a literal name, whatever it is called', () => {
    const users = (name: string) => defaultHbaRules(name)[0]?.users;
    assert.deepEqual(users('all'), [{ text: 'all', quoted: true }]);
    assert.deepEqual(users('+x, "y"'), [{ text: '+x, "y"', quoted: true }]);
    assert.throws(() => defaultHbaRules('two\nlines'), /built-in hba rules/);
  });
});

describe('matchHbaRule', () => {
  const members: Record<string, readonly string[]> = { alice: ['staff'], bob: ['staff', 'sales'] };
  const connection = (overrides: Partial<HbaConnection>): HbaConnection => ({
    type: 'host', ssl: false, address: '10.1.2.3', database: 'app', user: 'alice',
    isMemberOf: (user, role) => members[user]?.includes(role) === true, isReplication: false, ...overrides,
  });
  const lineOf = (text: string, overrides: Partial<HbaConnection>) => {
    const result = parse(text);
    assert.deepEqual(result.errors, []);
    return matchHbaRule(result.rules, connection(overrides))?.lineNumber;
  };

  test('the first rule that matches wins; none means reject', () => {
    const file = 'host all alice 10.0.0.0/8 reject\nhost all all 10.0.0.0/8 md5\nhost all all 0.0.0.0/0 trust';
    assert.equal(lineOf(file, {}), 1);
    assert.equal(lineOf(file, { user: 'carol' }), 2);
    assert.equal(lineOf(file, { user: 'carol', address: '192.168.1.1' }), 3);
    assert.equal(lineOf('host all all 10.0.0.0/8 md5', { address: '11.0.0.1' }), undefined);
  });

  test('CIDR and two-field masks for IPv4 and IPv6', () => {
    assert.equal(lineOf('host all all 10.1.0.0/16 md5', { address: '10.1.255.255' }), 1);
    assert.equal(lineOf('host all all 10.1.0.0/16 md5', { address: '10.2.0.0' }), undefined);
    assert.equal(lineOf('host all all 10.0.0.1 255.0.255.255 md5', { address: '10.77.0.1' }), 1);
    assert.equal(lineOf('host all all 10.0.0.1 255.0.255.255 md5', { address: '10.77.0.2' }), undefined);
    assert.equal(lineOf('host all all 2001:db8::/32 md5', { address: '2001:db8:ffff::1' }), 1);
    assert.equal(lineOf('host all all 2001:db8::/32 md5', { address: '2001:db9::1' }), undefined);
    assert.equal(lineOf('host all all fe80::/10 md5', { address: 'fe80::1%eth0' }), 1);
    assert.equal(lineOf('host all all ::1/128 md5', { address: '::1' }), 1);
    assert.equal(lineOf('host all all all md5', { address: 'not an address' }), 1);
    assert.equal(lineOf('host all all 0.0.0.0/0 md5', { address: 'not an address' }), undefined);
  });

  test('an IPv4-mapped client is an IPv4 client: it meets IPv4 rules, and IPv6 rules not', () => {
    assert.equal(lineOf('host all all 10.0.0.0/8 md5', { address: '::ffff:10.1.2.3' }), 1);
    assert.equal(lineOf('host all all 127.0.0.1/32 md5', { address: '::ffff:127.0.0.1' }), 1);
    assert.equal(lineOf('host all all ::/0 md5', { address: '::ffff:10.1.2.3' }), undefined);
    assert.equal(lineOf('host all all ::ffff:10.0.0.0/104 md5', { address: '::ffff:10.1.2.3' }), undefined);
    assert.equal(lineOf('host all all 0.0.0.0/0 md5', { address: '::1' }), undefined);
    assert.equal(lineOf('host all all ::/0 md5', { address: '10.1.2.3' }), undefined);
  });

  test('local lines for local connections only, host lines for TCP, hostssl and hostnossl by TLS', () => {
    const file = 'local all all trust\nhostssl all all 0.0.0.0/0 scram-sha-256\nhostnossl all all 0.0.0.0/0 md5\nhost all all 0.0.0.0/0 reject';
    assert.equal(lineOf(file, { type: 'local', address: '' }), 1);
    assert.equal(lineOf(file, { ssl: true }), 2);
    assert.equal(lineOf(file, { ssl: false }), 3);
    assert.equal(lineOf('host all all 0.0.0.0/0 reject', { type: 'local', address: '' }), undefined);
    assert.equal(lineOf('hostnogssenc all all 0.0.0.0/0 md5', { ssl: true }), 1);
    assert.equal(lineOf('hostnogssenc all all 0.0.0.0/0 md5', { ssl: false }), 1);
  });

  test('replication connections match only the replication keyword, which nothing else matches', () => {
    const file = 'host all all 0.0.0.0/0 md5\nhost replication all 0.0.0.0/0 scram-sha-256';
    assert.equal(lineOf(file, { isReplication: true }), 2);
    assert.equal(lineOf(file, { isReplication: false }), 1);
    assert.equal(lineOf('host replication all 0.0.0.0/0 md5', { database: 'replication' }), undefined);
    assert.equal(lineOf('host "replication" all 0.0.0.0/0 md5', { database: 'replication' }), 1);
    assert.equal(lineOf('host app all 0.0.0.0/0 md5', { isReplication: true }), undefined);
  });

  test('sameuser, samerole and +role', () => {
    assert.equal(lineOf('host sameuser all 0.0.0.0/0 md5', { database: 'alice' }), 1);
    assert.equal(lineOf('host sameuser all 0.0.0.0/0 md5', { database: 'app' }), undefined);
    assert.equal(lineOf('host "sameuser" all 0.0.0.0/0 md5', { database: 'sameuser' }), 1);
    assert.equal(lineOf('host samerole all 0.0.0.0/0 md5', { database: 'staff' }), 1);
    assert.equal(lineOf('host samegroup all 0.0.0.0/0 md5', { database: 'sales', user: 'bob' }), 1);
    assert.equal(lineOf('host samerole all 0.0.0.0/0 md5', { database: 'sales' }), undefined);
    assert.equal(lineOf('host all +sales 0.0.0.0/0 md5', { user: 'bob' }), 1);
    assert.equal(lineOf('host all +sales 0.0.0.0/0 md5', { user: 'alice' }), undefined);
    assert.equal(lineOf('host all "+sales" 0.0.0.0/0 md5', { user: 'bob' }), undefined);
    assert.equal(lineOf('host all "+sales" 0.0.0.0/0 md5', { user: '+sales' }), 1);
    assert.equal(lineOf('host all "all" 0.0.0.0/0 md5', { user: 'alice' }), undefined);
    assert.equal(lineOf('host all "all" 0.0.0.0/0 md5', { user: 'all' }), 1);
    assert.equal(lineOf('host db1,app,db2 carol,alice 0.0.0.0/0 md5', {}), 1);
  });
});

// ---- Against PostgreSQL 15 ----------------------------------------------------------------------

const PG_BIN = '/usr/lib/postgresql/15/bin';

// hostssl lines need ssl=on: the TLS tests' certificate.
const { key, cert } = testCertificate;

/** Lines PostgreSQL must read exactly as Floe does: the same row, error text included. */
const agreed = [
  '# Differential sample: PostgreSQL 15 reads this file, and Floe must show the same rows.',
  '',
  'local   all             all                                     trust',
  'host    all             all             127.0.0.1/32            trust',
  'host    "all"           "all",bob,+grp  10.1.2.3/8              md5     # a comment',
  'host    sameuser,samerole,samegroup,replication,"sameuser" all ::1/128 scram-sha-256',
  'host    all             all             0.0.0.0/0               password',
  'host    all             all             ::/0                    reject',
  '   \t',
  'host    all             all             10.0.0.0 255.0.0.0      trust',
  'host    all             all             10.0.0.0 0.255.0.255    trust',
  'host    all             all             ::1 ffff:ffff::         trust',
  'host    all             all             ::ffff:1.2.3.4/128      trust',
  'host    all             all             ::1.2.3.4/96            trust',
  'host    all             all             1:0:0:1:0:0:0:1/64      trust',
  'host    all             all             ::2/112                 trust',
  'host    all             all             ABCD:00EF::/16          trust',
  'host    all             all             1:2:3:4:5:6:7::/128     trust',
  'host    all             all             127.1/32                trust',
  'host    all             all             010.0.0.1/32            trust',
  'host    all             all             0x7f.1/32               trust',
  'host    all             all             4294967295/32           trust',
  'host    all             all             10.0.0.0/+8             trust',
  'host    all             all             10.0.0.0/08             trust',
  'host    all             all             "10.0.0.0/ 8"           trust',
  'host    all             all             10.0.0.0 8              trust',
  'host    all             all             1.2.3/32                trust',
  'host    all             all             ::ffff:0:0/96           trust',
  'host    all             all             ::1:0:0/128             trust',
  'host    all             all             0:1:2:3:4:5:6:7/128     trust',
  'host    all             all             1:0:0:2:0:0:0:3/128     trust',
  'host    all             all             fe80::1%1/64            trust',
  'host    all             all             ::ffff:1.2.3.4 ::ffff:255.255.255.0 trust',
  'host    all             all             all                     trust',
  'host a"b c"d,"x""y" u 0.0.0.0/0 trust',
  'host al"l" "al"l 0.0.0.0/0 trust',
  'local "" +,"+g" trust',
  'local a, b,,c all trust',
  'host all all \\',
  '    192.168.0.0/16 trust',
  'local all all trust\r',
  '"local" "all" "all" "trust"',
  'hostssl all all 0.0.0.0/0 cert',
  'hostssl all all 0.0.0.0/0 cert map=m map=n clientname=DN',
  'hostssl all all 0.0.0.0/0 scram-sha-256 clientcert=verify-ca',
  'hostssl all all 0.0.0.0/0 trust clientcert=verify-full clientname=CN',
  'hostnossl all all 0.0.0.0/0 md5',
  'hostnogssenc all all 0.0.0.0/0 md5',
  `local ${'a'.repeat(10239)} all trust`,
  'host all all 1.2.3.256/32 trust',
  'host all all foo/32 trust',
  'host all all 10.0.0.0/33 trust',
  'host all all ::/129 trust',
  'host all all 10.0.0.0/ trust',
  'host all all ::/0x8 trust',
  'host all all 10.0.0.0 ffff:: trust',
  'host all all 10.0.0.0 bad trust',
  'host all all 10.0.0.0 "" trust',
  'host all all 10.0.0.0 0x.0.0.0 trust',
  'host all all ::1 255.0.0.0 trust',
  'host all all 0x/32 trust',
  'host all all 1.0x100.1.1/32 trust',
  'host all all 4294967296/32 trust',
  'host all all 1.2.3.4./32 trust',
  'host all all 1.2.3.4%lo/32 trust',
  'host all all fe80::1%/64 trust',
  'host all all /8 trust',
  'host all all db.example.test 255.0.0.0 trust',
  'hostgssenc all all samehost trust map=x',
  'host all all 10.0.0.0 255.0.0.0,255.0.0.0 trust',
  'host all all 10.0.0.0',
  'host all all 10.0.0.0/8',
  'host all all',
  'host all',
  'host',
  'host all,#comment',
  'HOST all all 0.0.0.0/0 trust',
  'local,host all all trust',
  'host all all 0.0.0.0/0,::/0 trust',
  'host all all 0.0.0.0/0 trust,md5',
  'host all all 0.0.0.0/0 bogus',
  'host all all 0.0.0.0/0 TRUST',
  'host a,b, c   d ,e 0.0.0.0/0 trust',
  'host all all 0.0.0.0/0 cert',
  'host all all 127.0.0.1/32 peer',
  'local all all gss',
  'host all all 127.0.0.1/32 sspi',
  'hostnossl all all 0.0.0.0/0 trust clientcert=verify-ca',
  'hostssl all all 0.0.0.0/0 cert clientcert=verify-ca',
  'host all all 0.0.0.0/0 trust clientname=CN',
  'host all all 0.0.0.0/0 trust map=foo',
  'host all all 0.0.0.0/0 trust foo',
  'host all all 0.0.0.0/0 trust foo=bar',
  'host all all 0.0.0.0/0 trust =bar',
  'host all all 0.0.0.0/0 trust ldapserver=x',
  'host all all 0.0.0.0/0 trust krb_realm=x',
  'host all all 0.0.0.0/0 trust radiusports=1',
  'host all all 0.0.0.0/0 trust "map=x y"',
  'host all all 0.0.0.0/0 trust ""',
  `local ${'a'.repeat(10240)} all trust`,
  `local ${'a'.repeat(10238)}é all trust`,
  `local ${'a'.repeat(10239)}, all trust`,
  `local ${'a'.repeat(10238)},x all trust`,
  `local ${'a'.repeat(10239)}#x all trust`,
  'local all all trust map=a, map=b',
  'hostssl all all 0.0.0.0/0 cert clientcert=verify-full',
  'local all all trust \\\\', // two backslashes: one joins the empty line below, one is left
  '',
];

/**
 * Lines where Floe parts from PostgreSQL on purpose, with Floe's error. PostgreSQL accepts the
 * first ones (Floe lacks the feature); on the last two it errs in words Floe cannot share.
 */
const divergent: readonly (readonly [line: string, floeError: string])[] = [
  ['host all all db.example.test trust', 'invalid IP address "db.example.test": host names are not supported by this build'],
  ['host all all "all" trust', 'invalid IP address "all": host names are not supported by this build'],
  ['host all all samehost trust', 'address keyword "samehost" is not supported by this build'],
  ['host all all samenet trust', 'address keyword "samenet" is not supported by this build'],
  ['local all all peer', 'invalid authentication method "peer": not supported by this build'],
  ['host all all 127.0.0.1/32 ldap ldapbasedn=dc=example', 'invalid authentication method "ldap": not supported by this build'],
  ['hostgssenc all all 0.0.0.0/0 trust', 'hostgssenc record cannot match because GSSAPI is not supported by this build'],
  // PostgreSQL cannot open the file; Floe opens none.
  ['local all @admins trust', 'secondary authentication file "@admins" is not supported by this build'],
  // PostgreSQL logs this one but leaves the view's error column empty.
  ['hostssl all all 0.0.0.0/0 trust clientcert=bogus', 'invalid value for clientcert: "bogus"'],
];

function postgresIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

test('pg_hba_file_rules of PostgreSQL 15 and Floe agree line for line', { skip: !existsSync(PG_BIN) && `no PostgreSQL 15 in ${PG_BIN}` }, async () => {
  // The server authenticates with the rules it loaded at start, from a file that only lets us in.
  // The view reads hba_file afresh at each query, so the sample replaces that file once we are
  // connected. (Were the server to reload, a file with errors would not replace its rules.)
  const dir = mkdtempSync(join(tmpdir(), 'floe-hba-'));
  try {
    const hbaFile = join(dir, 'pg_hba.conf');
    const keyFile = join(dir, 'server.key');
    const certFile = join(dir, 'server.crt');
    writeFileSync(hbaFile, 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    writeFileSync(certFile, cert);
    writeFileSync(keyFile, key);
    // Modes set explicitly, past any umask: the server may run as another user (postgres, when we
    // are root), who must reach the directory, read the rules and certificate, and own the key.
    chmodSync(dir, 0o755);
    chmodSync(hbaFile, 0o644);
    chmodSync(certFile, 0o644);
    chmodSync(keyFile, 0o600);
    if (userInfo().uid === 0) {
      const { uid, gid } = postgresIds();
      chownSync(keyFile, uid, gid);
    }
    const cluster = await startPostgresCluster({ settings: { hba_file: hbaFile, ssl: 'on', ssl_cert_file: certFile, ssl_key_file: keyFile } });
    const client = new pg.Client({ connectionString: cluster.adminUrl });
    try {
      await client.connect();
      assert.equal((await client.query('SHOW ssl')).rows[0]?.ssl, 'on', 'hostssl lines carry a warning in the view unless ssl is on');

      const agreedText = agreed.join('\n') + '\n';
      const text = agreedText + divergent.map(([line]) => line).join('\n') + '\n';
      writeFileSync(hbaFile, text);
      const result = await client.query<PgHbaFileRuleRow>('SELECT * FROM pg_hba_file_rules ORDER BY line_number');
      const floe = pgHbaFileRuleRows(parseHbaFile(text, hbaFile));
      assert.deepEqual(result.fields.map((f) => f.name), Object.keys(floe[0]!), 'the view\'s columns, in order');
      assert.deepEqual(result.rows.map((r) => r.line_number), floe.map((r) => r.line_number), 'the same lines, numbered alike');

      const firstDivergentLine = agreedText.split('\n').length;
      result.rows.forEach((pgRow, i) => {
        const row = floe[i]!;
        const divergentIndex = row.line_number - firstDivergentLine;
        if (divergentIndex < 0) {
          assert.deepEqual(row, pgRow, `line ${row.line_number}`);
        } else {
          const [line, floeError] = divergent[divergentIndex]!;
          assert.deepEqual(row, errorRow(row.line_number, floeError), line);
          assert.notDeepEqual(pgRow, row, `PostgreSQL now agrees with Floe on ${line}: move it to the agreed lines`);
        }
      });
    } finally {
      await client.end().catch(() => undefined);
      await cluster.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
