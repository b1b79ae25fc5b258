import { describe, test } from 'node:test';
import { gatewayAndOracleForSuite, sameOnBoth, type GatewayAndOracle } from '../lakesql/gateway-and-oracle.js';

/**
 * Window frames `RANGE BETWEEN <offset> PRECEDING AND … FOLLOWING` over
 * timestamps, dates and numbers, ascending and descending, with NULLs in the
 * ORDER BY key and peers: differential against PostgreSQL 15.
 */
const setup = [
  'CREATE TABLE ev (id int PRIMARY KEY, g text, ts timestamp, tz timestamptz, d date, n int, x numeric, f float8, b bigint)',
  `INSERT INTO ev VALUES
    (1, 'a', '2024-01-01 00:00', '2024-01-01 00:00+00', '2024-01-01', 1, 1.5, 0.5, 100),
    (2, 'a', '2024-01-01 12:00', '2024-01-01 12:00+00', '2024-01-02', 2, 2.25, 1.0, 200),
    (3, 'a', '2024-01-02 00:00', '2024-01-02 00:00+00', '2024-01-02', 2, 2.25, 1.5, 300),
    (4, 'a', '2024-01-05 06:00', '2024-01-05 06:00+00', '2024-01-05', 5, 4.75, 3.0, 700),
    (5, 'a', NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (6, 'b', '2024-02-28 00:00', '2024-02-28 00:00+00', '2024-02-28', 10, 10.1, 10.0, 1000),
    (7, 'b', '2024-03-01 00:00', '2024-03-01 00:00+00', '2024-03-01', 12, 12.0, 12.5, 1200),
    (8, 'b', '2024-03-31 00:00', '2024-03-31 00:00+00', '2024-03-31', 40, 40.0, 40.0, 4000),
    (9, 'b', NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
];

const frames = [
  'RANGE BETWEEN INTERVAL \'1 day\' PRECEDING AND CURRENT ROW',
  'RANGE BETWEEN INTERVAL \'12 hours\' PRECEDING AND INTERVAL \'12 hours\' FOLLOWING',
  'RANGE BETWEEN CURRENT ROW AND INTERVAL \'1 month\' FOLLOWING',
  'RANGE BETWEEN INTERVAL \'3 days\' FOLLOWING AND UNBOUNDED FOLLOWING',
  'RANGE BETWEEN UNBOUNDED PRECEDING AND INTERVAL \'1 day\' PRECEDING',
];

describe('RANGE frames with offsets match PostgreSQL 15', () => {
  let both: GatewayAndOracle;
  gatewayAndOracleForSuite(setup, (b) => { both = b; });

  test('timestamps, timestamptz and dates with interval offsets', async () => {
    const statements: string[] = [];
    for (const key of ['ts', 'tz', 'd']) {
      for (const dir of ['ASC', 'DESC', 'ASC NULLS FIRST', 'DESC NULLS LAST']) {
        for (const frame of frames) {
          statements.push(`SELECT id, count(*) OVER w, sum(n) OVER w, min(id) OVER w, max(id) OVER w FROM ev
            WINDOW w AS (PARTITION BY g ORDER BY ${key} ${dir} ${frame}) ORDER BY id`);
        }
      }
    }
    await sameOnBoth(both, statements);
  });

  test('numbers: int, bigint, numeric and float8 keys', async () => {
    const statements: string[] = [];
    for (const [key, offsets] of [['n', ['1', '3']], ['b', ['100', '250']], ['x', ['0.75', '1']], ['f', ['0.5', '2']]] as const) {
      for (const dir of ['ASC', 'DESC']) {
        for (const off of offsets) {
          statements.push(`SELECT id, count(*) OVER w, sum(id) OVER w, min(id) OVER w, max(id) OVER w FROM ev
            WINDOW w AS (ORDER BY ${key} ${dir} RANGE BETWEEN ${off} PRECEDING AND ${off} FOLLOWING) ORDER BY id`);
          statements.push(`SELECT id, count(*) OVER (PARTITION BY g ORDER BY ${key} ${dir} RANGE BETWEEN CURRENT ROW AND ${off} FOLLOWING) FROM ev ORDER BY id`);
        }
      }
    }
    await sameOnBoth(both, statements);
  });

  test('errors', async () => {
    await sameOnBoth(both, [
      `SELECT id, count(*) OVER (ORDER BY n RANGE BETWEEN -1 PRECEDING AND CURRENT ROW) FROM ev`,
      `SELECT id, count(*) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '-1 day' PRECEDING AND CURRENT ROW) FROM ev`,
      `SELECT id, count(*) OVER (ORDER BY n ROWS BETWEEN -1 PRECEDING AND CURRENT ROW) FROM ev`,
      `SELECT id, count(*) OVER (ORDER BY ts RANGE BETWEEN NULL::interval PRECEDING AND CURRENT ROW) FROM ev`,
    ]);
  });
});
