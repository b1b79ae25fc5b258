import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { REPO_ROOT, startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';
import { runCommand } from '../harness/run-command.js';
import { runPsql } from '../harness/run-psql.js';
import { addUser, usersFilePath } from '../../src/cli/users-file.js';

describe('floe serve and floe user add', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'floe-cli-'));
  let server: FloeServer | undefined;
  after(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('floe user add stores a SCRAM-SHA-256 verifier, never the password', async () => {
    const r = await runCommand(process.execPath, [join(REPO_ROOT, 'bin/floe.js'), 'user', 'add', 'alice', '--data', dataDir], {
      env: { FLOE_PASSWORD: 's3cret-pw' },
    });
    assert.equal(r.code, 0, r.stderr);
    const file = readFileSync(join(dataDir, 'users.json'), 'utf8');
    assert.match(file, /"alice": \{\s*"scram": "SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+"/);
    assert.doesNotMatch(file, /s3cret-pw/);
    // The CLI's code path, in-process: each CLI start costs seconds on a busy machine.
    addUser(usersFilePath(dataDir), 'bob', 'bob-pw', 'md5');
    addUser(usersFilePath(dataDir), 'carol', 'carol-pw', 'password');
    assert.doesNotMatch(readFileSync(join(dataDir, 'users.json'), 'utf8'), /bob-pw|carol-pw/);
  });

  test('the gateway starts, reports PostgreSQL-shaped ParameterStatus, and authenticates with SCRAM', async () => {
    server = await startFloe({ dataDir });
    const c = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'floe', database: 'floe' });
    const params = new Map<string, string>();
    (c as unknown as { connection: { on(ev: string, fn: (m: { parameterName: string; parameterValue: string }) => void): void } })
      .connection.on('parameterStatus', (m) => params.set(m.parameterName, m.parameterValue));
    await c.connect();
    await c.end();
    assert.equal(params.get('server_version'), '15.18 (Floe 0.1.0)');
    assert.equal(params.get('server_version_num'), '150018');
    assert.equal(params.get('client_encoding'), 'UTF8');
    assert.equal(params.get('DateStyle'), 'ISO, MDY');
    assert.equal(params.get('integer_datetimes'), 'on');
    assert.equal(params.get('standard_conforming_strings'), 'on');
    assert.equal(params.get('TimeZone'), 'UTC');
    assert.equal(params.get('is_superuser'), 'on');

    const good = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'alice', password: 's3cret-pw', database: 'floe' });
    await good.connect();
    await good.end();
    const bad = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'alice', password: 'wrong', database: 'floe' });
    await assert.rejects(bad.connect(), (e: { code?: string; message: string }) => e.code === '28P01' && /password authentication failed for user "alice"/.test(e.message));

    // md5 and cleartext only for the users configured with them.
    for (const name of ['bob', 'carol']) {
      const ok = new pg.Client({ host: '127.0.0.1', port: server.port, user: name, password: `${name}-pw`, database: 'floe' });
      await ok.connect();
      await ok.end();
      const wrong = new pg.Client({ host: '127.0.0.1', port: server.port, user: name, password: 'nope', database: 'floe' });
      await assert.rejects(wrong.connect(), (e: { code?: string }) => e.code === '28P01');
    }
  });

  test('SIGTERM drains and stops cleanly', async () => {
    assert.ok(server);
    await server.stop();
    assert.match(server.log(), /"msg":"stopped"/);
  });

  test('with --tls-cert/--tls-key, psql negotiates TLS (sslmode=require)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'floe-tls-'));
    let tlsServer: FloeServer | undefined;
    try {
      const cert = join(dir, 'cert.pem');
      const key = join(dir, 'key.pem');
      const gen = await runCommand('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', key, '-out', cert]);
      assert.equal(gen.code, 0, gen.stderr);
      tlsServer = await startFloe({ args: ['--tls-cert', cert, '--tls-key', key] });
      const r = await runPsql({ port: tlsServer.port }, ['-At', '-c', 'SHOW server_version'], { env: { PGSSLMODE: 'require' } });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), '15.18 (Floe 0.1.0)');
      const info = await runPsql({ port: tlsServer.port }, ['-c', '\\conninfo'], { env: { PGSSLMODE: 'require' } });
      assert.match(info.stdout, /SSL connection \(protocol: TLS/);
    } finally {
      await tlsServer?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
