import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serialize } from 'pg-protocol';
import { RawClient } from './raw-client.js';
import { startWireServer } from '../../src/wire/server.js';
import { eventually, FakeSession, fakeAuth, newFakeState } from './fake-session.js';
import { startFakeServer } from './server-fixture.js';

type Msg = Record<string, unknown> & { name: string };

async function session(port: number): Promise<RawClient> {
  const c = await RawClient.open(port);
  c.send(serialize.startup({ user: 'floe', database: 'floe' }));
  await c.until('readyForQuery');
  return c;
}

describe('server close drains sessions', () => {
  test('idle sessions end at once with FATAL 57P01; a running statement finishes first', async () => {
    const fx = await startFakeServer();
    const idle = await session(fx.port);
    const busy = await session(fx.port);
    const from = busy.messages.length;
    busy.send(serialize.query('wait 300'));
    await eventually(() => fx.state.waitsStarted === 1, 'the statement to start');
    await fx.server.close({ drainMs: 5000 });
    const idleErr = (await idle.until('error')).at(-1) as unknown as Msg;
    assert.deepEqual([idleErr.code, idleErr.severity, idleErr.message], ['57P01', 'FATAL', 'terminating connection due to administrator command']);
    const busyMs = (await busy.until('error', from)) as unknown as Msg[];
    assert.deepEqual(busyMs.map((m) => m.name), ['commandComplete', 'readyForQuery', 'error']);
    assert.equal(busyMs[0]!.text, 'WAITED');
    assert.equal(busyMs[2]!.code, '57P01');
    await idle.waitClosed();
    await busy.waitClosed();
    assert.equal(fx.state.closed, 2, 'both sessions were closed');
    await assert.rejects(RawClient.open(fx.port), 'no longer accepting');
  });

  test('a statement still running after drainMs is aborted and the session terminated', async () => {
    const fx = await startFakeServer();
    const c = await session(fx.port);
    const from = c.messages.length;
    c.send(serialize.query('sleep'));
    await eventually(() => fx.state.sleepsStarted === 1, 'the statement to start');
    await fx.server.close({ drainMs: 100 });
    const ms = (await c.until('error', from)) as unknown as Msg[];
    assert.equal(ms.at(-1)!.code, '57P01');
    assert.equal(ms.at(-1)!.severity, 'FATAL');
    await c.waitClosed();
    assert.equal(fx.state.closed, 1);
  });
});

describe('backpressure', () => {
  test('a client that stops reading stops the row stream (socket.write return value respected)', async () => {
    const fx = await startFakeServer();
    const c = await session(fx.port);
    c.socket.pause();
    c.send(serialize.query('series 100000000'));
    // Wait until production settles (five quiet samples in a row): the server must block on
    // 'drain' once the socket buffers are full, not buffer 100M rows in memory.
    let last = -1;
    for (let quiet = 0, i = 0; quiet < 5 && i < 300; i++) {
      quiet = fx.state.batchesProduced === last ? quiet + 1 : 0;
      last = fx.state.batchesProduced;
      await new Promise((r) => setTimeout(r, 100));
    }
    const produced = fx.state.batchesProduced;
    assert.ok(produced > 0);
    assert.ok(produced < 100000000 / 7 / 10, `production stalled at ${produced} batches`);
    c.close();
    await fx.server.close({ drainMs: 200 });
  });
});

describe('startup timeout', () => {
  test('a client that never finishes authenticating is dropped with FATAL 57014', async () => {
    const state = newFakeState();
    const server = await startWireServer({
      host: '127.0.0.1', port: 0, auth: fakeAuth({ scram: {}, md5: {}, password: { carol: 'x' } }),
      createSession: (info) => new FakeSession(state, info), startupTimeoutMs: 150,
    });
    try {
      const c = await RawClient.open(server.port);
      c.send(serialize.startup({ user: 'carol', database: 'floe' }));
      await c.until('authenticationCleartextPassword');
      const err = (await c.until('error')).at(-1) as unknown as Msg;
      assert.deepEqual([err.code, err.severity, err.message], ['57014', 'FATAL', 'canceling authentication due to timeout']);
      await c.waitClosed();
      const silent = await RawClient.open(server.port);
      await silent.waitClosed();
      assert.equal(state.started, 0);
    } finally {
      await server.close({ drainMs: 100 });
    }
  });
});
