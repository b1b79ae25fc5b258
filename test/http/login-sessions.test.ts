import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoginSessions, cookieValue } from '../../src/http/login-sessions.js';

test('a session maps its random id to its user until it idles out; use renews it', () => {
  let now = 0;
  const sessions = new LoginSessions(() => now);
  const a = sessions.open('alice');
  const b = sessions.open('bob');
  assert.notEqual(a, b);
  assert.match(a, /^[A-Za-z0-9_-]{43}$/, '256 random bits, base64url');
  assert.equal(sessions.userOf(a), 'alice');
  assert.equal(sessions.userOf('forged'), undefined);
  now += LoginSessions.idleSeconds * 1000 - 1;
  assert.equal(sessions.userOf(a), 'alice', 'used just before it expired: renewed');
  now += LoginSessions.idleSeconds * 1000 - 1;
  assert.equal(sessions.userOf(a), 'alice');
  assert.equal(sessions.userOf(b), undefined, 'bob idled out');
  sessions.close(a);
  assert.equal(sessions.userOf(a), undefined, 'logged out');
  assert.equal(sessions.size, 0);
});

test('expired sessions are swept when a new one opens', () => {
  let now = 0;
  const sessions = new LoginSessions(() => now);
  sessions.open('alice');
  now += LoginSessions.idleSeconds * 1000;
  sessions.open('bob');
  assert.equal(sessions.size, 1);
});

test('cookieValue finds one cookie among several', () => {
  assert.equal(cookieValue('a=1; floe_session=xyz; b=2', 'floe_session'), 'xyz');
  assert.equal(cookieValue('floe_session=xyz', 'floe_session'), 'xyz');
  assert.equal(cookieValue('my_floe_session=xyz', 'floe_session'), undefined);
  assert.equal(cookieValue(undefined, 'floe_session'), undefined);
});
