import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serialize } from 'pg-protocol';
import { FloeError } from '../../src/common/floe-error.js';
import { writeBackendMessage, type BackendMessage } from '../../src/wire/messages/backend-message.js';
import { MessageDecoder, type DecodedMessage } from '../../src/wire/messages/message-decoder.js';
import { MessageWriter } from '../../src/wire/messages/message-writer.js';
import { RowEncoder } from '../../src/wire/row-encoder.js';
import { SilentClose } from '../../src/wire/silent-close.js';
import { parseBackend } from './raw-client.js';

function encode(...msgs: BackendMessage[]): Buffer {
  const w = new MessageWriter(8);
  for (const m of msgs) writeBackendMessage(w, m);
  return w.take();
}

function decodeAll(bytes: Buffer, chunkSize = bytes.length, max?: number): DecodedMessage[] {
  const d = new MessageDecoder(max);
  const out: DecodedMessage[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize) {
    d.push(bytes.subarray(i, i + chunkSize));
    for (let m = d.next(); m !== undefined; m = d.next()) out.push(m);
  }
  assert.equal(d.buffered, 0);
  return out;
}

const startup = serialize.startup({ user: 'floe', database: 'db', application_name: 'x' });

describe('frontend messages serialized by pg-protocol decode to readonly objects', () => {
  const stream = Buffer.concat([
    startup,
    serialize.query('select 1'),
    serialize.parse({ name: 's1', text: 'select $1', types: [23, 0] }),
    serialize.bind({ portal: 'p1', statement: 's1', values: ['42', null, Buffer.from([1, 2])], binary: true }),
    serialize.describe({ type: 'S', name: 's1' }),
    serialize.describe({ type: 'P', name: '' }),
    serialize.execute({ portal: 'p1', rows: 5 }),
    serialize.close({ type: 'P', name: 'p1' }),
    serialize.flush(),
    serialize.sync(),
    serialize.copyData(Buffer.from('a\tb\n')),
    serialize.copyDone(),
    serialize.copyFail('nope'),
    serialize.password('pw'),
    serialize.end(),
  ]);
  const expected: unknown[] = [
    { kind: 'StartupMessage', majorVersion: 3, minorVersion: 0, parameters: { user: 'floe', database: 'db', application_name: 'x', client_encoding: 'UTF8' } },
    { kind: 'Query', sql: 'select 1' },
    { kind: 'Parse', name: 's1', sql: 'select $1', paramTypeOids: [23, 0] },
    {
      kind: 'Bind', portal: 'p1', statement: 's1', paramFormats: [0, 0, 1],
      params: [Buffer.from('42'), null, Buffer.from([1, 2])], resultFormats: [1],
    },
    { kind: 'Describe', target: 'S', name: 's1' },
    { kind: 'Describe', target: 'P', name: '' },
    { kind: 'Execute', portal: 'p1', maxRows: 5 },
    { kind: 'Close', target: 'P', name: 'p1' },
    { kind: 'Flush' },
    { kind: 'Sync' },
    { kind: 'CopyData', data: Buffer.from('a\tb\n') },
    { kind: 'CopyDone' },
    { kind: 'CopyFail', reason: 'nope' },
    { kind: 'PasswordMessage', data: Buffer.from('pw\0') },
    { kind: 'Terminate' },
  ];

  const normalize = (ms: DecodedMessage[]): unknown[] =>
    ms.map((m) => (m.kind === 'StartupMessage' ? { ...m, parameters: { ...m.parameters } } : m));

  test('whole stream at once', () => {
    assert.deepEqual(normalize(decodeAll(stream)), expected);
  });

  test('byte by byte, and in odd chunk sizes (partial messages kept between chunks)', () => {
    for (const size of [1, 2, 3, 7, 64]) assert.deepEqual(normalize(decodeAll(stream, size)), expected, `chunk ${size}`);
  });

  test('startup-phase requests', () => {
    const cancel = serialize.cancel(1234, -5);
    const out = decodeAll(Buffer.concat([serialize.requestSsl(), cancel]));
    assert.deepEqual(out, [{ kind: 'SSLRequest' }, { kind: 'CancelRequest', processId: 1234, secretKey: -5 }]);
    const gss = Buffer.from('0000000804d2163' + '0', 'hex');
    assert.deepEqual(decodeAll(gss), [{ kind: 'GSSENCRequest' }]);
  });

  test('SASL messages from pg-protocol carry mechanism and data', () => {
    const out = decodeAll(Buffer.concat([startup, serialize.sendSASLInitialResponseMessage('SCRAM-SHA-256', 'n,,n=,r=abc')]));
    const m = out[1]!;
    assert.equal(m.kind, 'PasswordMessage');
    const data = (m as { data: Buffer }).data;
    assert.equal(data.toString('latin1', 0, 13), 'SCRAM-SHA-256');
    assert.equal(data.readInt32BE(14), 11);
    assert.equal(data.toString('utf8', 18), 'n,,n=,r=abc');
  });
});

