import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { serialize } from 'pg-protocol';
import type { BackendMessage } from 'pg-protocol/dist/messages.js';
import { eventually } from './fake-session.js';
import { RawClient } from './raw-client.js';
import { startFakeServer, type Fixture } from './server-fixture.js';

type Msg = BackendMessage & Record<string, unknown>;
const names = (ms: BackendMessage[]): string[] => ms.map((m) => m.name);

async function session(port: number): Promise<RawClient> {
  const c = await RawClient.open(port);
  c.send(serialize.startup({ user: 'floe', database: 'floe' }));
  await c.until('readyForQuery');
  return c;
}

/** Sends the buffers and returns every message up to the ReadyForQuery answering the last Sync or Query. */
async function roundTrip(c: RawClient, ...bufs: Buffer[]): Promise<Msg[]> {
  const from = c.messages.length;
  c.send(...bufs);
  const expected = bufs.filter((b) => b[0] === 0x53 || b[0] === 0x51 || b[0] === 0x46).length;
  let at = from;
  for (let i = 0; i < expected; i++) at += (await c.until('readyForQuery', at)).length;
  return c.messages.slice(from, at) as Msg[];
}

describe('extended query protocol over raw bytes', () => {
  let fx: Fixture;
  before(async () => { fx = await startFakeServer(); });
  after(async () => { await fx.stop(); });

  test('startup: parameter status set, BackendKeyData, ReadyForQuery I', async () => {
    const c = await session(fx.port);
    assert.deepEqual(names(c.messages), [
      'authenticationOk', ...Array(6).fill('parameterStatus'), 'backendKeyData', 'readyForQuery',
    ]);
    assert.equal((c.messages.at(-1) as Msg).status, 'I');
    c.send(serialize.end());
    await c.waitClosed();
  });

  test('NegotiateProtocolVersion for a newer minor version and _pq_ options', async () => {
    const c = await RawClient.open(fx.port);
    const body = Buffer.from('user\0floe\0_pq_.compress\0on\0\0');
    const pkt = Buffer.alloc(8 + body.length);
    pkt.writeInt32BE(pkt.length, 0);
    pkt.writeInt32BE((3 << 16) | 2, 4);
    body.copy(pkt, 8);
    c.send(pkt);
    await c.until('readyForQuery');
    const raw = Buffer.concat(c.rawBytes);
    assert.equal(raw[0], 0x76, "first message is 'v'");
    assert.equal(raw.readInt32BE(5), 0, 'newest minor 0');
    assert.equal(raw.readInt32BE(9), 1);
    assert.equal(raw.toString('utf8', 13, 13 + 13), '_pq_.compress');
    c.close();
  });

  test("SSLRequest and GSSENCRequest are declined with 'N'", async () => {
    const c = await RawClient.open(fx.port, { parse: false });
    c.send(serialize.requestSsl());
    await eventually(() => c.rawBytes.length > 0, "the answer to SSLRequest");
    assert.equal(Buffer.concat(c.rawBytes).toString(), 'N');
    c.send(Buffer.from('0000000804d21630', 'hex'));
    await eventually(() => Buffer.concat(c.rawBytes).length >= 2, 'the answer to GSSENCRequest');
    assert.equal(Buffer.concat(c.rawBytes).toString(), 'NN');
    c.startParsing();
    c.send(serialize.startup({ user: 'floe', database: 'floe' }));
    await c.until('readyForQuery');
    c.close();
  });

  test('42P05 for a duplicate named statement; the unnamed one is replaced freely', async () => {
    const c = await session(fx.port);
    const ms = await roundTrip(c,
      serialize.parse({ name: 's', text: 'series 2' }),
      serialize.parse({ name: '', text: 'series 2' }),
      serialize.parse({ name: '', text: 'series 3' }),
      serialize.sync(),
      serialize.parse({ name: 's', text: 'series 3' }),
      serialize.sync());
    assert.deepEqual(names(ms), ['parseComplete', 'parseComplete', 'parseComplete', 'readyForQuery', 'error', 'readyForQuery']);
    assert.equal(ms[4]!.code, '42P05');
    assert.equal(ms[4]!.message, 'prepared statement "s" already exists');
    c.close();
  });

  test('26000 for a missing statement, 34000 for a missing portal, each discarding until Sync', async () => {
    const c = await session(fx.port);
    let ms = await roundTrip(c,
      serialize.bind({ statement: 'nope', portal: '' }),
      serialize.parse({ name: 'x', text: 'series 1' }), // discarded
      serialize.execute({ portal: '' }), // discarded
      serialize.sync());
    assert.deepEqual(names(ms), ['error', 'readyForQuery']);
    assert.equal(ms[0]!.code, '26000');
    assert.equal(ms[0]!.message, 'prepared statement "nope" does not exist');
    ms = await roundTrip(c, serialize.describe({ type: 'S', name: 'x' }), serialize.sync());
    assert.equal(ms[0]!.code, '26000', 'the discarded Parse created nothing');
    ms = await roundTrip(c, serialize.execute({ portal: 'p' }), serialize.sync());
    assert.equal(ms[0]!.code, '34000');
    assert.equal(ms[0]!.message, 'portal "p" does not exist');
    ms = await roundTrip(c, serialize.describe({ type: 'P', name: 'p' }), serialize.sync());
    assert.equal(ms[0]!.code, '34000');
    assert.equal(fx.state.syncs >= 4, true, 'session.sync() called after each failed batch');
    c.close();
  });

  test('Describe statement: ParameterDescription and RowDescription, or NoData', async () => {
    const c = await session(fx.port);
    const ms = await roundTrip(c,
      serialize.parse({ name: 'e', text: 'echo $1 $2', types: [23, 0] }),
      serialize.describe({ type: 'S', name: 'e' }),
      serialize.parse({ name: 'b', text: 'begin' }),
      serialize.describe({ type: 'S', name: 'b' }),
      serialize.sync());
    assert.deepEqual(names(ms), ['parseComplete', 'parameterDescription', 'rowDescription', 'parseComplete', 'parameterDescription', 'noData', 'readyForQuery']);
    assert.deepEqual(ms[1]!.dataTypeIDs, [23, 25]);
    assert.deepEqual((ms[2]!.fields as Msg[]).map((f) => [f.name, f.dataTypeID, f.format]), [['p1', 23, 'text'], ['p2', 25, 'text']]);
    c.close();
  });

  test('Execute with a row limit suspends; two portals interleave; the last Execute completes', async () => {
    const c = await session(fx.port);
    const ms = await roundTrip(c,
      serialize.parse({ name: 's', text: 'series 5' }),
      serialize.bind({ statement: 's', portal: 'a' }),
      serialize.bind({ statement: 's', portal: 'b' }),
      serialize.execute({ portal: 'a', rows: 2 }),
      serialize.execute({ portal: 'b', rows: 4 }),
      serialize.execute({ portal: 'a', rows: 2 }),
      serialize.execute({ portal: 'a', rows: 2 }),
      serialize.execute({ portal: 'b', rows: 0 }),
      serialize.sync());
    const shape = ms.map((m) => (m.name === 'dataRow' ? `r${(m.fields as string[])[0]}` : m.name === 'commandComplete' ? m.text : m.name));
    assert.deepEqual(shape, [
      'parseComplete', 'bindComplete', 'bindComplete',
      'r1', 'r2', 'portalSuspended',
      'r1', 'r2', 'r3', 'r4', 'portalSuspended',
      'r3', 'r4', 'portalSuspended',
      'r5', 'SELECT 1',
      'r5', 'SELECT 1',
      'readyForQuery',
    ]);
    c.close();
  });

  test('a finished rows portal answers SELECT 0; a finished command portal cannot be run; duplicate portals are 42P03', async () => {
    const c = await session(fx.port);
    let ms = await roundTrip(c,
      serialize.parse({ name: 's', text: 'series 1' }),
      serialize.bind({ statement: 's', portal: 'a' }),
      serialize.execute({ portal: 'a' }),
      serialize.execute({ portal: 'a' }),
      serialize.sync());
    assert.deepEqual(ms.filter((m) => m.name === 'commandComplete').map((m) => m.text), ['SELECT 1', 'SELECT 0']);
    ms = await roundTrip(c,
      serialize.parse({ name: 'c', text: 'notice' }),
      serialize.bind({ statement: 'c', portal: 'c' }),
      serialize.execute({ portal: 'c' }),
      serialize.execute({ portal: 'c' }),
      serialize.sync());
    assert.deepEqual(names(ms), ['parseComplete', 'bindComplete', 'notice', 'commandComplete', 'error', 'readyForQuery']);
    assert.equal(ms[4]!.code, '55000');
    assert.equal(ms[4]!.message, 'portal "c" cannot be run');
    ms = await roundTrip(c,
      serialize.bind({ statement: 's', portal: 'p' }),
      serialize.bind({ statement: 's', portal: 'p' }),
      serialize.sync());
    assert.deepEqual(names(ms), ['bindComplete', 'error', 'readyForQuery']);
    assert.equal(ms[1]!.code, '42P03');
    assert.equal(ms[1]!.message, 'cursor "p" already exists');
    c.close();
  });

  test('portals end at Sync outside a transaction block, and survive inside one', async () => {
    const c = await session(fx.port);
    let ms = await roundTrip(c,
      serialize.parse({ name: 's', text: 'series 3' }),
      serialize.bind({ statement: 's', portal: 'p' }),
      serialize.execute({ portal: 'p', rows: 1 }),
      serialize.sync(),
      serialize.execute({ portal: 'p', rows: 1 }),
      serialize.sync());
    assert.equal(ms.find((m) => m.name === 'error')?.code, '34000');
    await roundTrip(c, serialize.query('begin'));
    ms = await roundTrip(c,
      serialize.bind({ statement: 's', portal: 'q' }),
      serialize.execute({ portal: 'q', rows: 1 }),
      serialize.sync());
    assert.equal(ms.at(-1)!.status, 'T');
    ms = await roundTrip(c, serialize.execute({ portal: 'q', rows: 0 }), serialize.sync());
    assert.deepEqual(names(ms), ['dataRow', 'dataRow', 'commandComplete', 'readyForQuery']);
    ms = await roundTrip(c, serialize.bind({ statement: 's', portal: 'r' }), serialize.sync());
    assert.equal(ms.at(-1)!.status, 'T');
    ms = await roundTrip(c, serialize.query('commit'));
    assert.equal(ms.at(-1)!.status, 'I');
    ms = await roundTrip(c, serialize.execute({ portal: 'r' }), serialize.sync());
    assert.equal(ms[0]!.code, '34000', 'COMMIT by simple query ended the portal');
    c.close();
  });

  test('binary parameters and per-column result formats', async () => {
    const c = await session(fx.port);
    const int4 = Buffer.alloc(4);
    int4.writeInt32BE(-7);
    const ms = await roundTrip(c,
      serialize.parse({ name: '', text: 'echo $1 $2', types: [23, 1700] }),
      // pg-protocol marks Buffers as binary parameters and binary:true asks for binary results.
      serialize.bind({ values: [int4, '12.50'], binary: true }),
      serialize.describe({ type: 'P', name: '' }),
      serialize.execute({}),
      serialize.sync());
    assert.deepEqual(names(ms), ['parseComplete', 'bindComplete', 'rowDescription', 'dataRow', 'commandComplete', 'readyForQuery']);
    assert.deepEqual((ms[2]!.fields as Msg[]).map((f) => f.format), ['binary', 'binary']);
    const row = c.frames().filter((f) => f.type === 'D').at(-1)!.body;
    assert.equal(row.toString('hex'), '0002' + '00000004' + 'fffffff9' + '0000000c' + '0002000000000002000c1388');

    // Hand-built Bind: formats [text, binary] for the two result columns.
    const bind = Buffer.concat([
      Buffer.from('\0\0'), // portal "", statement ""
      Buffer.from([0, 1, 0, 1]), // one param format: binary
      Buffer.from([0, 2]), Buffer.from([0, 0, 0, 4]), int4, Buffer.from([0, 0, 0, 2]), Buffer.from('-1'),
      Buffer.from([0, 2, 0, 0, 0, 1]),
    ]);
    const framed = Buffer.concat([Buffer.from('B'), Buffer.alloc(4), bind]);
    framed.writeInt32BE(framed.length - 1, 1);
    const bad = await roundTrip(c, framed, serialize.sync());
    assert.equal(bad[0]!.code, '22P03', 'the numeric "-1" sent as binary is rejected');
    assert.equal(bad[0]!.message, 'incorrect binary data format in bind parameter 2');
    c.close();
  });

  test('bind parameter count and result format count mismatches are 08P01 errors, not fatal', async () => {
    const c = await session(fx.port);
    let ms = await roundTrip(c,
      serialize.parse({ name: 'e', text: 'echo $1' }),
      serialize.bind({ statement: 'e', values: ['a', 'b'] }),
      serialize.sync());
    assert.equal(ms[1]!.code, '08P01');
    assert.equal(ms[1]!.message, 'bind message supplies 2 parameters, but prepared statement "e" requires 1');
    ms = await roundTrip(c, serialize.query('series 1'));
    assert.equal(ms.at(-1)!.name, 'readyForQuery');
    ms = await roundTrip(c, serialize.bind({ statement: 'e', values: ['x'] }), serialize.execute({}), serialize.sync());
    assert.deepEqual(names(ms), ['bindComplete', 'dataRow', 'commandComplete', 'readyForQuery']);
    c.close();
  });

  test('invalid text parameter input raises the type error', async () => {
    const c = await session(fx.port);
    const ms = await roundTrip(c,
      serialize.parse({ name: '', text: 'echo $1', types: [23] }),
      serialize.bind({ values: ['abc'] }),
      serialize.sync());
    assert.equal(ms[1]!.code, '22P02');
    assert.equal(ms[1]!.message, 'invalid input syntax for type integer: "abc"');
    c.close();
  });

  test('Close answers CloseComplete (even for unknown names); Flush sends without ReadyForQuery', async () => {
    const c = await session(fx.port);
    const from = c.messages.length;
    c.send(serialize.parse({ name: 'x', text: 'series 1' }), serialize.close({ type: 'S', name: 'x' }),
      serialize.close({ type: 'P', name: 'zz' }), serialize.flush());
    await c.until('closeComplete', from + 2);
    assert.deepEqual(names(c.messages.slice(from)), ['parseComplete', 'closeComplete', 'closeComplete']);
    const rest = await roundTrip(c, serialize.describe({ type: 'S', name: 'x' }), serialize.sync());
    assert.equal(rest[0]!.code, '26000');
    c.close();
  });

  test('simple query: several results, EmptyQueryResponse, errors stop the string', async () => {
    const c = await session(fx.port);
    let ms = await roundTrip(c, serialize.query('series 1; begin'));
    assert.deepEqual(names(ms), ['rowDescription', 'dataRow', 'commandComplete', 'commandComplete', 'readyForQuery']);
    assert.equal(ms.at(-1)!.status, 'T');
    ms = await roundTrip(c, serialize.query('error; series 1'));
    assert.deepEqual(names(ms), ['error', 'readyForQuery']);
    assert.equal(ms.at(-1)!.status, 'E');
    ms = await roundTrip(c, serialize.query('rollback'));
    assert.equal(ms.at(-1)!.status, 'I');
    ms = await roundTrip(c, serialize.query(''));
    assert.deepEqual(names(ms), ['emptyQuery', 'readyForQuery']);
    ms = await roundTrip(c, serialize.query('set tz Asia/Tokyo'));
    assert.deepEqual(names(ms), ['parameterStatus', 'commandComplete', 'readyForQuery']);
    assert.equal(ms[0]!.parameterValue, 'Asia/Tokyo');
    ms = await roundTrip(c, serialize.query('types'));
    const tstz = (ms[1]!.fields as string[])[13];
    assert.equal(tstz, '2024-03-10 21:34:56.789+09', 'timestamptz text follows the reported TimeZone');
    c.close();
  });

  test('a FunctionCall is refused without ending the session', async () => {
    const c = await session(fx.port);
    const ms = await roundTrip(c, Buffer.from([0x46, 0, 0, 0, 4]));
    assert.equal(ms[0]!.code, '0A000');
    assert.equal((await roundTrip(c, serialize.query('series 1'))).length, 4);
    c.close();
  });
});
