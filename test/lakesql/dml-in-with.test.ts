import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gatewayAndOracleForSuite, sameOnBoth, type GatewayAndOracle } from './gateway-and-oracle.js';

/*
 * INSERT/UPDATE/DELETE inside WITH (each runs once, read or not, its readers see its
 * RETURNING rows; the tag counts the main statement), RETURNING of UPDATE … FROM and
 * DELETE … USING columns, and EXPLAIN of a statement with $n parameters — each run on
 * PostgreSQL 15 and on Floe through node-postgres, with tables compared after.
 */

const setup = [
  'CREATE TABLE person (id int PRIMARY KEY, first_name text, age int)',
  'CREATE TABLE pet (id int PRIMARY KEY, name text, owner_id int, species text)',
  "INSERT INTO person VALUES (1, 'Jennifer', 40), (2, 'Arnold', 70), (3, 'Sylvester', 40)",
  "INSERT INTO pet VALUES (1, 'Catto', 1, 'cat'), (2, 'Doggo', 2, 'dog'), (3, 'Hammo', 3, 'hamster')",
];

const tables = ['SELECT * FROM person ORDER BY id', 'SELECT * FROM pet ORDER BY id'];

describe('data-modifying WITH queries and DML RETURNING, against PostgreSQL 15', () => {
  let both!: GatewayAndOracle;
  gatewayAndOracleForSuite(setup, (b) => { both = b; });

  test('INSERT/UPDATE/DELETE … RETURNING in WITH, read by SELECT and by DML', async () => {
    await sameOnBoth(both, [
      `with "jennifer" as (insert into "person" ("id", "first_name", "age") values (10, 'Jennifer', 50) returning "id")
         insert into "pet" ("id", "name", "owner_id", "species") select 100, 'Catto 2', "id", 'cat' from "jennifer"`,
      ...tables,
      "WITH deleted AS (DELETE FROM pet WHERE species = 'cat' RETURNING id, name) SELECT name FROM deleted ORDER BY name",
      `WITH u AS (UPDATE person SET age = age + 1 WHERE id <= 2 RETURNING id, age), d AS (DELETE FROM pet WHERE owner_id = 3 RETURNING id)
         SELECT (SELECT count(*) FROM u) AS updated, (SELECT sum(age) FROM u) AS ages, (SELECT count(*) FROM d) AS deleted`,
      ...tables,
      // Read twice: still one insert.
      "WITH i AS (INSERT INTO pet VALUES (7, 'Twice', 1, 'bird') RETURNING id) SELECT a.id, b.id FROM i a, i b",
      // Not read at all: it still runs.
      'WITH x AS (DELETE FROM pet WHERE id = 7) SELECT 1 AS one',
      "WITH src AS (SELECT 2 AS id) UPDATE person SET age = 99 FROM src WHERE person.id = src.id RETURNING person.id, person.age, src.id",
      "WITH moved AS (DELETE FROM person WHERE id = 10 RETURNING id, first_name) INSERT INTO pet (id, name, owner_id) SELECT id, first_name, NULL::int FROM moved RETURNING *",
      ...tables,
    ]);
  });

  test('refused as PostgreSQL refuses them', async () => {
    await sameOnBoth(both, [
      'SELECT * FROM (WITH x AS (DELETE FROM pet RETURNING id) SELECT * FROM x) s',
      'WITH x AS (DELETE FROM pet WHERE id = 1) SELECT * FROM x',
      ...tables,
    ]);
  });

  test('RETURNING of UPDATE … FROM and DELETE … USING reads the FROM items', async () => {
    await sameOnBoth(both, [
      "INSERT INTO pet VALUES (20, 'Rex', 1, 'dog'), (21, 'Tom', 2, 'cat')",
      "UPDATE person SET first_name = 'Jen' FROM pet WHERE pet.owner_id = person.id AND pet.name = 'Rex' RETURNING pet.*",
      "UPDATE person SET age = age + 1 FROM pet WHERE pet.owner_id = person.id AND pet.id = 21 RETURNING *",
      "UPDATE person AS p SET age = 1 FROM pet WHERE pet.owner_id = p.id AND pet.id = 20 RETURNING p.id, pet.name, p.age + pet.id AS sum",
      "DELETE FROM person USING pet WHERE pet.owner_id = person.id AND pet.name = 'Tom' RETURNING pet.name, person.id",
      'DELETE FROM pet USING person WHERE person.id = pet.owner_id AND person.age = 1 RETURNING *',
      ...tables,
    ]);
  });

  test('EXPLAIN of a statement with $n parameters binds and runs', async () => {
    // The plans' text differs (Floe prints its own operators); what must agree is that each binds, runs and has one QUERY PLAN column.
    const statements: [string, unknown[]][] = [
      ['EXPLAIN SELECT * FROM person WHERE id = $1 AND first_name <> $2', [1, 'x']],
      ['explain select * from "person" limit $1', [5]],
      ['EXPLAIN ANALYZE SELECT * FROM person WHERE id = $1', [2]],
      ['explain insert into "pet" ("id", "name") values ($1, $2)', [99, 'Explained']],
      ['explain update "person" set "first_name" = $1 where "id" = $2', ['x', 123]],
    ];
    for (const [text, values] of statements) {
      for (const c of [both.g.client, both.oracle]) {
        const r = await c.query({ text, values });
        assert.deepEqual(r.fields.map((f) => f.name), ['QUERY PLAN'], text);
        assert.ok(r.rows.length > 0, text);
      }
    }
    await sameOnBoth(both, tables);
  });
});
