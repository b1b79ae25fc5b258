import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addLoginRoles } from '../harness/login-roles.js';
import { startFloe, type FloeServer } from '../harness/floe-server.js';
import { runCommand } from '../harness/run-command.js';

const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

/**
 * `--http-auth always`: every request but the probes must log in with HTTP Basic as a user of
 * the warehouse's users file (the wire's users and SCRAM verifiers). Off-loopback peers cannot
 * be made in a test (servers listen on 127.0.0.1 only): `always` treats loopback as any peer,
 * and test/http/request-principal.test.ts covers the address rules.
 */
describe('management API authentication', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'floe-http-auth-'));
  let server: FloeServer;
  let base: string;

  before(async () => {
    server = await startFloe({ dataDir, args: ['--http-auth', 'always'] });
    await addLoginRoles(server, [{ name: 'alice', password: 'alice-pw' }, { name: 'root', password: 'root-pw', superuser: true }]);
    base = `http://127.0.0.1:${server.httpPort}`;
    const c = await fetch(`${base}/api/v1/tables`, { headers: basic('root', 'root-pw') });
    assert.equal(c.status, 200);
  });
  after(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, { method, headers });
    return { status: res.status, challenge: res.headers.get('www-authenticate'), body: (await res.json().catch(() => undefined)) as any };
  };

  test('probes need no credentials', async () => {
    assert.equal((await call('GET', '/healthz')).status, 200);
    assert.equal((await call('GET', '/readyz')).status, 200);
  });

  test('without credentials: 401 with a Basic challenge and SQLSTATE 28000, for the API and /metrics', async () => {
    for (const path of ['/api/v1/tables', '/api/v1/sessions', '/api/v1/optimizing', '/metrics']) {
      const r = await call('GET', path);
      assert.equal(r.status, 401, path);
      assert.match(r.challenge ?? '', /^Basic realm="floe"/, path);
      assert.equal(r.body.error.sqlstate, '28000', path);
    }
    const r = await call('POST', '/api/v1/tables/public/t/pause');
    assert.equal(r.status, 401);
  });

  test('a wrong password or an unknown user: 401, SQLSTATE 28P01', async () => {
    for (const [user, pw] of [['alice', 'not-alice-pw'], ['root', 'alice-pw'], ['mallory', 'alice-pw']] as const) {
      const r = await call('GET', '/api/v1/tables', basic(user, pw));
      assert.equal(r.status, 401, user);
      assert.match(r.challenge ?? '', /^Basic /);
      assert.equal(r.body.error.sqlstate, '28P01');
      assert.equal(r.body.error.message, `password authentication failed for user "${user}"`);
    }
  });

  test('a user who is not a superuser reads, but admin actions are 403 (42501)', async () => {
    const alice = basic('alice', 'alice-pw');
    assert.deepEqual((await call('GET', '/api/v1/whoami', alice)).body, { user: 'alice', superuser: false });
    assert.equal((await call('GET', '/api/v1/tables', alice)).status, 200);
    assert.equal((await call('GET', '/api/v1/sessions', alice)).status, 200);
    const metrics = await fetch(`${base}/metrics`, { headers: alice });
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /^floe_commits_total /m);
    for (const path of ['/api/v1/tables/public/t/pause', '/api/v1/tables/public/t/resume', '/api/v1/tables/public/t/optimize', '/api/v1/sessions/1/cancel']) {
      const r = await call('POST', path, alice);
      assert.equal(r.status, 403, path);
      assert.equal(r.body.error.sqlstate, '42501', path);
      assert.match(r.body.error.detail, /"alice" is not a superuser/);
    }
  });

  test('the login form\'s endpoints: a password checked as Basic does, then an HttpOnly SameSite=Strict session cookie until logout', async () => {
    const login = (user: string, password: string) => fetch(`${base}/api/v1/login`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-floe-dashboard': '1' }, body: JSON.stringify({ user, password }),
    });
    const wrong = await login('alice', 'nope');
    assert.equal(wrong.status, 401);
    assert.equal(((await wrong.json()) as any).error.sqlstate, '28P01');
    assert.doesNotMatch(wrong.headers.get('www-authenticate') ?? '', /^Basic/, 'no Basic challenge for the dashboard: the browser would pop up its dialog');
    assert.equal(wrong.headers.get('set-cookie'), null);
    assert.equal((await fetch(`${base}/api/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"user":"alice"}' })).status, 400);

    const ok = await login('alice', 'alice-pw');
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { user: 'alice', superuser: false });
    const setCookie = ok.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /^floe_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/, 'a browser-session cookie; no Secure over plain HTTP');
    const cookie = { cookie: setCookie.split(';')[0]! };
    assert.deepEqual((await call('GET', '/api/v1/whoami', cookie)).body, { user: 'alice', superuser: false });
    assert.equal((await call('POST', '/api/v1/tables/public/t/pause', cookie)).status, 403);
    // Basic, when sent, wins over the cookie.
    assert.deepEqual((await call('GET', '/api/v1/whoami', { ...cookie, ...basic('root', 'root-pw') })).body, { user: 'root', superuser: true });

    const out = await fetch(`${base}/api/v1/logout`, { method: 'POST', headers: cookie });
    assert.equal(out.status, 200);
    assert.match(out.headers.get('set-cookie') ?? '', /^floe_session=; .*Max-Age=0/);
    assert.equal((await call('GET', '/api/v1/whoami', cookie)).status, 401);
    assert.equal((await call('GET', '/api/v1/whoami', { cookie: 'floe_session=forged' })).status, 401);
  });

  test('the dashboard page and its assets need no login (they hold no data); its API calls do', async () => {
    const page = await fetch(`${base}/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const html = await page.text();
    for (const asset of ['/assets/dashboard.js', '/assets/dashboard.css']) {
      assert.ok(html.includes(asset), asset);
      const a = await fetch(`${base}${asset}`);
      assert.equal(a.status, 200, asset);
      assert.ok((await a.arrayBuffer()).byteLength > 1000, asset);
    }
    assert.equal((await fetch(`${base}/assets/nothing.js`)).status, 404);
    assert.equal((await fetch(`${base}/assets/..%2Fpackage.json`)).status, 404);
    assert.equal((await call('GET', '/api/v1/rates')).status, 401);
  });

  test('a superuser\'s admin actions work', async () => {
    const root = basic('root', 'root-pw');
    // A table to act on, through the wire as the same superuser (loopback is trusted on the wire).
    const { default: pg } = await import('pg');
    const client = new pg.Client({ host: server.host, port: server.port, user: 'floe', database: 'floe' });
    await client.connect();
    try {
      await client.query('CREATE TABLE t (id int PRIMARY KEY)');
      await client.query('INSERT INTO t VALUES (1)');
      assert.deepEqual((await call('GET', '/api/v1/whoami', root)).body, { user: 'root', superuser: true });
      const paused = await call('POST', '/api/v1/tables/public/t/pause', root);
      assert.deepEqual([paused.status, paused.body.optimizingEnabled], [200, false]);
      assert.equal((await client.query("SELECT enabled FROM floe_optimizing WHERE table_name = 't'")).rows[0].enabled, false);
      const resumed = await call('POST', '/api/v1/tables/public/t/resume', root);
      assert.deepEqual([resumed.status, resumed.body.optimizingEnabled], [200, true]);
      const optimized = await call('POST', '/api/v1/tables/public/t/optimize', root);
      assert.equal(optimized.status, 200, JSON.stringify(optimized.body));
      assert.equal(optimized.body.kind, 'major');
    } finally {
      await client.end();
    }
  });
});

describe('management API over TLS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-http-tls-'));
  let server: FloeServer | undefined;
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('with --tls-cert/--tls-key the management server speaks HTTPS with the same certificate, and Basic logs in', async () => {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    const gen = await runCommand('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert]);
    assert.equal(gen.code, 0, gen.stderr);
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir);
    server = await startFloe({ dataDir, args: ['--tls-cert', cert, '--tls-key', key, '--http-auth', 'always'] });
    await addLoginRoles(server, [{ name: 'root', password: 'root-pw', superuser: true }]);
    const get = (headers: Record<string, string>) => new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port: server!.httpPort, path: '/api/v1/whoami', ca: readFileSync(cert), headers }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => { body += c.toString('utf8'); });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    assert.deepEqual(await get(basic('root', 'root-pw')), { status: 200, body: JSON.stringify({ user: 'root', superuser: true }) });
    assert.equal((await get({})).status, 401);
    // Plain HTTP on the HTTPS port is not served.
    await assert.rejects(fetch(`http://127.0.0.1:${server.httpPort}/healthz`));
  });
});
