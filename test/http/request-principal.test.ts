import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFloeError } from '../../src/common/floe-error.js';
import { authenticateRequest, type AuthPolicy, type HttpAuthMode } from '../../src/http/index.js';
import { checkPassword } from '../../src/http/request-principal.js';

// A users file in miniature: alice (password "alice-pw") and root (a superuser, "root-pw").
const credentials = {
  verify: (user: string, password: string) => (user === 'alice' && password === 'alice-pw') || (user === 'root' && password === 'root-pw'),
  isSuperuser: (user: string) => user === 'root',
};
const policy = (mode: HttpAuthMode): AuthPolicy => ({ mode, credentials, trustedUser: 'floe' });
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(isFloeError(e), String(e));
    return e.sqlstate;
  }
  assert.fail('the request was let through');
}

test('loopback without credentials is the bootstrap superuser, unless the mode is always', () => {
  for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '127.3.4.5']) {
    assert.deepEqual(authenticateRequest({ remoteAddress, secure: false, authorization: undefined }, policy('loopback')), { user: 'floe', superuser: true });
    assert.equal(refusal(() => authenticateRequest({ remoteAddress, secure: false, authorization: undefined }, policy('always'))), '28000');
  }
});

test('off loopback, no credentials is 28000 in either mode', () => {
  for (const remoteAddress of ['10.0.0.7', '::ffff:192.168.1.2', '2001:db8::1']) {
    for (const mode of ['loopback', 'always'] as const) {
      assert.equal(refusal(() => authenticateRequest({ remoteAddress, secure: true, authorization: undefined }, policy(mode))), '28000', `${remoteAddress} ${mode}`);
    }
  }
});

test('off loopback, Basic is taken over TLS and refused over plain HTTP', () => {
  const good = basic('alice', 'alice-pw');
  assert.deepEqual(authenticateRequest({ remoteAddress: '10.0.0.7', secure: true, authorization: good }, policy('loopback')), { user: 'alice', superuser: false });
  assert.equal(refusal(() => authenticateRequest({ remoteAddress: '10.0.0.7', secure: false, authorization: good }, policy('loopback'))), '28000');
});

test('credentials are checked from loopback too, so a script can act as a lesser user', () => {
  assert.deepEqual(authenticateRequest({ remoteAddress: '127.0.0.1', secure: false, authorization: basic('alice', 'alice-pw') }, policy('loopback')), { user: 'alice', superuser: false });
  assert.deepEqual(authenticateRequest({ remoteAddress: '127.0.0.1', secure: false, authorization: basic('root', 'root-pw') }, policy('always')), { user: 'root', superuser: true });
  assert.equal(refusal(() => authenticateRequest({ remoteAddress: '127.0.0.1', secure: false, authorization: basic('alice', 'wrong') }, policy('loopback'))), '28P01');
  assert.equal(refusal(() => authenticateRequest({ remoteAddress: '127.0.0.1', secure: false, authorization: basic('nobody', 'alice-pw') }, policy('loopback'))), '28P01');
});

test('a password may hold a colon; malformed or non-Basic headers are 28000', () => {
  const colonPolicy: AuthPolicy = { ...policy('always'), credentials: { ...credentials, verify: (u, p) => u === 'bob' && p === 'a:b:c' } };
  assert.equal(authenticateRequest({ remoteAddress: '127.0.0.1', secure: false, authorization: basic('bob', 'a:b:c') }, colonPolicy).user, 'bob');
  for (const header of ['Bearer abc', 'Basic', 'Basic !!!', `Basic ${Buffer.from('no-colon').toString('base64')}`, `Basic ${Buffer.from(':pw').toString('base64')}`]) {
    assert.equal(refusal(() => authenticateRequest({ remoteAddress: '127.0.0.1', secure: false, authorization: header }, policy('always'))), '28000', header);
  }
});

test('a login session acts as its user, from loopback too, with its superuser flag read now; Basic wins over it', () => {
  for (const mode of ['loopback', 'always'] as const) {
    assert.deepEqual(authenticateRequest({ remoteAddress: '127.0.0.1', secure: false, authorization: undefined, sessionUser: 'alice' }, policy(mode)), { user: 'alice', superuser: false });
    assert.deepEqual(authenticateRequest({ remoteAddress: '10.1.2.3', secure: true, authorization: undefined, sessionUser: 'root' }, policy(mode)), { user: 'root', superuser: true });
    assert.deepEqual(authenticateRequest({ remoteAddress: '127.0.0.1', secure: false, authorization: basic('root', 'root-pw'), sessionUser: 'alice' }, policy(mode)), { user: 'root', superuser: true });
  }
});

test('the login form\'s password is refused off loopback over plain HTTP, as Basic is', () => {
  assert.equal(refusal(() => checkPassword({ remoteAddress: '10.1.2.3', secure: false }, policy('loopback'), 'alice', 'alice-pw')), '28000');
  assert.deepEqual(checkPassword({ remoteAddress: '10.1.2.3', secure: true }, policy('loopback'), 'alice', 'alice-pw'), { user: 'alice', superuser: false });
  assert.equal(refusal(() => checkPassword({ remoteAddress: '127.0.0.1', secure: false }, policy('always'), 'alice', 'root-pw')), '28P01');
});
