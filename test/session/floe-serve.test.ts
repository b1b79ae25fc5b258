import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { REPO_ROOT, startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';
import { runCommand } from '../harness/run-command.js';

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
    for (const [name, auth] of [['bob', 'md5'], ['carol', 'password']]) {
      const more = await runCommand(process.execPath, [join(REPO_ROOT, 'bin/floe.js'), 'user', 'add', name!, '--data', dataDir, '--auth', auth!, '--password', `${name}-pw`]);
      assert.equal(more.code, 0, more.stderr);
    }
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
});