describe('decoder rejects malformed input with FATAL 08P01', () => {
  const fails = (bytes: Buffer, max?: number, re?: RegExp): void => {
    const d = new MessageDecoder(max);
    d.push(bytes);
    assert.throws(() => { while (d.next() !== undefined); }, (e: unknown) => {
      assert.ok(e instanceof FloeError);
      assert.equal(e.sqlstate, '08P01');
      assert.equal(e.severity, 'FATAL');
      if (re) assert.match(e.message, re);
      return true;
    });
    assert.throws(() => d.next(), 'poisoned after an error');
  };

  test('oversized message is refused from its header alone', () => {
    const header = Buffer.from([0x51, 0, 0x10, 0, 0]); // 'Q' with length 1 MB, no body yet
    fails(Buffer.concat([startup, header]), 1000, /too large/);
  });
  test('length below 4', () => fails(Buffer.concat([startup, Buffer.from([0x51, 0, 0, 0, 3])]), undefined, /invalid message length/));
  test('unknown message type', () => fails(Buffer.concat([startup, Buffer.from([0x7a, 0, 0, 0, 4])]), undefined, /invalid frontend message type 122/));
  test('startup packet too long or too short: dropped silently, as PostgreSQL does', () => {
    for (const bytes of [Buffer.from([0, 0x10, 0, 0, 0, 3, 0, 0]), Buffer.from([0, 0, 0, 4])]) {
      const d = new MessageDecoder();
      d.push(bytes);
      assert.throws(() => d.next(), (e: unknown) => e instanceof SilentClose && /invalid length of startup packet/.test(e.message));
      assert.throws(() => d.next(), 'poisoned after an error');
    }
  });
  test('unsupported protocol version', () => {
    const b = Buffer.from([0, 0, 0, 9, 0, 2, 0, 0, 0]);
    const d = new MessageDecoder();
    d.push(b);
    assert.throws(() => d.next(), (e: FloeError) => e.sqlstate === '0A000' && /unsupported frontend protocol 2\.0/.test(e.message));
  });
  test('truncated body inside a well-framed message', () => {
    const bind = Buffer.from([0x42, 0, 0, 0, 8, 0x61, 0, 0, 0]); // portal "a", statement "" then cut
    fails(Buffer.concat([startup, bind]));
  });
  test('missing string terminator', () => fails(Buffer.concat([startup, Buffer.from([0x51, 0, 0, 0, 6, 0x61, 0x62])])));
  test('extra bytes after Sync', () => fails(Buffer.concat([startup, Buffer.from([0x53, 0, 0, 0, 5, 1])])));
  test('an incomplete message just waits for more bytes', () => {
    const d = new MessageDecoder();
    d.push(startup);
    assert.equal(d.next()?.kind, 'StartupMessage');
    d.push(serialize.query('select 1').subarray(0, 6));
    assert.equal(d.next(), undefined);
  });
});

