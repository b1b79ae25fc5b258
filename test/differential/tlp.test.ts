import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startPostgres } from '../harness/postgres-server.js';
import { Prng } from './prng.js';
import { PredicateGenerator } from './predicate.js';
import type { TableModel } from './schema-model.js';
import { SqlSide } from './sql-side.js';
import { buildTlpQueries, tlpMismatch } from './tlp.js';
import type { Row } from './tlp.js';

test('TLP parts negate and null-test the whole predicate, not its last operand', () => {
  const q = buildTlpQueries('t', 'a = 1 OR b = 2');
  assert.equal(q.whole, 'SELECT * FROM t');
  assert.deepEqual(q.parts, [
    'SELECT * FROM t WHERE a = 1 OR b = 2',
    'SELECT * FROM t WHERE NOT (a = 1 OR b = 2)',
    'SELECT * FROM t WHERE (a = 1 OR b = 2) IS NULL',
  ]);
});

test('tlpMismatch finds missing, extra and doubled rows, and accepts an exact partition', () => {
  const whole: Row[] = [['1', 'a'], ['2', null], ['2', null], ['3', 'c']];
  assert.deepEqual(tlpMismatch(whole, [[['1', 'a']], [['3', 'c']], [['2', null], ['2', null]]]), { missing: [], extra: [] });
  assert.deepEqual(tlpMismatch(whole, [[['1', 'a']], [['3', 'c']], [['2', null]]]), { missing: ['["2",null]'], extra: [] });
  assert.deepEqual(tlpMismatch(whole, [[['1', 'a'], ['3', 'c']], [['3', 'c']], [['2', null], ['2', null]]]), { missing: [], extra: ['["3","c"]'] });
  assert.deepEqual(tlpMismatch(whole, [[['1', 'a'], ['9', 'z']], [['3', 'c']], [['2', null], ['2', null]]]), { missing: [], extra: ['["9",null]'.replace('null', '"z"')] });
});

test('random predicates partition a table with NULLs exactly on PostgreSQL 15', { timeout: 120_000 }, async () => {
  const server = await startPostgres();
  const pg = await SqlSide.connect('postgres', { connectionString: server.url });
  try {
    const table: TableModel = {
      name: 'tlp_t',
      columns: [
        { name: 'id', type: 'int', notNull: true },
        { name: 'n', type: 'bigint', notNull: false },
        { name: 's', type: 'text', notNull: false },
        { name: 'v', type: 'varchar', length: 4, notNull: false },
        { name: 'd', type: 'date', notNull: false },
      ],
      key: ['id'],
    };
    const setup = await pg.run(`CREATE TABLE tlp_t (id int PRIMARY KEY, n bigint, s text, v varchar(4), d date);
      INSERT INTO tlp_t VALUES (1, 5, 'a', 'ab', '2024-01-02'), (2, NULL, NULL, NULL, NULL), (3, -9223372036854775808, 'it''s', 'x%', '2024-02-29'),
        (4, 40, '', 'k1', NULL), (5, 0, 'naïve', NULL, '2024-12-31'), (6, 7, 'zz', 'zz', '2024-01-15')`);
    assert.ok(setup.ok, JSON.stringify(setup));
    const whole = await pg.run('SELECT * FROM tlp_t');
    assert.ok(whole.ok && whole.rows?.length === 6);
    const rng = new Prng(12345);
    let nullParts = 0;
    for (let i = 0; i < 150; i++) {
      const predicate = new PredicateGenerator(rng, table, new Set(['nullValues', 'boundaryInts', 'specialText'])).predicate(2);
      const q = buildTlpQueries('tlp_t', predicate);
      const parts = [];
      for (const part of q.parts) {
        const r = await pg.run(part);
        assert.ok(r.ok, `${part}: ${JSON.stringify(r)}`);
        parts.push(r.rows ?? []);
      }
      if (parts[2]!.length > 0) nullParts++;
      assert.deepEqual(tlpMismatch(whole.rows ?? [], parts), { missing: [], extra: [] }, predicate);
    }
    // The third part must matter: some predicates are NULL on some rows.
    assert.ok(nullParts > 10, `only ${nullParts} predicates had NULL rows`);
  } finally {
    await pg.end();
    await server.stop();
  }
});
