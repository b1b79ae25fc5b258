import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { REPO_ROOT, catalogFlags, startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';
import { runCommand } from '../harness/run-command.js';
import { runPsql } from '../harness/run-psql.js';

describe('floe serve and floe user add', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'floe-cli-'));
  let server: FloeServer | undefined;
  after(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const hbaFile = join(dataDir, 'hba.conf');

  test('floe user add stores a SCRAM-SHA-256 verifier in the catalog, never the password', async () => {
    const r = await runCommand(process.execPath, [join(REPO_ROOT, 'bin/floe.js'), 'user', 'add', 'alice', '--data', dataDir, ...catalogFlags(dataDir, [])], {
      env: { FLOE_PASSWORD: 's3cret-pw' },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /role "alice" created \(LOGIN, scram-sha-256\)/);
    // md5 and cleartext by rules of their own; everyone else SCRAM.
    writeFileSync(hbaFile, [
      'host all floe 127.0.0.1/32 trust',
      'host all bob 127.0.0.1/32 md5',
      'host all carol 127.0.0.1/32 password',
      'host all all 127.0.0.1/32 scram-sha-256',
    ].join('\n'));
  });

  test('the gateway starts, reports PostgreSQL-shaped ParameterStatus, and authenticates by the rules file', async () => {
    server = await startFloe({ dataDir, args: ['--hba', hbaFile] });
    const c = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'floe', database: 'floe' });
    const params = new Map<string, string>();
    (c as unknown as { connection: { on(ev: string, fn: (m: { parameterName: string; parameterValue: string }) => void): void } })
      .connection.on('parameterStatus', (m) => params.set(m.parameterName, m.parameterValue));
    await c.connect();
    const stored = await c.query("SELECT rolpassword FROM pg_authid WHERE rolname = 'alice'");
    assert.match(stored.rows[0].rolpassword, /^SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    await c.query("SET password_encryption = 'md5'");
    await c.query("CREATE ROLE bob LOGIN PASSWORD 'bob-pw'");
    await c.query("RESET password_encryption");
    await c.query("CREATE ROLE carol LOGIN PASSWORD 'carol-pw'");
    const rules = await c.query('SELECT line_number, type, database, user_name, address, auth_method FROM pg_hba_file_rules ORDER BY line_number');
    assert.deepEqual(rules.rows.map((r) => [r.line_number, r.user_name, r.auth_method]), [[1, ['floe'], 'trust'], [2, ['bob'], 'md5'], [3, ['carol'], 'password'], [4, ['all'], 'scram-sha-256']]);
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
    assert.equal((await good.query('SHOW is_superuser')).rows[0].is_superuser, 'off');
    await good.end();
    const bad = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'alice', password: 'wrong', database: 'floe' });
    await assert.rejects(bad.connect(), (e: { code?: string; message: string }) => e.code === '28P01' && /password authentication failed for user "alice"/.test(e.message));

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
