import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startFloe, type FloeServer } from '../harness/floe-server.js';
import { runCommand } from '../harness/run-command.js';

/**
 * Transport rules through the real gateway: hostssl / hostnossl lines, the cert method
 * (a certificate signed by --tls-ca whose CN is the user), clientcert=verify-full on a
 * password method, and --ssl-min-protocol-version, with node-postgres as the client.
 */
describe('TLS rules, client certificates and the minimum TLS version', () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-certs-'));
  const file = (name: string) => join(dir, name);
  let server: FloeServer;

  const openssl = async (...args: string[]) => {
    const r = await runCommand('openssl', args);
    assert.equal(r.code, 0, r.stderr);
  };
  /** A P-256 key and a certificate for `cn`, signed by the test CA (or by itself). */
  const certificate = async (name: string, cn: string, selfSigned = false) => {
    const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', file(`${name}.key`)];
    if (selfSigned) return openssl('req', '-x509', ...key, '-out', file(`${name}.crt`), '-days', '1', '-subj', `/CN=${cn}`);
    await openssl('req', ...key, '-out', file(`${name}.csr`), '-subj', `/CN=${cn}`);
    return openssl('x509', '-req', '-in', file(`${name}.csr`), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file(`${name}.crt`), '-days', '1');
  };
  const connect = (user: string, o: { cert?: string; ssl?: boolean; password?: string; maxVersion?: 'TLSv1.2' } = {}) => {
    const ssl = o.ssl === false ? false : {
      rejectUnauthorized: false,
      ...(o.cert === undefined ? {} : { cert: readFileSync(file(`${o.cert}.crt`)), key: readFileSync(file(`${o.cert}.key`)) }),
      ...(o.maxVersion === undefined ? {} : { maxVersion: o.maxVersion }),
    };
    return new pg.Client({ host: '127.0.0.1', port: server.port, user, database: 'floe', ssl, ...(o.password === undefined ? {} : { password: o.password }) });
  };
  const outcome = async (c: pg.Client): Promise<string> => {
    try {
      await c.connect();
      await c.end();
      return 'connected';
    } catch (e) {
      const err = e as { code?: string; message: string };
      return err.code === undefined ? `no connection: ${err.message}` : `${err.code}: ${err.message}`;
    }
  };

  before(async () => {
    await openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.crt'), '-days', '1', '-subj', '/CN=floe-test-ca');
    await certificate('server', '127.0.0.1', true);
    await certificate('alice', 'alice');
    await certificate('bob', 'bob');
    await certificate('mallory', 'mallory');
    await certificate('forged', 'alice', true);
    writeFileSync(file('hba.conf'), [
      'host all floe 127.0.0.1/32 trust',
      'hostnossl all all 127.0.0.1/32 reject',
      'hostssl all alice 127.0.0.1/32 cert',
      'hostssl all bob 127.0.0.1/32 scram-sha-256 clientcert=verify-full',
    ].join('\n'));
    server = await startFloe({
      args: ['--hba', file('hba.conf'), '--tls-cert', file('server.crt'), '--tls-key', file('server.key'), '--tls-ca', file('ca.crt'),
        '--ssl-min-protocol-version', 'TLSv1.3', '--optimizer-threads', '0'],
    });
    const admin = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'floe', database: 'floe' });
    await admin.connect();
    await admin.query('CREATE ROLE alice LOGIN');
    await admin.query("CREATE ROLE bob LOGIN PASSWORD 'bob-pw'");
    await admin.end();
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('cert: a certificate from the CA whose CN is the user, and nothing else', async () => {
    assert.equal(await outcome(connect('alice', { cert: 'alice' })), 'connected');
    assert.equal(await outcome(connect('alice', { cert: 'mallory' })), '28000: certificate authentication failed for user "alice"');
    assert.equal(await outcome(connect('alice', { cert: 'forged' })), '28000: connection requires a valid client certificate');
    assert.equal(await outcome(connect('alice')), '28000: connection requires a valid client certificate');
    assert.equal(await outcome(connect('alice', { ssl: false })), '28000: pg_hba.conf rejects connection for host "127.0.0.1", user "alice", database "floe", no encryption');
  });

  test('clientcert=verify-full asks for the certificate and the password', async () => {
    assert.equal(await outcome(connect('bob', { cert: 'bob', password: 'bob-pw' })), 'connected');
    assert.equal(await outcome(connect('bob', { cert: 'bob', password: 'wrong' })), '28P01: password authentication failed for user "bob"');
    assert.equal(await outcome(connect('bob', { cert: 'mallory', password: 'bob-pw' })), '28000: certificate validation (clientcert=verify-full) failed for user "bob"');
  });

  test('--ssl-min-protocol-version refuses older TLS, and the settings say what is in force', async () => {
    assert.match(await outcome(connect('alice', { cert: 'alice', maxVersion: 'TLSv1.2' })), /^EPROTO: .*protocol version/);
    const c = connect('alice', { cert: 'alice' });
    await c.connect();
    try {
      assert.equal((await c.query('SHOW ssl')).rows[0].ssl, 'on');
      assert.equal((await c.query('SHOW ssl_min_protocol_version')).rows[0].ssl_min_protocol_version, 'TLSv1.3');
      await assert.rejects(c.query("SET ssl_min_protocol_version = 'TLSv1'"), (e: { code?: string; message: string }) => e.code === '55P02' && e.message === 'parameter "ssl_min_protocol_version" cannot be changed now');
    } finally {
      await c.end();
    }
  });
});
