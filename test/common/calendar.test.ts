import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkDateFields, checkDateRange, checkTimeFields, checkTimestampRange, checkZoneDisplacement, END_DATE_DAYS, MIN_DATE_DAYS,
  MIN_TIMESTAMP_MICROS, isValidTimestampMicros,
} from '../../src/common/calendar.js';
import { daysFromCivil, parseDate, parseTime, parseTimestamp, parseTimestamptz } from '../../src/common/datetime.js';
import { codecForOid } from '../../src/wire/index.js';

const refused = (sqlstate: string, message: string) => (e: unknown) => {
  const x = e as { sqlstate?: string; message?: string };
  assert.equal(x.sqlstate, sqlstate);
  assert.equal(x.message, message);
  return true;
};

describe('calendar validators (src/common/calendar.ts)', () => {
  it('checkDateFields: months 1-12, days that exist, Feb 29 only in leap years, no year 0', () => {
    assert.equal(checkDateFields(2024, false, 2, 29, 't'), 2024);
    assert.equal(checkDateFields(2000, false, 2, 29, 't'), 2000);
    assert.equal(checkDateFields(1, true, 1, 1, 't'), 0, '1 BC is astronomical year 0');
    assert.equal(checkDateFields(5, true, 2, 29, 't'), -4, '5 BC (year -4) is a leap year');
    for (const [y, m, d] of [[2023, 2, 29], [1900, 2, 29], [2024, 2, 30], [2024, 4, 31], [2024, 13, 1], [2024, 0, 1], [2024, 1, 0], [2024, 1, 32], [0, 1, 1]] as const) {
      assert.throws(() => checkDateFields(y, false, m, d, `${y}-${m}-${d}`), refused('22008', `date/time field value out of range: "${y}-${m}-${d}"`));
    }
    assert.throws(() => checkDateFields(0, true, 1, 1, 'x'), refused('22008', 'date/time field value out of range: "x"'));
  });

  it('checkTimeFields: minute 59, second 60 (leap), hour 24 only as 24:00:00', () => {
    checkTimeFields(24, 0, 0, 0, 't');
    checkTimeFields(23, 59, 60, 0, 't');
    for (const [h, m, s, f] of [[25, 0, 0, 0], [24, 0, 0, 1], [24, 0, 1, 0], [12, 60, 0, 0], [12, 0, 61, 0], [-1, 0, 0, 0]] as const) {
      assert.throws(() => checkTimeFields(h, m, s, f, 'x'), refused('22008', 'date/time field value out of range: "x"'));
    }
  });

  it('checkZoneDisplacement: at most 15:59:59 either way (22009)', () => {
    checkZoneDisplacement(15 * 3600 + 59 * 60 + 59, 't');
    checkZoneDisplacement(-14 * 3600, 't');
    assert.throws(() => checkZoneDisplacement(16 * 3600, 'x'), refused('22009', 'time zone displacement out of range: "x"'));
  });

  it('ranges: dates 4714-11-24 BC to 5874897-12-31, timestamps from 4714-11-24 BC; infinities pass', () => {
    assert.equal(MIN_DATE_DAYS, daysFromCivil(-4713, 11, 24));
    assert.equal(END_DATE_DAYS, daysFromCivil(5874898, 1, 1));
    assert.equal(checkDateRange(MIN_DATE_DAYS, 't'), MIN_DATE_DAYS);
    assert.equal(checkDateRange(Infinity, 't'), Infinity);
    assert.throws(() => checkDateRange(MIN_DATE_DAYS - 1, 'x'), refused('22008', 'date out of range: "x"'));
    assert.throws(() => checkDateRange(END_DATE_DAYS, 'x'), refused('22008', 'date out of range: "x"'));
    assert.equal(MIN_TIMESTAMP_MICROS, BigInt(MIN_DATE_DAYS) * 86_400_000_000n);
    assert.ok(isValidTimestampMicros(MIN_TIMESTAMP_MICROS));
    assert.ok(!isValidTimestampMicros(MIN_TIMESTAMP_MICROS - 1n));
    assert.equal(checkTimestampRange(2n ** 63n - 1n, 't'), 2n ** 63n - 1n, '+infinity');
    assert.throws(() => checkTimestampRange(MIN_TIMESTAMP_MICROS - 1n, 'x'), refused('22008', 'timestamp out of range: "x"'));
  });
});

describe('one date/time grammar for casts and wire parameters', () => {
  const utc = { timeZone: 'UTC' };
  const inputs: [oid: number, text: string][] = [
    [1082, '2024-02-29'], [1082, '2024-02-30'], [1082, '0000-01-01'], [1082, 'June 15, 2024'], [1082, '12-25-99'], [1082, '5874898-01-01'],
    [1114, '2024-01-01 24:00:00'], [1114, '2024-01-01 25:00'], [1114, '2024-01-01 23:60'], [1114, '4714-11-23 23:59:59 BC'],
    [1184, '2024-06-15 12:00+16'], [1184, '2024-04-31 01:00+02'], [1184, '2024-03-10 02:30 America/New_York'],
    [1083, '24:00:00'], [1083, '23:59:60.5'], [1083, '10:00 pm'], [1083, '25:00'],
  ];
  const viaCast = (oid: number, text: string): unknown => {
    switch (oid) {
      case 1082: return parseDate(text);
      case 1114: return parseTimestamp(text);
      case 1184: return parseTimestamptz(text, 'UTC');
      default: return parseTime(text);
    }
  };
  const outcome = (f: () => unknown): string => {
    try {
      return `ok ${String(f())}`;
    } catch (e) {
      return `${(e as { sqlstate?: string }).sqlstate} ${(e as Error).message}`;
    }
  };
  it('the wire codecs accept and refuse exactly what the executor does', () => {
    for (const [oid, text] of inputs) {
      assert.equal(outcome(() => codecForOid(oid).decodeText(text, utc)), outcome(() => viaCast(oid, text)), `${oid} '${text}'`);
    }
    assert.equal(outcome(() => parseDate('2024-02-30')), '22008 date/time field value out of range: "2024-02-30"');
  });

  it('binary dates and timestamps outside the range are 22008, as date_recv and timestamp_recv answer', () => {
    const int32 = (v: number) => { const b = Buffer.alloc(4); b.writeInt32BE(v); return b; };
    const int64 = (v: bigint) => { const b = Buffer.alloc(8); b.writeBigInt64BE(v); return b; };
    const pgEpochDays = 10957;
    assert.equal(codecForOid(1082).decodeBinary(int32(MIN_DATE_DAYS - pgEpochDays), utc), MIN_DATE_DAYS);
    assert.throws(() => codecForOid(1082).decodeBinary(int32(MIN_DATE_DAYS - pgEpochDays - 1), utc), refused('22008', 'date out of range'));
    assert.throws(() => codecForOid(1082).decodeBinary(int32(END_DATE_DAYS - pgEpochDays), utc), refused('22008', 'date out of range'));
    assert.equal(codecForOid(1082).decodeBinary(int32(0x7fffffff), utc), Infinity);
    assert.throws(() => codecForOid(1114).decodeBinary(int64(-211813488000000001n), utc), refused('22008', 'timestamp out of range'));
    // Just below +infinity in PostgreSQL's 2000-based form: past what 1970-based int64 microseconds hold.
    assert.throws(() => codecForOid(1184).decodeBinary(int64(2n ** 63n - 2n), utc), refused('22008', 'timestamp out of range'));
    assert.throws(() => codecForOid(1083).decodeBinary(int64(86_400_000_001n), utc), refused('22P03', 'time out of range'));
  });
});
