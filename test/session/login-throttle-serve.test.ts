import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { addLoginRoles } from '../harness/login-roles.js';
import { startFloe, type FloeServer } from '../harness/floe-server.js';

/*
 * `floe serve` counts failed logins per client address across the wire and the HTTP
 * server: after ten failures within a minute the address is locked out (1 s, doubling),
 * every password attempt from it is refused with 28000 whatever password it brings (trust,
 * with nothing to guess, is not), the refusal is logged, and a success once the lock is
 * over clears the count.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'floe-login-throttle-'));
let server: FloeServer;
before(async () => {
  server = await startFloe({ dataDir, args: ['--optimizer-threads', '0'] });
  await addLoginRoles(server, [{ name: 'alice', password: 'alice-pw' }]);
});
after(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function login(password: string): Promise<string | undefined> {
  const c = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'alice', password, database: 'floe' });
  c.on('error', () => undefined);
  try {
    await c.connect();
    await c.query('SELECT 1');
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code;
  } finally {
    await c.end().catch(() => undefined);
  }
}

const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`alice:${password}`).toString('base64')}` });

test('ten failed logins lock the address out of the wire and the HTTP API alike; after the lock the right password works and clears the count', { timeout: 60_000 }, async () => {
  assert.equal(await login('alice-pw'), undefined, 'the right password works at first');
  // Nine over the wire, one through the HTTP API: one count.
  for (let i = 0; i < 9; i++) assert.equal(await login(`wrong-${i}`), '28P01');
  const wrongHttp = await fetch(`http://127.0.0.1:${server.httpPort}/api/v1/whoami`, { headers: basic('wrong-http') });
  assert.equal(wrongHttp.status, 401);
  assert.equal(((await wrongHttp.json()) as { error: { sqlstate: string } }).error.sqlstate, '28P01');

  // Locked: even the right password is refused, on both, without being checked.
  const refused = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'alice', password: 'alice-pw', database: 'floe' });
  refused.on('error', () => undefined);
  await assert.rejects(refused.connect(), (e: { code?: string; message: string; hint?: string }) => {
    assert.equal(e.code, '28000');
    assert.equal(e.message, 'too many failed authentication attempts from 127.0.0.1');
    assert.match(e.hint ?? '', /^Try again in \d+ s\.$/);
    return true;
  });
  const lockedHttp = await fetch(`http://127.0.0.1:${server.httpPort}/api/v1/whoami`, { headers: basic('alice-pw') });
  assert.equal(lockedHttp.status, 401);
  assert.equal(((await lockedHttp.json()) as { error: { sqlstate: string } }).error.sqlstate, '28000');
  await server.waitForLog(/too many failed authentication attempts from 127\.0\.0\.1/);
  // Trust has no password to guess: the bootstrap superuser on loopback is not locked out.
  const trusted = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'floe', database: 'floe' });
  await trusted.connect();
  assert.deepEqual((await trusted.query('SELECT current_user AS u')).rows, [{ u: 'floe' }]);
  await trusted.end();

  // The first lock is a second; refused attempts are not counted, so they do not lengthen it.
  const until = Date.now() + 10_000;
  let answer = await login('alice-pw');
  while (answer === '28000' && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    answer = await login('alice-pw');
  }
  assert.equal(answer, undefined, 'the right password works once the lock is over');
  // The success cleared the count: one more failure does not lock.
  assert.equal(await login('wrong-again'), '28P01');
  assert.equal(await login('alice-pw'), undefined);
  const ok = await fetch(`http://127.0.0.1:${server.httpPort}/api/v1/whoami`, { headers: basic('alice-pw') });
  assert.equal(ok.status, 200);
});
