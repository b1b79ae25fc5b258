import assert from 'node:assert/strict';
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { serialize } from 'pg-protocol';
import { RawClient } from './raw-client.js';
import { startFakeServer, type Fixture } from './server-fixture.js';
import { fakeAuth } from './fake-session.js';
import { seededRandom } from '../lake/helpers/seeded-random.js';

/**
 * The SCRAM-SHA-256 handshake under attack: malformed SASL messages, a wrong mechanism, a
 * tampered or replayed client-final, a wrong nonce or channel-binding header, and random
 * mutations of each message. Every one must end in a FATAL error — never AuthenticationOk,
 * never a crash — and the server must still log in the honest client afterwards.
 */
const USER = 'alice';
const PASSWORD = 'sesame';

const hmac = (key: Buffer, data: string) => createHmac('sha256', key).update(data).digest();
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest();

/** The client's side of one exchange: its first message, then its final message for the server's first. */
function scramClient(password: string) {
  const nonce = randomBytes(18).toString('base64');
  const clientFirstBare = `n=,r=${nonce}`;
  return {
    first: `n,,${clientFirstBare}`,
    final(serverFirst: string): string {
      const attrs = Object.fromEntries(serverFirst.split(',').map((kv) => [kv[0], kv.slice(2)]));
      const salted = pbkdf2Sync(password, Buffer.from(attrs.s!, 'base64'), Number(attrs.i), 32, 'sha256');
      const clientKey = hmac(salted, 'Client Key');
      const withoutProof = `c=biws,r=${attrs.r}`;
      const signature = hmac(sha256(clientKey), `${clientFirstBare},${serverFirst},${withoutProof}`);
      const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]!));
      return `${withoutProof},p=${proof.toString('base64')}`;
    },
  };
}

type Outcome = 'ok' | `error ${string}` | 'closed';

/** A login whose messages `tamper` may rewrite: the first (initial response) or the final one. */
async function login(port: number, tamper: { initial?: (b: Buffer) => Buffer; final?: (s: string) => Buffer; mechanism?: string } = {}): Promise<Outcome> {
  const c = await RawClient.open(port);
  try {
    c.send(serialize.startup({ user: USER, database: 'floe' }));
    await c.until('authenticationSASL');
    const client = scramClient(PASSWORD);
    const initial = tamper.initial?.(Buffer.from(client.first)) ?? Buffer.from(client.first);
    c.send(saslInitial(tamper.mechanism ?? 'SCRAM-SHA-256', initial));
    const next = await firstOf(c, ['authenticationSASLContinue', 'error']);
    if (next.name === 'error') return `error ${(next as unknown as { code: string }).code}`;
    const serverFirst = (next as unknown as { data: string }).data;
    const final = client.final(serverFirst);
    c.send(saslResponse(tamper.final?.(final) ?? Buffer.from(final)));
    const end = await firstOf(c, ['authenticationOk', 'error']);
    return end.name === 'authenticationOk' ? 'ok' : `error ${(end as unknown as { code: string }).code}`;
  } catch {
    return 'closed';
  } finally {
    c.close();
  }
}

async function firstOf(c: RawClient, names: readonly string[]) {
  for (let from = 0; ; from++) {
    await c.until(names[0]!, 0, 5000).catch(() => undefined);
    const m = c.messages.find((x) => names.includes(x.name));
    if (m !== undefined) {
      c.messages.splice(0, c.messages.indexOf(m) + 1);
      return m;
    }
    if (c.closed || from > 100) throw new Error('closed');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function saslInitial(mechanism: string, data: Buffer): Buffer {
  const mech = Buffer.from(`${mechanism}\0`);
  const len = Buffer.alloc(4);
  len.writeInt32BE(data.length);
  return frame(Buffer.concat([mech, len, data]));
}

const saslResponse = (data: Buffer) => frame(data);

function frame(body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head[0] = 0x70; // 'p'
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

describe('the SCRAM handshake under attack', () => {
  let fx: Fixture;
  before(async () => {
    fx = await startFakeServer({ auth: fakeAuth({ scram: { [USER]: PASSWORD }, md5: {}, password: {} }) });
  });
  after(async () => {
    await fx.stop();
  });

  test('the honest client logs in', async () => {
    assert.equal(await login(fx.port), 'ok');
  });

  test('a wrong mechanism, a malformed first message, a tampered proof, nonce or binding header fail', async () => {
    assert.equal(await login(fx.port, { mechanism: 'SCRAM-SHA-1' }), 'error 08P01');
    assert.equal(await login(fx.port, { initial: () => Buffer.from('garbage') }), 'error 08P01');
    assert.equal(await login(fx.port, { initial: () => Buffer.from('p=tls-server-end-point,,n=,r=abc') }), 'error 08P01');
    assert.equal(await login(fx.port, { final: (f) => Buffer.from(f.replace(/p=[^,]*$/, `p=${randomBytes(32).toString('base64')}`)) }), 'error 28P01');
    assert.equal(await login(fx.port, { final: (f) => Buffer.from(f.replace(/r=[^,]*/, 'r=forged')) }), 'error 08P01');
    assert.equal(await login(fx.port, { final: (f) => Buffer.from(f.replace('c=biws', `c=${Buffer.from('y,,').toString('base64')}`)) }), 'error 08P01');
    assert.equal(await login(fx.port, { final: (f) => Buffer.from(f.replace(/,p=.*$/, '')) }), 'error 08P01');
  });

  test('a client-final replayed on another connection is refused (its nonce is that connection\'s)', async () => {
    let captured: string | undefined;
    assert.equal(await login(fx.port, { final: (f) => { captured = f; return Buffer.from(f); } }), 'ok');
    assert.equal(await login(fx.port, { final: () => Buffer.from(captured!) }), 'error 08P01');
  });

  test('random mutations of either message never log in and never take the server down', async () => {
    const rand = seededRandom(30);
    const mutate = (b: Buffer): Buffer => {
      const out = Buffer.from(b);
      const kind = Math.floor(rand() * 3);
      // A flip always changes the byte, so no mutation leaves a message as it was.
      if (kind === 0) {
        for (let k = 0; k < 1 + Math.floor(rand() * 4); k++) {
          const at = Math.floor(rand() * out.length);
          out[at] = (out[at]! + 1 + Math.floor(rand() * 255)) % 256;
        }
      }
      if (kind === 1) return out.subarray(0, Math.floor(rand() * out.length));
      if (kind === 2) return Buffer.concat([out, randomBytes(1 + Math.floor(rand() * 20))]);
      return out;
    };
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 60; i++) {
      const onInitial = rand() < 0.5;
      const outcome = await login(fx.port, onInitial ? { initial: mutate } : { final: (f) => mutate(Buffer.from(f)) });
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    // A truncated message may leave the server waiting for the rest until the client hangs up ('closed').
    assert.ok([...outcomes.keys()].every((k) => k === 'closed' || /^error (08P01|28P01)$/.test(k)), JSON.stringify([...outcomes]));
    assert.equal(await login(fx.port), 'ok');
  });
});
