import { describe, test } from 'node:test';
import { gatewayAndOracleForSuite, sameOnBoth, type GatewayAndOracle } from '../lakesql/gateway-and-oracle.js';

/**
 * Ordered-set aggregates (percentile_cont/disc, mode) and the statistics
 * aggregates (corr, covar_*, regr_*): differential against PostgreSQL 15,
 * doubles compared as printed (shortest round-trip digits).
 */
const setup = [
  'CREATE TABLE m (id int PRIMARY KEY, g text, x float8, y float8, n numeric, i int, iv interval, t text, ts timestamp)',
  `INSERT INTO m VALUES
    (1, 'a', 1.5, 2.25, 10.5, 3, '1 day', 'red', '2024-01-01 10:00'),
    (2, 'a', 2.0, 4.1, 11, 1, '2 hours', 'blue', '2024-01-03 00:00'),
    (3, 'a', 3.25, 5.9, NULL, 4, '1 day 12:00', 'red', '2024-01-02 00:00'),
    (4, 'a', NULL, 7.3, 13.25, 1, NULL, NULL, NULL),
    (5, 'b', 10, 10, 1, 5, '1 month', 'green', '2023-05-05 05:05'),
    (6, 'b', 10, 20, 2, 9, '30 days', 'green', '2023-06-06 06:06'),
    (7, 'c', 0.1, 0.7, 0.3, 2, '3 minutes', 'blue', '2020-02-29 00:00'),
    (8, 'c', 0.2, 0.1, 0.6, 2, '1 second', 'blue', '2021-02-28 00:00'),
    (9, 'c', 0.3, 0.3, 0.9, 7, '1 year', 'red', '2022-02-28 00:00'),
    (10, 'c', 1e10, 1e-5, 1e6, -4, '-1 day', 'red', '1999-12-31 23:59:59'),
    (11, 'd', NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
];

const statistics = ['corr', 'covar_pop', 'covar_samp', 'regr_slope', 'regr_intercept', 'regr_count', 'regr_r2',
  'regr_avgx', 'regr_avgy', 'regr_sxx', 'regr_syy', 'regr_sxy'];

describe('ordered-set and statistics aggregates match PostgreSQL 15', () => {
  let both: GatewayAndOracle;
  gatewayAndOracleForSuite(setup, (b) => { both = b; });

  test('percentile_cont, percentile_disc, mode', async () => {
    await sameOnBoth(both, [
      `SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_cont(0.25) WITHIN GROUP (ORDER BY y DESC),
         percentile_disc(0.5) WITHIN GROUP (ORDER BY x), percentile_disc(0) WITHIN GROUP (ORDER BY t), percentile_disc(1) WITHIN GROUP (ORDER BY ts)
       FROM m GROUP BY g ORDER BY g`,
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY n), percentile_cont(0.9) WITHIN GROUP (ORDER BY i), percentile_disc(0.3) WITHIN GROUP (ORDER BY n) FROM m`,
      `SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY iv), percentile_cont(0.1) WITHIN GROUP (ORDER BY iv) FROM m GROUP BY g ORDER BY g`,
      `SELECT percentile_cont(array[0, 0.25, 0.5, 1]) WITHIN GROUP (ORDER BY x), percentile_disc(array[0.1, NULL, 0.9]) WITHIN GROUP (ORDER BY i) FROM m`,
      `SELECT g, mode() WITHIN GROUP (ORDER BY t), mode() WITHIN GROUP (ORDER BY i DESC), mode() WITHIN GROUP (ORDER BY i) FROM m GROUP BY g ORDER BY g`,
      `SELECT percentile_cont(NULL) WITHIN GROUP (ORDER BY x), percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE g = 'zz') FROM m`,
      `SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY x) FROM m`,
      `SELECT percentile_disc(-0.1) WITHIN GROUP (ORDER BY x) FROM m`,
      `SELECT mode(x) FROM m`,
      `SELECT sum(x) WITHIN GROUP (ORDER BY x) FROM m`,
    ]);
  });

  test('corr, covar and regr_*', async () => {
    const cols = statistics.map((f) => `${f}(y, x)`).join(', ');
    await sameOnBoth(both, [
      `SELECT g, ${cols} FROM m GROUP BY g ORDER BY g`,
      `SELECT ${cols} FROM m`,
      `SELECT ${statistics.map((f) => `${f}(i, n)`).join(', ')} FROM m`,
      `SELECT ${statistics.map((f) => `${f}(x, x)`).join(', ')} FROM m WHERE g = 'b'`,
      `SELECT ${cols} FROM m WHERE false`,
      `SELECT g, corr(y, x) OVER (PARTITION BY g ORDER BY id), regr_count(y, x) OVER (ORDER BY id) FROM m ORDER BY id`,
    ]);
  });
});
