import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FloeError } from '../../src/common/floe-error.js';
import { codecForOid } from '../../src/wire/codecs/codec-for-oid.js';
import { formatFloat4, formatFloat8 } from '../../src/wire/codecs/float-text.js';
import { formatInterval, parseInterval } from '../../src/wire/codecs/interval-codec.js';

/** Expected values are what PostgreSQL 15.18 printed and its *_send functions returned. */
const utc = { timeZone: 'UTC' };
const ny = { timeZone: 'America/New_York' };

function hex(oid: number, value: unknown, ctx = utc): string {
  return codecForOid(oid).encodeBinary(value, ctx).toString('hex');
}
function text(oid: number, value: unknown, ctx = utc): string {
  return codecForOid(oid).encodeText(value, ctx);
}
function roundTrip(oid: number, value: unknown, ctx = utc): void {
  const c = codecForOid(oid);
  assert.deepEqual(c.decodeBinary(c.encodeBinary(value, ctx), ctx), value, `binary ${oid}`);
  assert.deepEqual(c.decodeText(c.encodeText(value, ctx), ctx), value, `text ${oid}`);
}

describe('scalar codecs', () => {
  test('bool, int2/4/8, oid', () => {
    assert.equal(text(16, true), 't');
    assert.equal(hex(16, false), '00');
    assert.equal(hex(21, -2), 'fffe');
    assert.equal(hex(23, 123456), '0001e240');
    assert.equal(hex(20, -1n), 'ffffffffffffffff');
    assert.equal(text(20, 9007199254740993n), '9007199254740993');
    assert.equal(hex(26, 4294967295), 'ffffffff');
    assert.equal(text(2205, 1259), '1259');
    for (const [oid, v] of [[16, true], [21, -32768], [23, 2147483647], [20, -9223372036854775808n], [26, 3000000000]] as const) roundTrip(oid, v);
    for (const t of ['yes', 'on', 'TRUE', '1', 't']) assert.equal(codecForOid(16).decodeText(t, utc), true);
    assert.equal(codecForOid(16).decodeText('off', utc), false);
  });

  test('integer input errors use PostgreSQL SQLSTATEs', () => {
    assert.throws(() => codecForOid(23).decodeText('abc', utc), (e: FloeError) => e.sqlstate === '22P02' && e.message === 'invalid input syntax for type integer: "abc"');
    assert.throws(() => codecForOid(21).decodeText('40000', utc), (e: FloeError) => e.sqlstate === '22003' && e.message === 'value "40000" is out of range for type smallint');
    assert.throws(() => codecForOid(20).decodeText('9223372036854775808', utc), (e: FloeError) => e.sqlstate === '22003');
    assert.throws(() => codecForOid(23).decodeBinary(Buffer.alloc(3), utc), (e: FloeError) => e.sqlstate === '22P03');
  });

  test('float4/float8 text is PostgreSQL 15 shortest round-trip form', () => {
    const f8: [number, string][] = [
      [1e15, '1e+15'], [1e14, '100000000000000'], [123456789012345680, '1.2345678901234568e+17'], [1e-5, '1e-05'],
      [0.0001, '0.0001'], [NaN, 'NaN'], [-Infinity, '-Infinity'], [Infinity, 'Infinity'], [0.1 + 0.2, '0.30000000000000004'],
      [-0, '-0'], [0, '0'], [1.5, '1.5'], [-123.25, '-123.25'], [5e-324, '5e-324'], [1.7976931348623157e308, '1.7976931348623157e+308'],
      // JavaScript's shortest form sits exactly halfway to the neighbouring double here; Ryu adds a digit.
      [52462674229887260, '5.2462674229887264e+16'], [-85952503543802600, '-8.595250354380259e+16'],
    ];
    for (const [v, s] of f8) assert.equal(formatFloat8(v), s, String(v));
    const f4: [number, string][] = [
      [1e6, '1e+06'], [123456, '123456'], [1.1, '1.1'], [3.4028235e38, '3.4028235e+38'], [1e-45, '1e-45'], [0.1, '0.1'],
      // exact decimal ties in the last digit round to even, as Ryu does
      [-3533760.25, '-3.5337602e+06'], [40600.5625, '40600.562'], [350981.125, '350981.12'],
    ];
    for (const [v, s] of f4) assert.equal(formatFloat4(v), s, String(v));
    assert.equal(hex(701, 1.5), '3ff8000000000000');
    assert.equal(hex(700, 1.5), '3fc00000');
    assert.equal(codecForOid(701).decodeText('-Infinity', utc), -Infinity);
    assert.ok(Number.isNaN(codecForOid(701).decodeText('nan', utc)));
    assert.equal(codecForOid(700).decodeText('1.1', utc), Math.fround(1.1));
    assert.throws(() => codecForOid(701).decodeText('1e400', utc), (e: FloeError) => e.sqlstate === '22003');
    assert.throws(() => codecForOid(701).decodeText('', utc), (e: FloeError) => e.sqlstate === '22P02');
  });

  test('numeric binary is base-10000 digits, weight, sign, dscale exactly as numeric_send', () => {
    const cases: [string, string][] = [
      ['12.50', '0002000000000002000c1388'], ['0', '0000000000000000'], ['0.00', '0000000000000002'],
      ['-123456789.000012345', '0006000240000009000109291a85000004d21388'], ['10000', '00010001000000000001'],
      ['0.0001', '0001ffff000000040001'], ['NaN', '00000000c0000000'], ['-Infinity', '00000000f0000020'],
      ['0.0000000001', '0001fffd0000000a0064'],
    ];
    for (const [v, h] of cases) {
      assert.equal(hex(1700, v), h, v);
      assert.equal(codecForOid(1700).decodeBinary(Buffer.from(h, 'hex'), utc), v, `decode ${v}`);
    }
    assert.equal(codecForOid(1700).decodeText('1.5e3', utc), '1500');
    assert.equal(codecForOid(1700).decodeText(' +001.2300 ', utc), '1.2300');
    assert.equal(codecForOid(1700).decodeText('-0.00', utc), '0.00');
    assert.equal(codecForOid(1700).decodeText('1.23e-3', utc), '0.00123');
    assert.equal(text(1700, 2.5), '2.5');
    assert.throws(() => codecForOid(1700).decodeText('1.2.3', utc), (e: FloeError) => e.sqlstate === '22P02');
    assert.throws(() => codecForOid(1700).decodeBinary(Buffer.from('0001000000000000ffff', 'hex'), utc), (e: FloeError) => e.sqlstate === '22P03');
  });

  test('text types, "char", bytea, uuid, json, jsonb', () => {
    for (const oid of [25, 1043, 1042, 19]) {
      assert.equal(hex(oid, 'hé'), '68c3a9');
      roundTrip(oid, 'a b "c"');
    }
    assert.equal(hex(18, 'r'), '72');
    assert.equal(text(17, new Uint8Array([0, 1, 254, 255])), '\\x0001feff');
    assert.deepEqual(codecForOid(17).decodeText('\\x0001FEFF', utc), new Uint8Array([0, 1, 254, 255]));
    assert.deepEqual(codecForOid(17).decodeText('a\\\\b\\001', utc), new Uint8Array([0x61, 0x5c, 0x62, 1]));
    roundTrip(17, new Uint8Array([9, 8, 7]));
    assert.equal(hex(2950, 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'), 'a0eebc999c0b4ef8bb6d6bb9bd380a11');
    assert.equal(codecForOid(2950).decodeText('{a0eebc999c0b4ef8bb6d6bb9bd380a11}', utc), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    roundTrip(2950, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    assert.equal(hex(3802, '{"a": 1}'), '017b2261223a20317d');
    assert.equal(hex(114, '{"a":1}'), '7b2261223a317d');
    roundTrip(3802, '{"a": [1, 2]}');
    assert.throws(() => codecForOid(3802).decodeBinary(Buffer.from('027b7d', 'hex'), utc), (e: FloeError) => e.sqlstate === '22P03');
    assert.throws(() => codecForOid(114).decodeText('{nope', utc), (e: FloeError) => e.sqlstate === '22P02');
  });
});

describe('date and time codecs', () => {
  const days20240310 = 19792;
  test('date', () => {
    assert.equal(text(1082, days20240310), '2024-03-10');
    assert.equal(hex(1082, days20240310), '00002283');
    assert.equal(hex(1082, 10956), 'ffffffff');
    assert.equal(hex(1082, Infinity), '7fffffff');
    assert.equal(text(1082, Infinity), 'infinity');
    assert.equal(codecForOid(1082).decodeText('0001-01-01 BC', utc), (codecForOid(1082).decodeText('0001-01-01', utc) as number) - 366);
    assert.equal(text(1082, codecForOid(1082).decodeText('0044-03-15 BC', utc)), '0044-03-15 BC');
    roundTrip(1082, days20240310);
    roundTrip(1082, -Infinity);
    assert.throws(() => codecForOid(1082).decodeText('2024-02-30', utc), (e: FloeError) => e.sqlstate === '22008');
    assert.throws(() => codecForOid(1082).decodeText('yesterday-ish', utc), (e: FloeError) => e.sqlstate === '22007');
  });

  test('time', () => {
    const us = 47655500000n; // 13:14:15.5
    assert.equal(text(1083, us), '13:14:15.5');
    assert.equal(hex(1083, us), '0000000b187d38e0');
    roundTrip(1083, us);
    assert.equal(codecForOid(1083).decodeText('24:00:00', utc), 86400000000n);
  });

  test('timestamp and timestamptz: µs since 2000-01-01 in binary, ISO text in the session TimeZone', () => {
    const ts = 1710074096789000n; // 2024-03-10 12:34:56.789 UTC
    assert.equal(hex(1184, ts), '0002b64c6bdc4608');
    assert.equal(hex(1114, ts), '0002b64c6bdc4608');
    assert.equal(text(1114, ts), '2024-03-10 12:34:56.789');
    assert.equal(text(1184, ts), '2024-03-10 12:34:56.789+00');
    assert.equal(text(1184, ts, ny), '2024-03-10 08:34:56.789-04');
    assert.equal(text(1184, 1719792000000000n, ny), '2024-06-30 20:00:00-04');
    assert.equal(text(1184, 1710074096000000n, { timeZone: 'Asia/Kolkata' }), '2024-03-10 18:04:56+05:30');
    const jan1 = 1704067200000000n; // 2024-01-01 00:00:00 UTC
    assert.equal(text(1184, jan1, { timeZone: '<+03>-03' }), '2024-01-01 03:00:00+03');
    assert.equal(text(1184, jan1, { timeZone: 'UTC+3' }), '2023-12-31 21:00:00-03');
    assert.equal(text(1184, jan1, { timeZone: '+05:30' }), '2023-12-31 18:30:00-05:30');
    assert.equal(text(1184, jan1, { timeZone: '<-07>+07' }), '2023-12-31 17:00:00-07');
    assert.equal(text(1184, jan1, { timeZone: 'Etc/GMT+3' }), '2023-12-31 21:00:00-03');
    assert.equal(hex(1114, 9223372036854775807n), '7fffffffffffffff');
    assert.equal(text(1184, 9223372036854775807n), 'infinity');
    const bc = codecForOid(1114).decodeText('0044-03-15 12:00:00 BC', utc);
    assert.equal(text(1114, bc), '0044-03-15 12:00:00 BC');
    assert.equal(codecForOid(1184).decodeText('2024-03-10 08:34:56.789-04', utc), ts);
    assert.equal(codecForOid(1184).decodeText('2024-03-10T12:34:56.789Z', utc), ts);
    assert.equal(codecForOid(1184).decodeText('2024-03-10 08:34:56.789', ny), ts, 'local time in the session zone');
    assert.equal(codecForOid(1184).decodeText('2024-03-10 02:30:00', ny), codecForOid(1184).decodeText('2024-03-10 07:30:00+00', utc), 'in the DST gap');
    assert.equal(text(1184, codecForOid(1184).decodeText('2024-11-03 01:30:00', ny), ny), '2024-11-03 01:30:00-05', 'ambiguous');
    for (const oid of [1114, 1184]) {
      roundTrip(oid, ts);
      roundTrip(oid, -9223372036854775808n);
      roundTrip(oid, -62135596800000000n - 1n);
    }
    roundTrip(1184, ts, ny);
  });
});

describe('interval codec', () => {
  test('IntervalStyle postgres output', () => {
    const cases: [{ months: number; days: number; micros: bigint }, string][] = [
      [{ months: -14, days: 3, micros: -14706500000n }, '-1 years -2 mons +3 days -04:05:06.5'],
      [{ months: 0, days: 0, micros: 0n }, '00:00:00'],
      [{ months: 0, days: 1, micros: -1000000n }, '1 day -00:00:01'],
      [{ months: 1, days: -1, micros: 0n }, '1 mon -1 days'],
      [{ months: 0, days: -1, micros: 3600000000n }, '-1 days +01:00:00'],
      [{ months: 0, days: 0, micros: 360000000000n }, '100:00:00'],
      [{ months: 14, days: 3, micros: 14706789000n }, '1 year 2 mons 3 days 04:05:06.789'],
      [{ months: 0, days: 0, micros: -1n }, '-00:00:00.000001'],
    ];
    for (const [iv, s] of cases) {
      assert.equal(formatInterval(iv), s);
      assert.deepEqual(parseInterval(s), iv, `parse ${s}`);
    }
  });

  test('input forms', () => {
    assert.deepEqual(parseInterval('1.5 days'), { months: 0, days: 1, micros: 43200000000n });
    assert.deepEqual(parseInterval('1.5 years'), { months: 18, days: 0, micros: 0n });
    assert.deepEqual(parseInterval('P1Y2M3DT4H5M6S'), { months: 14, days: 3, micros: 14706000000n });
    assert.deepEqual(parseInterval('2 weeks ago'), { months: 0, days: -14, micros: 0n });
    assert.deepEqual(parseInterval('@ 3 hours'), { months: 0, days: 0, micros: 10800000000n });
    assert.throws(() => parseInterval('three days'), (e: FloeError) => e.sqlstate === '22007');
  });

  test('binary: int64 µs, int32 days, int32 months', () => {
    const iv = { months: 14, days: 3, micros: 14706789000n };
    assert.equal(hex(1186, iv), '000000036c97ca88000000030000000e');
    roundTrip(1186, iv);
  });
});

describe('array codecs', () => {
  test('text output quotes like PostgreSQL', () => {
    assert.equal(text(1009, ['', 'NULL', 'a b', 'x"y', 'back\\slash', 'ok', null]), '{"","NULL","a b","x\\"y","back\\\\slash",ok,NULL}');
    assert.equal(text(1001, [new Uint8Array([1, 2])]), '{"\\\\x0102"}');
    assert.equal(text(1022, [1.5, NaN]), '{1.5,NaN}');
    assert.equal(text(1000, [true, false]), '{t,f}');
    assert.equal(text(1007, []), '{}');
  });

  test('binary: ndim, flags, element oid, size/lbound, elements', () => {
    assert.equal(hex(1007, [1, null, 3]), '00000001000000010000001700000003000000010000000400000001ffffffff0000000400000003');
    assert.equal(hex(1009, []), '000000000000000000000019');
    assert.equal(hex(1009, ['a', 'b c']), '0000000100000000000000190000000200000001000000016100000003622063');
  });

  test('round trips and text input', () => {
    roundTrip(1007, [1, null, 3]);
    roundTrip(1009, ['', 'NULL', 'a b', 'x"y', 'back\\slash', null, '{}']);
    roundTrip(1016, [1n, -2n]);
    roundTrip(1231, ['1.50', 'NaN']);
    roundTrip(1185, [1710074096789000n, null]);
    roundTrip(1187, [{ months: 1, days: 2, micros: 3n }]);
    assert.deepEqual(codecForOid(1007).decodeText(' { 1 , 2 ,NULL} ', utc), [1, 2, null]);
    assert.deepEqual(codecForOid(1009).decodeText('{a b,"c"}', utc), ['a b', 'c']);
    assert.deepEqual(codecForOid(1007).decodeText('[1:2]={5,6}', utc), [5, 6]);
    assert.throws(() => codecForOid(1007).decodeText('{1,2', utc), (e: FloeError) => e.sqlstate === '22P02');
    // Multi-dimensional arrays are nested JS arrays, in text and in binary; ragged ones are 22P02 as in array_in.
    assert.deepEqual(codecForOid(1007).decodeText('{{1},{2}}', utc), [[1], [2]]);
    assert.deepEqual(codecForOid(1009).decodeText('{{"a}",NULL},{"",b}}', utc), [['a}', null], ['', 'b']]);
    assert.throws(() => codecForOid(1007).decodeText('{{1,2},{3}}', utc), (e: FloeError) => e.sqlstate === '22P02');
    assert.throws(() => codecForOid(1007).decodeText('{{}}', utc), (e: FloeError) => e.sqlstate === '22P02');
    const twoByThree = [[1, 2, 3], [4, 5, null]];
    assert.deepEqual(codecForOid(1007).decodeBinary(codecForOid(1007).encodeBinary(twoByThree, utc), utc), twoByThree);
    assert.throws(() => codecForOid(1007).decodeBinary(Buffer.from('000000010000000000000019', 'hex'), utc), (e: FloeError) => e.sqlstate === '42804');
  });
});

test('unknown OIDs travel as text', () => {
  assert.equal(text(705, 'abc'), 'abc');
  assert.equal(codecForOid(99999).decodeText('x', utc), 'x');
});
