import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { md5StoredPassword } from '../../src/common/md5-password.js';
import { formatScramVerifier, makeScramVerifier } from '../../src/common/scram-secret.js';
import type { LoginRole } from '../../src/wire/auth/auth-provider.js';
import { checkPassword, sameSecret, usableVerifier } from '../../src/wire/auth/password-check.js';

const role = (password: string | null, validUntilMicros: bigint | null = null): LoginRole => ({
  name: 'bob', superuser: false, canLogin: true, replication: false, connectionLimit: -1, password, validUntilMicros,
});
const nowMicros = () => BigInt(Date.now()) * 1000n;
const hour = 3_600_000_000n;

describe('the one password check', () => {
  test('a SCRAM verifier takes its password and no other', () => {
    const r = role(formatScramVerifier(makeScramVerifier('hunter2')));
    assert.equal(checkPassword(r, 'bob', 'hunter2'), true);
    assert.equal(checkPassword(r, 'bob', 'hunter3'), false);
  });

  test('an md5 verifier takes its password, salted with the user name', () => {
    const r = role(md5StoredPassword('bob', 'hunter2'));
    assert.equal(checkPassword(r, 'bob', 'hunter2'), true);
    assert.equal(checkPassword(r, 'bob', 'hunter3'), false);
    assert.equal(checkPassword(r, 'alice', 'hunter2'), false);
  });

  test('VALID UNTIL: a password past it fails like a wrong one; one before it works', () => {
    const verifier = md5StoredPassword('bob', 'hunter2');
    assert.equal(checkPassword(role(verifier, nowMicros() - hour), 'bob', 'hunter2'), false);
    assert.equal(checkPassword(role(verifier, nowMicros() + hour), 'bob', 'hunter2'), true);
    assert.equal(usableVerifier(role(verifier, nowMicros() - hour)), undefined);
  });

  test('no role, or a role without a password, matches nothing', () => {
    assert.equal(checkPassword(undefined, 'bob', 'hunter2'), false);
    assert.equal(checkPassword(role(null), 'bob', ''), false);
  });

  test('sameSecret compares whole texts, of any length', () => {
    assert.equal(sameSecret('md5abc', 'md5abc'), true);
    assert.equal(sameSecret('md5abc', 'md5abd'), false);
    assert.equal(sameSecret('md5abc', 'md5ab'), false);
  });
});
