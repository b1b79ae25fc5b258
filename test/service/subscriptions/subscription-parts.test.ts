import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodePgOutput, streamedChangeXid } from '../../../src/service/subscriptions/pgoutput-messages.js';
import { parseConninfo } from '../../../src/service/subscriptions/conninfo.js';
import { createSubscriptionOptions } from '../../../src/service/subscriptions/subscription-options.js';
import { sourceColumnType } from '../../../src/service/subscriptions/source-column-type.js';
import { formatLsn, parseLsn } from '../../../src/common/pg-lsn.js';
import { keyString } from '../../../src/service/subscriptions/value-identity.js';

/** Builds a message the way pgoutput lays it out: a tag byte, then big-endian fields. */
class Bytes {
  readonly parts: Buffer[] = [];
  tag(c: string): this { return this.u8(c.charCodeAt(0)); }
  u8(v: number): this { const b = Buffer.alloc(1); b.writeUInt8(v); this.parts.push(b); return this; }
  u16(v: number): this { const b = Buffer.alloc(2); b.writeUInt16BE(v); this.parts.push(b); return this; }
  u32(v: number): this { const b = Buffer.alloc(4); b.writeUInt32BE(v); this.parts.push(b); return this; }
  i32(v: number): this { const b = Buffer.alloc(4); b.writeInt32BE(v); this.parts.push(b); return this; }
  u64(v: bigint): this { const b = Buffer.alloc(8); b.writeBigUInt64BE(v); this.parts.push(b); return this; }
  str(s: string): this { this.parts.push(Buffer.from(`${s}\0`, 'utf8')); return this; }
  text(s: string): this { const b = Buffer.from(s, 'utf8'); this.tag('t').u32(b.length); this.parts.push(b); return this; }
  get buffer(): Buffer { return Buffer.concat(this.parts); }
}

test('pgoutput: begin, relation, insert, update with old key, delete, truncate and commit decode', () => {
  const begin = decodePgOutput(new Bytes().tag('B').u64(0x16b3748n).u64(0n).u32(742).buffer);
  assert.deepEqual(begin, { tag: 'begin', finalLsn: 0x16b3748n, commitMicros: 946_684_800_000_000n, xid: 742 });

  const rel = decodePgOutput(new Bytes().tag('R').u32(16390).str('public').str('items').tag('d').u16(2)
    .u8(1).str('id').u32(23).i32(-1).u8(0).str('price').u32(1700).i32(((12 << 16) | 2) + 4).buffer);
  assert.deepEqual(rel, {
    tag: 'relation', relationId: 16390, schema: 'public', name: 'items', replicaIdentity: 'd',
    columns: [{ name: 'id', typeOid: 23, typmod: -1, key: true }, { name: 'price', typeOid: 1700, typmod: 786438, key: false }],
  });

  const ins = decodePgOutput(new Bytes().tag('I').u32(16390).tag('N').u16(3).text('7').tag('n').tag('u').buffer);
  assert.deepEqual(ins, { tag: 'insert', relationId: 16390, row: ['7', null, { unchanged: true }] });

  const upd = decodePgOutput(new Bytes().tag('U').u32(16390).tag('K').u16(2).text('7').tag('n').tag('N').u16(2).text('8').text('1.50').buffer);
  assert.deepEqual(upd, { tag: 'update', relationId: 16390, old: { kind: 'key', values: ['7', null] }, row: ['8', '1.50'] });

  const plainUpd = decodePgOutput(new Bytes().tag('U').u32(16390).tag('N').u16(1).text('9').buffer);
  assert.deepEqual(plainUpd, { tag: 'update', relationId: 16390, old: undefined, row: ['9'] });

  const del = decodePgOutput(new Bytes().tag('D').u32(16390).tag('O').u16(1).text('8').buffer);
  assert.deepEqual(del, { tag: 'delete', relationId: 16390, old: { kind: 'row', values: ['8'] } });

  const trunc = decodePgOutput(new Bytes().tag('T').u32(2).u8(1).u32(16390).u32(16391).buffer);
  assert.deepEqual(trunc, { tag: 'truncate', relationIds: [16390, 16391], cascade: true, restartIdentity: false });

  const commit = decodePgOutput(new Bytes().tag('C').u8(0).u64(0x16b3748n).u64(0x16b3778n).u64(1_000_000n).buffer);
  assert.deepEqual(commit, { tag: 'commit', commitLsn: 0x16b3748n, endLsn: 0x16b3778n, commitMicros: 946_684_801_000_000n });

  assert.throws(() => decodePgOutput(new Bytes().tag('I').u32(1).tag('N').u16(1).tag('t').u32(10).buffer), /ends early/);
});

