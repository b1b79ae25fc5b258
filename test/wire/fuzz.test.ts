import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { serialize } from 'pg-protocol';
import { RawClient } from './raw-client.js';
import { startFakeServer, type Fixture } from './server-fixture.js';
import { RandomStream } from '../../src/tools/tpch/random-stream.js';

const maxMessageBytes = 64 * 1024;

function validMessages(): Buffer[] {
  return [
    serialize.query('series 3'),
    serialize.query('echo'),
    serialize.query(''),
    serialize.parse({ name: 's', text: 'echo $1', types: [23] }),
    serialize.parse({ name: '', text: 'series 2' }),
    serialize.bind({ statement: 's', values: ['1'] }),
    serialize.bind({ statement: '', portal: 'p', values: [], binary: true }),
    serialize.describe({ type: 'S', name: 's' }),
    serialize.describe({ type: 'P', name: '' }),
    serialize.execute({ portal: '', rows: 1 }),
    serialize.close({ type: 'S', name: 's' }),
    serialize.sync(),
    serialize.flush(),
    serialize.copyData(Buffer.from('x')),
    serialize.copyDone(),
    serialize.copyFail('no'),
  ];
}

/** One connection's worth of hostile bytes: each case ends in a way the server must survive. */
function hostileStream(rand: () => number, messagesPerConnection: number): Buffer {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const randomBytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
  const startup = serialize.startup({ user: 'floe', database: 'floe' });
  const kind = Math.floor(rand() * 6);
  if (kind === 0) return randomBytes(1 + Math.floor(rand() * 300)); // garbage instead of a startup packet
  if (kind === 1) return startup.subarray(0, Math.floor(rand() * startup.length)); // truncated startup
  const parts: Buffer[] = [startup];
  const valid = validMessages();
  for (let i = 0; i < messagesPerConnection; i++) {
    const m = Buffer.from(pick(valid));
    const r = rand();
    if (r < 0.3) parts.push(m);
    else if (r < 0.6) {
      // flip a few bytes anywhere, including type and length
      for (let k = 0; k < 1 + Math.floor(rand() * 3); k++) m[Math.floor(rand() * m.length)] = Math.floor(rand() * 256);
      parts.push(m);
    } else if (r < 0.75) {
      parts.push(m.subarray(0, Math.max(1, Math.floor(rand() * m.length)))); // truncated, then more bytes follow
    } else if (r < 0.9) {
      const type = pick([0x51, 0x50, 0x42, 0x44, 0x45, 0x43, 0x53, 0x48, 0x64, 0x63, 0x66, 0x70, 0x58, 0x46, 0x00, 0x7a]);
      const body = randomBytes(Math.floor(rand() * 40));
      const h = Buffer.alloc(5);
      h[0] = type;
      h.writeInt32BE(body.length + 4, 1);
      parts.push(h, body);
    } else {
      const h = Buffer.alloc(5);
      h[0] = 0x51;
      h.writeInt32BE(kind === 2 ? maxMessageBytes + 1 + Math.floor(rand() * 1e6) : Math.floor(rand() * 4), 1);
      parts.push(h); // oversized or impossible length
    }
  }
  if (rand() < 0.5) parts.push(serialize.end());
  return Buffer.concat(parts);
}

async function hammer(port: number, bytes: Buffer): Promise<void> {
  await new Promise<void>((resolve) => {
    const s = connect(port, '127.0.0.1');
    const done = (): void => {
      clearTimeout(timer);
      s.destroy();
      resolve();
    };
    const timer = setTimeout(done, 300);
    s.on('connect', () => {
      s.write(bytes);
      // Half the clients vanish mid-stream; the rest wait for the server to answer or close.
      if (bytes.length % 2 === 0) s.end();
    });
    s.on('data', () => {});
    s.on('close', done);
    s.on('error', done);
  });
}

describe('robustness', () => {
  let fx: Fixture;
  /** Internal errors the server logged: a hostile client must only ever cause FloeErrors. */
  const internalErrors: string[] = [];
  const logger = pino({ level: 'error' }, {
    write(line: string) { internalErrors.push(line); },
  });
  before(async () => { fx = await startFakeServer({ maxMessageBytes, logger }); });
  after(async () => { await fx.stop(); });

  test('an oversized message ends only that connection, with FATAL 08P01', async () => {
    const bystander = new pg.Client({ host: '127.0.0.1', port: fx.port, user: 'floe', database: 'floe' });
    await bystander.connect();
    const c = await RawClient.open(fx.port);
    c.send(serialize.startup({ user: 'floe', database: 'floe' }));
    await c.until('readyForQuery');
    c.send(serialize.query('x'.repeat(maxMessageBytes + 10)));
    const ms = await c.until('error');
    const err = ms.at(-1) as unknown as { code: string; severity: string };
    assert.equal(err.code, '08P01');
    assert.equal(err.severity, 'FATAL');
    await c.waitClosed();
    assert.equal((await bystander.query('series 2')).rows.length, 2);
    await bystander.end();
  });

  test('a malformed message after startup ends the connection with FATAL 08P01', async () => {
    const c = await RawClient.open(fx.port);
    c.send(serialize.startup({ user: 'floe', database: 'floe' }));
    await c.until('readyForQuery');
    c.send(Buffer.from([0x42, 0, 0, 0, 6, 0x61, 0])); // Bind cut short
    const err = (await c.until('error')).at(-1) as unknown as { code: string; severity: string };
    assert.deepEqual([err.code, err.severity], ['08P01', 'FATAL']);
    await c.waitClosed();
  });

  test('thousands of random, malformed and truncated messages while a good session keeps working', async () => {
    const stream = new RandomStream(20261129); // mulberry32: a seed replays the run
    const rand = (): number => stream.next();
    const good = new pg.Client({ host: '127.0.0.1', port: fx.port, user: 'floe', database: 'floe' });
    await good.connect();
    let goodQueries = 0;
    let stop = false;
    const goodLoop = (async () => {
      while (!stop) {
        const r = await good.query('series 10');
        assert.equal(r.rows.length, 10);
        const p = await good.query('echo $1', ['ok']);
        assert.deepEqual(p.rows, [{ p1: 'ok' }]);
        goodQueries++;
      }
    })();
    const connections = 400;
    const perConnection = 12;
    let sent = 0;
    for (let i = 0; i < connections; i += 20) {
      const batch = Array.from({ length: 20 }, () => hostileStream(rand, perConnection));
      sent += batch.length * perConnection;
      await Promise.all(batch.map((b) => hammer(fx.port, b)));
    }
    stop = true;
    await goodLoop;
    await good.end();
    assert.ok(sent >= 4000);
    assert.ok(goodQueries > 0, 'the good session completed queries during the fuzzing');
    const after = new pg.Client({ host: '127.0.0.1', port: fx.port, user: 'floe', database: 'floe' });
    await after.connect();
    assert.equal((await after.query('series 3')).rows.length, 3, 'the server still accepts and serves');
    await after.end();
    assert.deepEqual(internalErrors, []);
  });
});
