import { describe, test } from 'node:test';
import { gatewayAndOracleForSuite, sameOnBoth, type GatewayAndOracle } from './gateway-and-oracle.js';

/*
 * Whole-row references (to_json(p), json_agg(p), SELECT p, count(p.*)), the exact
 * shapes Kysely's jsonArrayFrom / jsonObjectFrom generate, and row values
 * ((a, b) IN …, ordered row comparison, ROW(…) IS NULL), each run on PostgreSQL 15
 * and on Floe through node-postgres with the same text results.
 */

const setup = [
  'CREATE TABLE person (id int PRIMARY KEY, first_name text, last_name text, age int)',
  'CREATE TABLE pet (id int PRIMARY KEY, name text, owner_id int, species text)',
  `INSERT INTO person VALUES (1, 'Jennifer', 'Aniston', 40), (2, 'Arnold', 'Schwarzenegger', 70), (3, 'Sylvester', 'Stallone', 40),
     (4, 'Dick', 'van Dyke', NULL), (5, '', NULL, 30)`,
  `INSERT INTO pet VALUES (1, 'Catto', 1, 'cat'), (2, 'Doggo', 2, 'dog'), (3, 'Hammo', 3, 'hamster'), (4, 'Fluffy "2"', 1, 'cat')`,
];

describe('whole-row references and row values, against PostgreSQL 15', () => {
  let both!: GatewayAndOracle;
  gatewayAndOracleForSuite(setup, (b) => { both = b; });

  test('to_json, row_to_json, to_jsonb of a range variable; JSON text as PostgreSQL writes it', async () => {
    await sameOnBoth(both, [
      'SELECT to_json(p), row_to_json(p), to_jsonb(p) FROM person p ORDER BY id',
      'SELECT to_json(pet) FROM pet ORDER BY id',
      'SELECT row_to_json(p, true) FROM person p WHERE id = 1',
      'SELECT to_json(p.*) FROM person p WHERE id = 2',
      'SELECT json_build_object(\'person\', p, \'n\', 1) FROM person p ORDER BY id',
      "SELECT row_to_json(row(1, 'a b', NULL::int)), to_json(row(p.id, p.last_name)) FROM person p ORDER BY p.id",
      'SELECT person.id, to_json(pet) FROM person LEFT JOIN pet ON pet.owner_id = person.id ORDER BY person.id, pet.id',
    ]);
  });

  test('json_agg / jsonb_agg of rows and count(p.*)', async () => {
    await sameOnBoth(both, [
      'SELECT json_agg(p) FROM (SELECT * FROM person ORDER BY id) p',
      'SELECT jsonb_agg(p ORDER BY p.id DESC) FROM person p',
      'SELECT json_agg(p ORDER BY p.name) FROM pet p WHERE p.species = \'cat\'',
      'SELECT count(p.*) FROM person p',
      'SELECT person.id, count(pet.*) FROM person LEFT JOIN pet ON pet.owner_id = person.id GROUP BY person.id ORDER BY person.id',
      'SELECT json_agg(p) FROM person p WHERE false',
    ]);
  });

  test('a whole row in the select list is record text', async () => {
    await sameOnBoth(both, [
      'SELECT p FROM person p ORDER BY id',
      'SELECT pet, pet.name FROM pet ORDER BY id',
    ]);
  });

  test("Kysely's jsonArrayFrom and jsonObjectFrom, correlated in the select list", async () => {
    await sameOnBoth(both, [
      `select "person"."id", (select coalesce(json_agg(agg), '[]') from (select "pet"."id", "pet"."name" from "pet" where "pet"."owner_id" = "person"."id" order by "pet"."name") as agg) as "pets"
         from "person" order by "person"."id"`,
      `select "person"."id", (select to_json(obj) from (select "pet"."id" as "pet_id", "pet"."species" from "pet" where "pet"."owner_id" = "person"."id" order by "pet"."id" limit 1) as obj) as "pet"
         from "person" order by "person"."id"`,
      `select (select coalesce(json_agg(agg), '[]') from (select "first_name", (select to_json(obj) from (select "name" from "pet" where "pet"."owner_id" = "person"."id" order by "id" limit 1) as obj) as "pet"
         from "person" order by "id") as agg) as "people"`,
    ]);
  });

  test('row values: IN lists, IN subqueries, ordered comparison, IS NULL', async () => {
    await sameOnBoth(both, [
      "SELECT id FROM person WHERE (first_name, last_name) IN (('Jennifer', 'Aniston'), ('Arnold', 'Schwarzenegger')) ORDER BY id",
      "SELECT id FROM person WHERE (first_name, last_name) NOT IN (('Jennifer', 'Aniston')) ORDER BY id",
      'SELECT id FROM person WHERE (id, first_name) IN (SELECT owner_id, CASE WHEN species = \'cat\' THEN \'Jennifer\' ELSE \'Arnold\' END FROM pet) ORDER BY id',
      'SELECT id FROM person WHERE (id, age) NOT IN (SELECT owner_id, 40 FROM pet) ORDER BY id',
      'SELECT id FROM person WHERE (age, 1) NOT IN (SELECT 40, 1) ORDER BY id',
      'SELECT id FROM person p WHERE (p.age, p.id) NOT IN (SELECT 40, owner_id FROM pet UNION ALL SELECT NULL::int, 2) ORDER BY id',
      'SELECT id, (id, age) IN (SELECT owner_id, 40 FROM pet) AS has_pet_at_40 FROM person WHERE age IS NOT NULL ORDER BY id',
      'SELECT id, (age, id) < (40, 2), (age, id) <= (40, 3), (age, id) > (40, 1), (age, id) >= (40, 3) FROM person ORDER BY id',
      'SELECT id FROM person WHERE (age, last_name) > (30, \'B\') ORDER BY id',
      'SELECT (1, 2) = (1, 2), (1, NULL) = (1, 2), (1, NULL) = (2, 2), (1, 2) <> (1, 3), ROW(1, 2, 3) < ROW(1, 2, 4)',
      'SELECT id, ROW(age, last_name) IS NULL, ROW(age, last_name) IS NOT NULL, (age, 1) IS NULL FROM person ORDER BY id',
    ]);
  });
});