test('pgoutput protocol 2: stream start, stop, commit and abort, and changes that carry their xid inside a block', () => {
  assert.deepEqual(decodePgOutput(new Bytes().tag('S').u32(901).u8(1).buffer), { tag: 'streamStart', xid: 901, firstSegment: true });
  assert.deepEqual(decodePgOutput(new Bytes().tag('S').u32(901).u8(0).buffer), { tag: 'streamStart', xid: 901, firstSegment: false });
  assert.deepEqual(decodePgOutput(new Bytes().tag('E').buffer), { tag: 'streamStop' });
  assert.deepEqual(decodePgOutput(new Bytes().tag('c').u32(901).u8(0).u64(0x2000n).u64(0x2030n).u64(2_000_000n).buffer),
    { tag: 'streamCommit', xid: 901, commitLsn: 0x2000n, endLsn: 0x2030n, commitMicros: 946_684_802_000_000n });
  assert.deepEqual(decodePgOutput(new Bytes().tag('A').u32(901).u32(905).buffer), { tag: 'streamAbort', xid: 901, subxid: 905 });

  // Inside a block, an insert of subtransaction 905 carries its xid after the tag; the stream's own messages carry none.
  const streamedInsert = new Bytes().tag('I').u32(905).u32(16390).tag('N').u16(1).text('7').buffer;
  assert.equal(streamedChangeXid(streamedInsert), 905);
  assert.deepEqual(decodePgOutput(streamedInsert, { streamed: true }), { tag: 'insert', relationId: 16390, row: ['7'] });
  const streamedRelation = new Bytes().tag('R').u32(901).u32(16390).str('public').str('items').tag('d').u16(1).u8(1).str('id').u32(23).i32(-1).buffer;
  assert.equal(streamedChangeXid(streamedRelation), 901);
  assert.equal((decodePgOutput(streamedRelation, { streamed: true }) as { name: string }).name, 'items');
  assert.equal(streamedChangeXid(new Bytes().tag('E').buffer), undefined);
  assert.equal(streamedChangeXid(new Bytes().tag('c').u32(901).u8(0).u64(1n).u64(2n).u64(3n).buffer), undefined);
});

test('LSNs print and parse as PostgreSQL writes them', () => {
  assert.equal(formatLsn(0x16b3748n), '0/16B3748');
  assert.equal(formatLsn((3n << 32n) | 0xffn), '3/FF');
  assert.equal(parseLsn('3/FF'), (3n << 32n) | 0xffn);
  assert.equal(parseLsn('nonsense'), undefined);
});

test('conninfo: keyword pairs with quotes, URIs, and libpq\'s error for an unknown keyword', () => {
  assert.deepEqual(parseConninfo(`host=127.0.0.1 port=5432 dbname='my db' user=bob password='it\\'s'`),
    { host: '127.0.0.1', port: 5432, database: 'my db', user: 'bob', password: "it's" });
  assert.deepEqual(parseConninfo('postgres://bob:pw@db.example:6543/sales?application_name=x'),
    { host: 'db.example', port: 6543, database: 'sales', user: 'bob', password: 'pw', applicationName: 'x' });
  assert.throws(() => parseConninfo('hots=x'), (e: Error & { sqlstate?: string }) => e.sqlstate === '42601' && /invalid connection option "hots"/.test(e.message));
});

test('CREATE SUBSCRIPTION options: PostgreSQL\'s defaults and mutually exclusive pairs', () => {
  const d = createSubscriptionOptions('s1', []);
  assert.deepEqual([d.connect, d.enabled, d.createSlot, d.slotName, d.copyData, d.createTables], [true, true, true, 's1', true, true]);
  const off = createSubscriptionOptions('s1', [{ name: 'connect', value: 'false' }]);
  assert.deepEqual([off.enabled, off.createSlot, off.copyData], [false, false, false]);
  const none = createSubscriptionOptions('s1', [{ name: 'slot_name', value: 'NONE' }, { name: 'enabled', value: 'false' }, { name: 'create_slot', value: 'false' }]);
  assert.equal(none.slotName, undefined);
  const err = (opts: { name: string; value: string }[], re: RegExp) =>
    assert.throws(() => createSubscriptionOptions('s1', opts), (e: Error & { sqlstate?: string }) => e.sqlstate === '42601' && re.test(e.message));
  err([{ name: 'connect', value: 'false' }, { name: 'copy_data', value: 'true' }], /connect = false and copy_data = true are mutually exclusive options/);
  err([{ name: 'slot_name', value: 'none' }], /must also set enabled = false/);
  err([{ name: 'nonsense', value: 'true' }], /unrecognized subscription parameter: "nonsense"/);
  err([{ name: 'copy_data', value: 'maybe' }], /copy_data requires a Boolean value/);
  err([{ name: 'binary', value: 'on' }, { name: 'binary', value: 'off' }], /conflicting or redundant options/);
  assert.throws(() => createSubscriptionOptions('Bad-Name', []), /contains invalid character/);
});

test('source types map to Floe types with their modifiers; unknown ones are text', () => {
  assert.deepEqual(sourceColumnType(1700, ((12 << 16) | 2) + 4), { kind: 'numeric', precision: 12, scale: 2 });
  assert.deepEqual(sourceColumnType(1700, -1), { kind: 'numeric' });
  assert.deepEqual(sourceColumnType(1043, 14), { kind: 'varchar', length: 10 });
  assert.deepEqual(sourceColumnType(1009, -1), { kind: 'array', element: { kind: 'text' } });
  assert.deepEqual(sourceColumnType(2950, -1), { kind: 'uuid' });
  assert.deepEqual(sourceColumnType(99999, -1), { kind: 'text' });
});

test('batch keys tell bigints, bytes and strings apart', () => {
  assert.notEqual(keyString([1n]), keyString(['1']));
  assert.notEqual(keyString([new Uint8Array([1])]), keyString([[1]]));
  assert.equal(keyString([5n, 'a']), keyString([5n, 'a']));
});
