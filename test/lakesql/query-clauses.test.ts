import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gatewayAndOracleForSuite, sameOnBoth, type GatewayAndOracle } from './gateway-and-oracle.js';

/*
 * DISTINCT ON with ORDER BY outside the select list, FETCH … WITH TIES, SIMILAR TO and
 * TABLESAMPLE, run on PostgreSQL 15 and on Floe through node-postgres. A sample's rows
 * differ between the two by design, so TABLESAMPLE compares only what is fixed (0% and
 * 100%) and checks the rest on Floe: counts within bounds, REPEATABLE deterministic.
 */

const setup = [
  'CREATE TABLE pet (id int PRIMARY KEY, name text, owner_id int, age int)',
  `INSERT INTO pet VALUES (1, 'Catto', 1, 3), (2, 'Doggo', 2, 5), (3, 'Hammo', 1, 3), (4, 'Bird_y', 3, 1), (5, 'Fishy', 2, 5),
     (6, 'Anna', NULL, 5), (7, '50%', 3, 2)`,
  'CREATE TABLE big (id int PRIMARY KEY, v int)',
  'INSERT INTO big SELECT g, g % 7 FROM generate_series(1, 2000) g',
];

describe('query clauses Kysely uses, against PostgreSQL 15', () => {
  let both!: GatewayAndOracle;
  gatewayAndOracleForSuite(setup, (b) => { both = b; });

  test('DISTINCT ON ordered by columns outside the select list', async () => {
    await sameOnBoth(both, [
      'SELECT DISTINCT ON (owner_id) owner_id, name FROM pet ORDER BY owner_id, id DESC',
      'SELECT DISTINCT ON (age) name FROM pet ORDER BY age, name',
      'SELECT DISTINCT name FROM pet ORDER BY id',
    ]);
  });

  test('FETCH FIRST n ROWS WITH TIES', async () => {
    await sameOnBoth(both, [
      // Tied rows come in no set order: each result is sorted by id outside.
      'SELECT * FROM (SELECT id, age FROM pet ORDER BY age FETCH FIRST 2 ROWS WITH TIES) t ORDER BY id',
      'SELECT * FROM (SELECT id, age FROM pet ORDER BY age FETCH FIRST 3 ROWS WITH TIES) t ORDER BY id',
      'SELECT * FROM (SELECT id, age FROM pet ORDER BY age DESC FETCH FIRST 1 ROW WITH TIES) t ORDER BY id',
      'SELECT * FROM (SELECT id FROM pet ORDER BY age, owner_id OFFSET 1 ROWS FETCH NEXT 2 ROWS WITH TIES) t ORDER BY id',
      'SELECT name FROM pet ORDER BY age FETCH FIRST 0 ROWS WITH TIES',
      'SELECT count(*) FROM big ORDER BY 1 FETCH FIRST 1 ROW WITH TIES',
      'SELECT count(*), min(id), max(id) FROM (SELECT id FROM big ORDER BY v FETCH FIRST 3 ROWS WITH TIES) t',
      'SELECT id FROM pet FETCH FIRST 2 ROWS WITH TIES',
    ]);
  });

  test('SIMILAR TO and NOT SIMILAR TO, with ESCAPE', async () => {
    await sameOnBoth(both, [
      "SELECT name, name SIMILAR TO '%(o|y)', name NOT SIMILAR TO '[A-C]%', name SIMILAR TO '_a%' FROM pet ORDER BY id",
      "SELECT name FROM pet WHERE name SIMILAR TO '%\\_%' ORDER BY id",
      "SELECT name FROM pet WHERE name SIMILAR TO '%#%' ESCAPE '#' ORDER BY id",
      "SELECT 'abc' SIMILAR TO 'a(b|x)c', 'abc' SIMILAR TO 'ab', 'a.c' SIMILAR TO 'a.c', 'abc' SIMILAR TO 'a.c', 'aaa' SIMILAR TO 'a{2,3}', 'ab' SIMILAR TO 'a+b*'",
      "SELECT 'a' SIMILAR TO 'a' ESCAPE 'xy'",
      "SELECT 'a' SIMILAR TO 'a' ESCAPE NULL",
    ]);
  });

  test('TABLESAMPLE: 0% and 100% as PostgreSQL, bounds and REPEATABLE on Floe', async () => {
    await sameOnBoth(both, [
      'SELECT count(*) FROM big TABLESAMPLE BERNOULLI (100)',
      'SELECT count(*) FROM big TABLESAMPLE SYSTEM (100) REPEATABLE (7)',
      'SELECT count(*) FROM big TABLESAMPLE BERNOULLI (0)',
      'SELECT count(*) FROM big AS b TABLESAMPLE BERNOULLI (100) WHERE b.v = 3',
      'SELECT count(*) FROM big TABLESAMPLE BERNOULLI (101)',
      'SELECT count(*) FROM big TABLESAMPLE foo (10)',
      'SELECT count(*) FROM big TABLESAMPLE BERNOULLI (10) REPEATABLE (NULL)',
    ]);
    const g = both.g;
    const count = async (sql: string): Promise<number> => Number((await g.rows(sql))[0]![0]);
    // 2000 rows at 50%: the count is binomial (sd about 22); these bounds are more than 10 sd wide.
    for (const method of ['BERNOULLI', 'SYSTEM']) {
      const n = await count(`SELECT count(*) FROM big TABLESAMPLE ${method} (50)`);
      assert.ok(n > 750 && n < 1250, `${method} (50) kept ${n} of 2000 rows`);
    }
    const repeatable = 'SELECT id FROM big TABLESAMPLE BERNOULLI (10) REPEATABLE (42) ORDER BY id';
    const first = await g.rows(repeatable);
    assert.deepEqual(await g.rows(repeatable), first);
    assert.ok(first.length > 100 && first.length < 300, `REPEATABLE (42) at 10% kept ${first.length} rows`);
    assert.notDeepEqual(await g.rows('SELECT id FROM big TABLESAMPLE BERNOULLI (10) REPEATABLE (43) ORDER BY id'), first);
  });
});
