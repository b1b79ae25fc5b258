import assert from 'node:assert/strict';
import { testCertificate } from '../harness/test-certificate.js';
import { describe, test } from 'node:test';
import pg from 'pg';
import { md5Response, md5StoredPassword } from '../../src/common/md5-password.js';
import { formatScramVerifier, makeScramVerifier, parseScramVerifier } from '../../src/common/scram-secret.js';
import { startWireServer } from '../../src/wire/server.js';
import { FakeSession, fakeAuth, newFakeState } from './fake-session.js';

const { key, cert } = testCertificate;


describe('TLS and password verifiers', () => {
  test("SSLRequest is answered 'S' and the session runs over TLS when a certificate is configured", async () => {
    const state = newFakeState();
    const server = await startWireServer({
      host: '127.0.0.1', port: 0, auth: fakeAuth({ scram: { alice: 'pw' }, md5: {}, password: {} }),
      createSession: (info) => new FakeSession(state, info), tls: { key, cert },
    });
    try {
      const c = new pg.Client({
        host: '127.0.0.1', port: server.port, user: 'alice', password: 'pw', database: 'floe', ssl: { rejectUnauthorized: false },
      });
      await c.connect();
      const socket = (c as unknown as { connection: { stream: { encrypted?: boolean } } }).connection.stream;
      assert.equal(socket.encrypted, true);
      assert.equal((await c.query('series 3')).rows.length, 3);
      await c.end();
      const plain = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'floe', database: 'floe' });
      await plain.connect();
      assert.equal((await plain.query('series 1')).rows.length, 1, 'clients that skip SSLRequest still work');
      await plain.end();
    } finally {
      for (let i = 0; i < 100 && state.closed < state.started; i++) await new Promise((r) => setTimeout(r, 20));
      await server.close({ drainMs: 100 });
    }
  });

  test('SCRAM verifier matches one PostgreSQL 15 stored for the same password and salt', () => {
    const pgStored = 'SCRAM-SHA-256$4096:wATxLUFvITHaDvfIq4yxog==$bwn9mCXhG6wtEKe8GY1FMlEy5bKT1oqmPkr+qkg8gvo=:xlYnnchPBFej+e68rcoN+ShGv4nmEcRnfsjrHGufV2E=';
    const parsed = parseScramVerifier(pgStored);
    assert.ok(parsed);
    assert.equal(parsed.iterations, 4096);
    const mine = makeScramVerifier('s\u00e9cret', { salt: parsed.salt, iterations: parsed.iterations });
    assert.equal(formatScramVerifier(mine), pgStored);
    const fresh = makeScramVerifier('x');
    assert.equal(fresh.iterations, 4096);
    assert.equal(fresh.salt.length, 16);
    assert.equal(parseScramVerifier('md5abc'), undefined);
  });

  test('md5 stored form and challenge response as PostgreSQL computes them', () => {
    assert.equal(md5StoredPassword('bob', 'hunter2'), 'md5a2cc14bcc08bcb211f578153967abd6d');
    const salt = Buffer.from([1, 2, 3, 4]);
    assert.equal(md5Response('bob', 'hunter2', salt), md5Response('bob', 'md5a2cc14bcc08bcb211f578153967abd6d', salt));
    assert.match(md5Response('bob', 'hunter2', salt), /^md5[0-9a-f]{32}$/);
  });
});