describe('backend messages are framed as pg-protocol expects', () => {
  test('byte fixtures', () => {
    assert.equal(encode({ kind: 'ReadyForQuery', status: 'I' }).toString('hex'), '5a0000000549');
    assert.equal(encode({ kind: 'AuthenticationOk' }).toString('hex'), '520000000800000000');
    assert.equal(encode({ kind: 'ParseComplete' }, { kind: 'BindComplete' }).toString('hex'), '31000000043200000004');
    assert.equal(encode({ kind: 'CommandComplete', tag: 'SELECT 1' }).toString('hex'), '430000000d53454c454354203100');
    assert.equal(encode({ kind: 'DataRow', values: [Buffer.from('1'), null] }).toString('hex'), '440000000f00020000000131ffffffff');
    assert.equal(encode({ kind: 'BackendKeyData', processId: 1, secretKey: 2 }).toString('hex'), '4b0000000c0000000100000002');
    assert.equal(encode({ kind: 'NegotiateProtocolVersion', newestMinorVersion: 0, unrecognizedOptions: ['_pq_.x'] }).toString('hex'),
      '76000000130000000000000001' + Buffer.from('_pq_.x\0').toString('hex'));
    // CopyBothResponse starts a replication stream: 'W', text format, no columns.
    assert.equal(encode({ kind: 'CopyBothResponse', format: 0, columnFormats: [] }).toString('hex'), '57000000070000' + '00');
  });

  test('round trip through pg-protocol Parser', () => {
    const columns = [
      { name: 'a', tableOid: 16384, columnNumber: 1, typeOid: 23, typeSize: 4, typeModifier: -1 },
      { name: 'b', tableOid: 0, columnNumber: 0, typeOid: 1043, typeSize: -1, typeModifier: 14 },
    ];
    const msgs = parseBackend(encode(
      { kind: 'AuthenticationOk' },
      { kind: 'AuthenticationCleartextPassword' },
      { kind: 'AuthenticationMD5Password', salt: Buffer.from([1, 2, 3, 4]) },
      { kind: 'AuthenticationSASL', mechanisms: ['SCRAM-SHA-256'] },
      { kind: 'AuthenticationSASLContinue', data: Buffer.from('r=abc,s=c2FsdA==,i=4096') },
      { kind: 'AuthenticationSASLFinal', data: Buffer.from('v=xyz') },
      { kind: 'ParameterStatus', name: 'TimeZone', value: 'UTC' },
      { kind: 'BackendKeyData', processId: 77, secretKey: -9 },
      { kind: 'RowDescription', columns, formats: [0, 1] },
      { kind: 'DataRow', values: [Buffer.from('12'), null] },
      { kind: 'CommandComplete', tag: 'SELECT 1' },
      { kind: 'EmptyQueryResponse' },
      { kind: 'ParseComplete' }, { kind: 'BindComplete' }, { kind: 'CloseComplete' }, { kind: 'NoData' },
      { kind: 'PortalSuspended' },
      { kind: 'ParameterDescription', typeOids: [23, 25] },
      { kind: 'CopyInResponse', format: 0, columnFormats: [0, 0] },
      { kind: 'CopyOutResponse', format: 1, columnFormats: [1] },
      { kind: 'CopyData', data: Buffer.from('x') },
      { kind: 'CopyDone' },
      { kind: 'ErrorResponse', fields: { severity: 'ERROR', sqlstate: '42601', message: 'bad', detail: 'd', hint: 'h', position: 7 } },
      { kind: 'NoticeResponse', fields: { severity: 'NOTICE', sqlstate: '00000', message: 'note' } },
      { kind: 'ReadyForQuery', status: 'T' },
    )) as unknown as Record<string, unknown>[];
    assert.deepEqual(msgs.map((m) => m.name), [
      'authenticationOk', 'authenticationCleartextPassword', 'authenticationMD5Password', 'authenticationSASL',
      'authenticationSASLContinue', 'authenticationSASLFinal', 'parameterStatus', 'backendKeyData', 'rowDescription',
      'dataRow', 'commandComplete', 'emptyQuery', 'parseComplete', 'bindComplete', 'closeComplete', 'noData',
      'portalSuspended', 'parameterDescription', 'copyInResponse', 'copyOutResponse', 'copyData', 'copyDone', 'error',
      'notice', 'readyForQuery',
    ]);
    assert.deepEqual(msgs[2]!.salt, Buffer.from([1, 2, 3, 4]));
    assert.deepEqual(msgs[3]!.mechanisms, ['SCRAM-SHA-256']);
    assert.equal(msgs[4]!.data, 'r=abc,s=c2FsdA==,i=4096');
    assert.equal(msgs[6]!.parameterName, 'TimeZone');
    assert.equal(msgs[7]!.processID, 77);
    assert.equal(msgs[7]!.secretKey, -9);
    const fields = msgs[8]!.fields as Record<string, unknown>[];
    assert.deepEqual(fields.map((f) => [f.name, f.tableID, f.columnID, f.dataTypeID, f.dataTypeSize, f.dataTypeModifier, f.format]), [
      ['a', 16384, 1, 23, 4, -1, 'text'], ['b', 0, 0, 1043, -1, 14, 'binary'],
    ]);
    assert.deepEqual(msgs[9]!.fields, ['12', null]);
    assert.equal(msgs[10]!.text, 'SELECT 1');
    assert.deepEqual(msgs[17]!.dataTypeIDs, [23, 25]);
    assert.equal(msgs[18]!.binary, false);
    assert.equal(msgs[19]!.binary, true);
    const err = msgs[22]!;
    assert.equal(err.severity, 'ERROR');
    assert.equal(err.code, '42601');
    assert.equal(err.message, 'bad');
    assert.equal(err.detail, 'd');
    assert.equal(err.hint, 'h');
    assert.equal(err.position, '7');
    assert.equal(msgs[24]!.status, 'T');
  });
});

test('DataRow written in place by RowEncoder matches pg-protocol parsing, ASCII fast path or not', () => {
  const values = ['', 'a'.repeat(32), 'b'.repeat(33), 'héllo', '😀 x', 'x'.repeat(5000), null];
  const cols = values.map((_, i) => ({ name: `c${i}`, tableOid: 0, columnNumber: 0, typeOid: 25, typeSize: -1, typeModifier: -1 }));
  const batch = { numRows: 1, columns: values.map((v) => ({ get: () => v })) };
  const w = new MessageWriter(16);
  new RowEncoder(cols, []).writeRow(w, batch, 0, { timeZone: 'UTC' });
  const viaObject = encode({ kind: 'DataRow', values: new RowEncoder(cols, []).encode(batch, 0, { timeZone: 'UTC' }) });
  const bytes = w.take();
  assert.deepEqual(bytes, viaObject);
  const [m] = parseBackend(bytes) as unknown as { fields: unknown[] }[];
  assert.deepEqual(m!.fields, values);
});
