import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { oracleAndFloeForSuite } from '../harness/oracle-and-floe.js';
import { assertSameOutcomes, stepOutcomes, type Step } from '../harness/statement-outcomes.js';

const SETUP = [
  'CREATE TABLE person (id serial PRIMARY KEY, first_name varchar(255), last_name varchar(255), gender varchar(50))',
  "INSERT INTO person (first_name, last_name, gender) VALUES ('Jennifer', 'Aniston', 'female'), ('Arnold', 'Schwarzenegger', 'male'), ('Sylvester', 'Stallone', 'male')",
  'CREATE TABLE audit (what text, who text)',
];

describe('WITH … MERGE INTO: WITH queries (data-modifying ones too) before MERGE, as PostgreSQL 15', () => {
  let oracleUrl: string;
  let floeUrl: string;
  oracleAndFloeForSuite(SETUP, (s) => { oracleUrl = s.oracleTarget.url; floeUrl = s.floe.url; });

  const run = stepOutcomes;

  const compare = (steps: readonly Step[]) => assertSameOutcomes(oracleUrl, floeUrl, steps);

  const everyone = 'SELECT id, first_name, last_name, gender FROM person ORDER BY id';

  test("Kysely's statement: DELETE, INSERT and UPDATE … RETURNING in WITH, MERGE using the UPDATE's rows", async () => {
    await compare([
      ['with "deleted_arnold" as (delete from "person" where "first_name" = $1), "inserted_matt" as (insert into "person" ("first_name", "last_name", "gender") values ($2, $3, $4)), '
        + '"updated_jennifer" as (update "person" set "last_name" = $5 where "first_name" = $6 returning "first_name") merge into "person" using "updated_jennifer" on true when matched then do nothing',
      ['Arnold', 'Matt', 'Damon', 'male', 'Lawrence', 'Jennifer']],
      everyone,
    ]);
  });

  test('a plain WITH query as the source of updates and inserts', async () => {
    await compare([
      "WITH src AS (SELECT 'Sylvester'::varchar AS fn, 'Rambo'::varchar AS ln UNION ALL SELECT 'New', 'Person') "
        + "MERGE INTO person p USING src ON p.first_name = src.fn WHEN MATCHED THEN UPDATE SET last_name = src.ln "
        + "WHEN NOT MATCHED THEN INSERT (first_name, last_name, gender) VALUES (src.fn, src.ln, 'x')",
      everyone,
    ]);
  });

  test('a data-modifying WITH query on another table runs once, whether or not MERGE reads it', async () => {
    await compare([
      "WITH logged AS (INSERT INTO audit VALUES ('merge', 'New') RETURNING who) "
        + "MERGE INTO person p USING logged ON p.first_name = logged.who WHEN MATCHED THEN UPDATE SET gender = 'logged'",
      "WITH unread AS (INSERT INTO audit VALUES ('again', 'nobody')) MERGE INTO person p USING (VALUES ('Matt')) v(fn) ON p.first_name = v.fn WHEN MATCHED THEN DELETE",
      everyone,
      'SELECT what, who FROM audit ORDER BY 1',
    ]);
  });

  test('MERGE writing rows its own WITH statements changed is refused (PostgreSQL reads them as they were), and nothing is written', async () => {
    const sql = "WITH u AS (UPDATE person SET gender = 'm' WHERE first_name = 'New' RETURNING id) MERGE INTO person p USING u ON p.id = u.id WHEN MATCHED THEN UPDATE SET last_name = 'Twice'";
    const [want] = await run(oracleUrl, [sql]) as { error?: string }[];
    assert.equal(want!.error, '21000');
    const [got] = await run(floeUrl, [sql]) as { error?: string }[];
    assert.equal(got!.error, '0A000');
    await compare([everyone]);
  });
});
