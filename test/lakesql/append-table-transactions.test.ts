/**
 * A table without a primary key takes deletes and updates by row id. Rows a transaction
 * inserted itself live in files it has staged, which have no catalog id until it commits:
 * deleting or updating them must commit (it used to fail COMMIT with 40001 and lose the
 * whole transaction).
 */
import { describe, test } from 'node:test';
import { gatewayAndOracleForSuite, sameOnBoth } from './gateway-and-oracle.js';
import type { GatewayAndOracle } from './gateway-and-oracle.js';

describe('append tables: writes over rows staged by the same transaction', () => {
  let both!: GatewayAndOracle;
  gatewayAndOracleForSuite(['CREATE TABLE x (c0 int, c1 int)', 'INSERT INTO x VALUES (1, 10), (2, 20)'], (b) => { both = b; });

  test('DELETE and UPDATE of rows inserted earlier in the transaction commit', () => sameOnBoth(both, [
    'BEGIN',
    'INSERT INTO x VALUES (12, 39), (13, 40)',
    'DELETE FROM x WHERE c0 = 12',
    'UPDATE x SET c1 = c1 + 1 WHERE c0 IN (1, 13)',
    'SELECT * FROM x ORDER BY c0',
    'COMMIT',
    'SELECT * FROM x ORDER BY c0',
  ]));

  test('a row updated twice in one transaction, then deleted, and a savepoint rolled back over a staged delete', () => sameOnBoth(both, [
    'BEGIN',
    'INSERT INTO x VALUES (20, 1)',
    'UPDATE x SET c1 = 2 WHERE c0 = 20',
    'UPDATE x SET c1 = 3 WHERE c0 = 20',
    'SAVEPOINT s',
    'DELETE FROM x WHERE c0 = 20',
    'ROLLBACK TO SAVEPOINT s',
    'DELETE FROM x WHERE c0 = 2',
    'COMMIT',
    'SELECT * FROM x ORDER BY c0',
  ]));
});
