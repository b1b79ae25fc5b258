import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { DatabaseError } from 'pg-protocol';
import { targetFactories, type ClientTarget } from '../clients/client-targets.js';
import { RawClient, parseBackend } from './raw-client.js';

/**
 * A malformed startup packet, as PostgreSQL 15's ProcessStartupPacket answers it: an
 * impossible length, a truncated packet or a CancelRequest of the wrong size is only
 * logged and the socket closed without a byte; an unsupported protocol version, a
 * packet not ending in its terminator and a missing user name get a FATAL.
 */
function packet(code: number, body: Buffer, length = 8 + body.length): Buffer {
  const head = Buffer.alloc(8);
  head.writeInt32BE(length, 0);
  head.writeInt32BE(code, 4);
  return Buffer.concat([head, body]);
}

const v3 = 3 << 16;

/** Sends the bytes (then half-closes when asked) and returns everything the server sent before it closed. */
async function answer(t: ClientTarget, bytes: Buffer, halfClose = false): Promise<Buffer> {
  const c = await RawClient.open(t.port, { parse: false });
  try {
    c.send(bytes);
    if (halfClose) c.socket.end();
    await c.waitClosed(10000);
    return Buffer.concat(c.rawBytes);
  } finally {
    c.close();
  }
}

function fatal(bytes: Buffer): { severity: string | undefined; code: string | undefined; message: string } {
  const msgs = parseBackend(bytes);
  assert.deepEqual(msgs.map((m) => m.name), ['error'], `one ErrorResponse, got ${bytes.toString('hex')}`);
  const e = msgs[0] as DatabaseError;
  return { severity: e.severity, code: e.code, message: e.message };
}

for (const target of targetFactories()) {
  describe(`malformed startup packets on ${target.label}`, () => {
    let server: ClientTarget | undefined;
    const started = async () => (server ??= await target.start());
    after(async () => { await server?.stop(); });

    test('a length below 8 or above 10000: closed silently', async () => {
      const t = await started();
      assert.equal((await answer(t, Buffer.from([0, 0, 0, 4]))).length, 0);
      assert.equal((await answer(t, packet(v3, Buffer.alloc(16), 20000))).length, 0);
    });

    test('a truncated packet: closed silently', async () => {
      assert.equal((await answer(await started(), packet(v3, Buffer.from('user\0floe\0'), 40), true)).length, 0);
    });

    test('a CancelRequest of the wrong length: closed silently', async () => {
      assert.equal((await answer(await started(), packet(80877102, Buffer.alloc(12)))).length, 0);
    });

    test('protocol 4.0: FATAL 0A000', async () => {
      const bytes = await answer(await started(), packet(4 << 16, Buffer.from('user\0floe\0\0')));
      assert.deepEqual(fatal(bytes), { severity: 'FATAL', code: '0A000', message: 'unsupported frontend protocol 4.0: server supports 3.0 to 3.0' });
    });

    test('protocol 2.0: FATAL in the old version-2 format, with no length word', async () => {
      const bytes = await answer(await started(), packet(2 << 16, Buffer.from('user\0floe\0\0')));
      assert.equal(bytes.toString('latin1'), 'EFATAL:  unsupported frontend protocol 2.0: server supports 3.0 to 3.0\n\0');
    });

    test('no user name: FATAL 28000', async () => {
      const bytes = await answer(await started(), packet(v3, Buffer.from('database\0floe\0\0')));
      assert.deepEqual(fatal(bytes), { severity: 'FATAL', code: '28000', message: 'no PostgreSQL user name specified in startup packet' });
    });

    test('parameters not ending in the terminator: FATAL 08P01', async () => {
      const bytes = await answer(await started(), packet(v3, Buffer.from('user\0floe\0database')));
      assert.deepEqual(fatal(bytes), { severity: 'FATAL', code: '08P01', message: 'invalid startup packet layout: expected terminator as last byte' });
    });
  });
}
