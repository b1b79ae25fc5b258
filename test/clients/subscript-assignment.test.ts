import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { oracleAndFloeForSuite } from '../harness/oracle-and-floe.js';
import { assertSameOutcomes, stepOutcomes, type Step } from '../harness/statement-outcomes.js';

const SETUP = [
  'CREATE TABLE docs (id int, d jsonb, a int[], t text[])',
  `INSERT INTO docs VALUES (1, '{"a": 1}', '{1,2,3}', '{x}'), (2, NULL, NULL, NULL), (3, '[1]', '{}', '{}'), (4, '5', '{1}', '{y}')`,
];

describe('UPDATE … SET col[subscript] = …: jsonb and array element assignment as PostgreSQL 15 does it', () => {
  let oracleUrl: string;
  let floeUrl: string;
  oracleAndFloeForSuite(SETUP, (s) => { oracleUrl = s.oracleTarget.url; floeUrl = s.floe.url; });

  /** Each statement on one connection; the outcome (rows or SQLSTATE and message) of each. */
  const run = stepOutcomes;

  const compare = (steps: readonly Step[]) => assertSameOutcomes(oracleUrl, floeUrl, steps);

  test('jsonb: keys and indexes at any depth, missing levels created, arrays padded, NULL columns start empty', async () => {
    await compare([
      `UPDATE docs SET d['x']['y'] = '1' WHERE id = 1`,
      `UPDATE docs SET d['k'] = '"v"' WHERE id = 2`,
      `UPDATE docs SET d[3] = '7' WHERE id = 3`,
      `UPDATE docs SET d[-1] = '9' WHERE id = 3`,
      `UPDATE docs SET d['z'] = NULL WHERE id = 1`,
      `UPDATE docs SET d['q'][0] = '1', d['r'] = '2.50' WHERE id = 1`,
      // Kysely's json test: an untyped parameter becomes jsonb.
      [`UPDATE docs SET d['number_field'] = $1 WHERE id = 2`, [0.125]],
      'SELECT id, d FROM docs ORDER BY id',
    ]);
  });

  test('jsonb: a scalar in the way, an index out of range and a NULL subscript fail as in PostgreSQL', async () => {
    await compare([
      `UPDATE docs SET d['k'] = '1' WHERE id = 4`,
      `UPDATE docs SET d[-5] = '1' WHERE id = 3`,
      `UPDATE docs SET d[NULL] = '1' WHERE id = 1`,
      `UPDATE docs SET d['a'][0] = '1' WHERE id = 1`,
      `UPDATE docs SET d['a'] = '1', d = '{}' WHERE id = 1`,
      'SELECT id, d FROM docs ORDER BY id',
    ]);
  });

  test('arrays: an element replaced or appended past the end (NULL-padded), several in one SET', async () => {
    await compare([
      'UPDATE docs SET a[2] = 20 WHERE id = 1',
      "UPDATE docs SET a[5] = 50, a[1] = '7' WHERE id = 1",
      'UPDATE docs SET a[1] = 5 WHERE id = 3',
      "UPDATE docs SET t[1] = 'z' WHERE id = 4",
      'UPDATE docs SET a[NULL] = 1 WHERE id = 1',
      'UPDATE docs SET id[1] = 1',
      'SELECT id, a, t FROM docs ORDER BY id',
    ]);
  });

  test("MERGE's UPDATE SET reads the target row's value under the source row's columns", async () => {
    await compare([
      "MERGE INTO docs USING (VALUES (1, 'x'), (9, 'y')) v(id, s) ON docs.id = v.id WHEN MATCHED THEN UPDATE SET d['m'] = to_jsonb(v.s), a[2] = v.id * 100",
      'SELECT id, d, a FROM docs ORDER BY id',
    ]);
  });

  test('what Floe cannot represent is refused with 0A000 (slices; lower bounds other than 1)', async () => {
    for (const sql of ["UPDATE docs SET a[1:2] = '{8,9}' WHERE id = 1", 'UPDATE docs SET a[3] = 1 WHERE id = 2', 'UPDATE docs SET a[0] = 1 WHERE id = 4']) {
      const [r] = await run(floeUrl, [sql]) as { error?: string }[];
      assert.equal(r!.error, '0A000', sql);
    }
  });
});
