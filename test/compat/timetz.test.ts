import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { binaryQuery } from '../harness/binary-query.js';
import type { ConnectTarget } from '../harness/run-psql.js';
import { gatewayAndOracleForSuite, sameOnBoth, type GatewayAndOracle } from '../lakesql/gateway-and-oracle.js';

/** time with time zone (timetz): input forms, output, order, casts, extract, storage, catalog and binary form. Differential against PostgreSQL 15. */
describe('timetz matches PostgreSQL 15', () => {
  let both: GatewayAndOracle;
  gatewayAndOracleForSuite([
    'CREATE TABLE tz (id integer PRIMARY KEY, t timetz, l time with time zone[])',
    `INSERT INTO tz VALUES (1, '10:00:00+02', '{10:00+02,NULL}'), (2, '09:00:00+01', NULL), (3, '08:00:00+00', NULL),
      (4, '23:59:59.999999-15:59', NULL), (5, NULL, NULL), (6, '10:00:00+02', '{}')`,
  ], (b) => { both = b; });

  test('input forms, output and input errors', async () => {
    await sameOnBoth(both, [
      `SELECT '10:00:00+02'::timetz, '10:00:00.123456-03:30'::timetz, '10:00 PST'::timetz, '10:00'::timetz, '24:00:00+00'::timetz,
        '10:00:00+15:59'::timetz, 'allballs'::timetz, '2020-01-01 10:00:00+05'::timetz, '10:00 Z'::timetz, '10:00:00 +0530'::timetz,
        '1:00 pm +02'::timetz, '2020-06-01 10:00 Europe/Paris'::timetz, '10:00+02:30:15'::timetz, time with time zone '07:30-01'`,
      `SELECT '10:00:00+16'::timetz`,
      `SELECT '25:00+00'::timetz`,
      `SELECT '10:00 foo'::timetz`,
      `SELECT '10:00:00 Europe/Paris'::timetz`,
      `SELECT '{10:00+02,11:00-01}'::timetz[], pg_typeof('10:00+02'::timetz), pg_typeof(current_time), pg_typeof(localtime)`,
    ]);
  });

  test('comparison by instant then zone, casts, arithmetic and extract', async () => {
    await sameOnBoth(both, [
      `SELECT '10:00:00+02'::timetz = '09:00:00+01'::timetz, '10:00:00+02'::timetz < '09:00:00+01'::timetz,
        '10:00:00+02'::timetz = '10:00:00+02'::timetz, '10:00:00+02'::timetz > '09:00:00+00'::timetz`,
      `SELECT '10:00:00+02'::timetz::time, '10:00:00'::time::timetz, '2020-01-01 10:00:00+05'::timestamptz::timetz,
        '10:00+02'::timetz::text, '10:00+02'::text::timetz, '11:30-04'::timetz::varchar`,
      `SELECT '10:00'::timetz::timestamptz`,
      `SELECT '10:00:00+02'::timetz + interval '1 hour', '23:00:00+02'::timetz + interval '2 hours', '10:00:00+02'::timetz - interval '11 hours',
        interval '90 minutes' + '10:00:00-01'::timetz`,
      `SELECT extract(timezone from '10:00-03:30'::timetz), extract(timezone_hour from '10:00-03:30'::timetz),
        extract(timezone_minute from '10:00-03:30'::timetz), extract(hour from '10:45:30.5+01'::timetz), extract(minute from '10:45:30.5+01'::timetz),
        extract(second from '10:45:30.5+01'::timetz), extract(milliseconds from '10:45:30.5+01'::timetz), extract(microseconds from '10:45:30.5+01'::timetz),
        extract(epoch from '10:00:00+02'::timetz), date_part('second', '10:45:30.5+01'::timetz), date_part('epoch', '10:00:00-02'::timetz)`,
      `SELECT extract(day from '10:45:30.5+01'::timetz)`,
      `SET TimeZone = 'America/New_York'`,
      `SELECT '10:00'::timetz, '10:00'::time::timetz, '2020-07-01 10:00:00+05'::timestamptz::timetz, current_time::text ~ '-0[45]$'`,
      `RESET TimeZone`,
    ]);
  });

  test('stored in a table: order, filters, grouping, min/max, keys', async () => {
    await sameOnBoth(both, [
      'SELECT * FROM tz ORDER BY t, id',
      'SELECT * FROM tz ORDER BY t DESC NULLS LAST, id',
      `SELECT id FROM tz WHERE t = '09:00:00+01' ORDER BY id`,
      `SELECT id FROM tz WHERE t = '10:00:00+02'::timetz ORDER BY id`,
      `SELECT id FROM tz WHERE t > '07:00:00+00' AND t < '09:00+01' ORDER BY id`,
      'SELECT t, count(*) FROM tz GROUP BY t ORDER BY t',
      'SELECT min(t), max(t), count(DISTINCT t) FROM tz',
      `UPDATE tz SET t = t + interval '30 minutes' WHERE id = 3`,
      'SELECT id, t, t::time FROM tz ORDER BY id',
      'CREATE TABLE tzk (k timetz PRIMARY KEY, v integer)',
      `INSERT INTO tzk VALUES ('10:00+02', 1), ('09:00+01', 2)`,
      `INSERT INTO tzk VALUES ('10:00:00+02', 3)`,
      'SELECT * FROM tzk ORDER BY k',
    ]);
  });

  test('catalog: pg_type, format_type, information_schema', async () => {
    await sameOnBoth(both, [
      `SELECT oid, typname, typlen, typbyval, typalign, typcategory, typarray, typelem FROM pg_type WHERE oid IN (1266, 1270) ORDER BY oid`,
      `SELECT format_type(1266, -1), format_type(1270, -1), 'timetz'::regtype::oid, 'time with time zone[]'::regtype::oid`,
      `SELECT column_name, data_type, datetime_precision, udt_name FROM information_schema.columns WHERE table_name = 'tz' ORDER BY ordinal_position`,
      `SELECT attname, atttypid, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'tz'::regclass AND attnum > 0 ORDER BY attnum`,
    ]);
  });

  test('binary results carry PostgreSQL\'s bytes (int64 µs, int32 zone west of UTC)', async () => {
    const floe: ConnectTarget = { port: both.g.server.port, host: '127.0.0.1' };
    const o = both.oracle;
    const oracle: ConnectTarget = { port: o.port, host: o.host, user: o.user, database: o.database };
    const sql = `SELECT t, l, '24:00:00-15:59:59'::timetz FROM tz WHERE id IN (1, 4, 5) ORDER BY id`;
    const [got, want] = await Promise.all([binaryQuery(floe, sql, []), binaryQuery(oracle, sql, [])]);
    assert.deepEqual(got.fields.map((f) => [f.dataTypeID, f.format]), [[1266, 'binary'], [1270, 'binary'], [1266, 'binary']]);
    assert.deepEqual(got.fields.map((f) => f.dataTypeID), want.fields.map((f) => f.dataTypeID));
    assert.deepEqual(got.rows.map((r) => r.map((b) => b?.toString('hex') ?? null)), want.rows.map((r) => r.map((b) => b?.toString('hex') ?? null)));
    // 10:00:00+02: 36e9 µs, zone −7200 s (west).
    assert.equal(got.rows[0]![0]!.readBigInt64BE(0), 36_000_000_000n);
    assert.equal(got.rows[0]![0]!.readInt32BE(8), -7200);
  });

  test('binary parameters are read as timetz_recv reads them', async () => {
    // node-postgres sends text parameters; a binary Bind through pg's prepared statement with a Buffer is the binary path.
    const param = Buffer.alloc(12);
    param.writeBigInt64BE(45_000_000_000n, 0);
    param.writeInt32BE(12_600, 8);
    for (const c of [both.g.client, both.oracle]) {
      const r = await c.query<{ v: string }>('SELECT $1::timetz::text AS v', [param]);
      assert.equal(r.rows[0]!.v, '12:30:00-03:30');
    }
  });
});
