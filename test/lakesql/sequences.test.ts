import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { runPsql } from '../harness/run-psql.js';
import { gatewayAndOracleForSuite, sameOnBoth } from './gateway-and-oracle.js';
import type { GatewayAndOracle } from './gateway-and-oracle.js';

describe('sequences against PostgreSQL 15', () => {
  let both!: GatewayAndOracle;
  gatewayAndOracleForSuite([], (b) => { both = b; });

  test('CREATE SEQUENCE options and their errors', () => sameOnBoth(both, [
    'CREATE SEQUENCE bad AS smallint MAXVALUE 100000',
    'CREATE SEQUENCE bad MINVALUE 10 MAXVALUE 5',
    'CREATE SEQUENCE bad START 0',
    'CREATE SEQUENCE bad START 11 MAXVALUE 10',
    'CREATE SEQUENCE bad INCREMENT 0',
    'CREATE SEQUENCE bad CACHE 0',
    'CREATE SEQUENCE bad AS text',
    'CREATE SEQUENCE bad OWNED BY nope.c',
    'CREATE SEQUENCE a1',
    'CREATE SEQUENCE a1',
    'CREATE SEQUENCE IF NOT EXISTS a1',
    'DROP TABLE a1',
    'CREATE SEQUENCE a2 AS integer INCREMENT BY 3 MINVALUE 5 MAXVALUE 20 START WITH 8 CACHE 4 NO CYCLE',
    'CREATE SEQUENCE a3 INCREMENT -2',
    'SELECT seqtypid::int, seqstart, seqincrement, seqmax, seqmin, seqcache, seqcycle FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid WHERE c.relname IN (\'a1\', \'a2\', \'a3\') ORDER BY c.relname',
    "SELECT sequence_name, data_type, numeric_precision, start_value, minimum_value, maximum_value, increment, cycle_option FROM information_schema.sequences WHERE sequence_name LIKE 'a%' ORDER BY 1",
    "SELECT sequencename, start_value, min_value, max_value, increment_by, cycle, cache_size, last_value FROM pg_sequences WHERE sequencename LIKE 'a%' ORDER BY 1",
    "SELECT relname, relkind FROM pg_class WHERE relname LIKE 'a_' ORDER BY 1",
    'SELECT nextval(\'a2\'), nextval(\'a2\'), nextval(\'a3\'), nextval(\'a3\')',
  ]));

  test('nextval, currval, setval and lastval, with their errors', () => sameOnBoth(both, [
    'CREATE SEQUENCE n1 MAXVALUE 3',
    'SELECT currval(\'n1\')',
    'SELECT nextval(\'n1\'), nextval(\'n1\'), nextval(\'n1\')',
    'SELECT nextval(\'n1\')',
    'SELECT currval(\'n1\'), lastval()',
    'SELECT setval(\'n1\', 100)',
    'SELECT setval(\'n1\', 0)',
    'SELECT setval(\'n1\', 1), nextval(\'n1\')',
    'SELECT setval(\'n1\', 2, false), nextval(\'n1\'), currval(\'n1\')',
    'SELECT last_value, is_called FROM n1',
    'CREATE SEQUENCE n2 INCREMENT -1 MINVALUE -2 MAXVALUE 0',
    'SELECT nextval(\'n2\'), nextval(\'n2\'), nextval(\'n2\')',
    'SELECT nextval(\'n2\')',
    'SELECT lastval()',
    'CREATE SEQUENCE n3 START 5 MINVALUE 5 MAXVALUE 7 CYCLE',
    'SELECT nextval(\'n3\'), nextval(\'n3\'), nextval(\'n3\'), nextval(\'n3\')',
    'SELECT currval(\'nope\')',
    'SELECT nextval(\'public.n3\'), nextval(\'"n3"\')',
    'CREATE TABLE n_tab (id int)',
    'SELECT nextval(\'n_tab\')',
    'CREATE SEQUENCE n4',
    'SELECT nextval(\'n4\') FROM generate_series(1, 5)',
    'SELECT count(DISTINCT v) FROM (SELECT nextval(\'n4\') AS v FROM generate_series(1, 50)) x',
    'BEGIN', 'SELECT nextval(\'n4\')', 'ROLLBACK',
    'SELECT nextval(\'n4\')',
  ]));

  test('ALTER and DROP SEQUENCE', () => sameOnBoth(both, [
    'CREATE SEQUENCE d1 MAXVALUE 10',
    'SELECT nextval(\'d1\'), nextval(\'d1\')',
    'ALTER SEQUENCE d1 RESTART WITH 50',
    'ALTER SEQUENCE d1 RESTART WITH 7',
    'SELECT nextval(\'d1\')',
    'ALTER SEQUENCE d1 INCREMENT BY 2 MAXVALUE 100 CYCLE',
    'SELECT nextval(\'d1\')',
    'ALTER SEQUENCE d1 RESTART',
    'SELECT nextval(\'d1\')',
    'ALTER SEQUENCE nope RESTART',
    'ALTER SEQUENCE IF EXISTS nope RESTART',
    'ALTER SEQUENCE d1 RENAME TO d2',
    'SELECT nextval(\'d2\')',
    'SELECT nextval(\'d1\')',
    'CREATE TABLE d_tab (id int)',
    'CREATE SEQUENCE d_tab',
    'CREATE TABLE d2 (x int)',
    'DROP SEQUENCE d_tab',
    'DROP SEQUENCE nope',
    'DROP SEQUENCE IF EXISTS nope, d2',
    'SELECT nextval(\'d2\')',
    'CREATE SEQUENCE d3', 'CREATE SEQUENCE d4',
    'DROP SEQUENCE d3, d4',
    "SELECT count(*) FROM pg_class WHERE relname IN ('d3', 'd4')",
    'CREATE SEQUENCE d5 OWNED BY d_tab.id',
    'DROP TABLE d_tab',
    "SELECT count(*) FROM pg_class WHERE relname = 'd5'",
  ]));

  test('serial, bigserial, smallserial with INSERT … RETURNING', () => sameOnBoth(both, [
    'CREATE TABLE s1 (id serial, big bigserial, small smallserial, v text)',
    "INSERT INTO s1 (v) VALUES ('a'), ('b') RETURNING id, big, small, v",
    "INSERT INTO s1 (id, v) VALUES (100, 'c') RETURNING *",
    "INSERT INTO s1 (v) VALUES ('d') RETURNING id",
    "INSERT INTO s1 VALUES (DEFAULT, DEFAULT, DEFAULT, 'e') RETURNING id, big",
    'INSERT INTO s1 (v) SELECT \'g\' || g FROM generate_series(1, 5) g RETURNING id',
    'SELECT id, big, small, v FROM s1 ORDER BY id',
    "SELECT pg_get_serial_sequence('s1', 'id'), pg_get_serial_sequence('s1', 'big'), pg_get_serial_sequence('s1', 'v')",
    "SELECT pg_get_serial_sequence('s1', 'nope')",
    "SELECT column_name, column_default, is_nullable, data_type FROM information_schema.columns WHERE table_name = 's1' ORDER BY ordinal_position",
    "SELECT sequencename, data_type::text FROM pg_sequences WHERE sequencename LIKE 's1%' ORDER BY 1",
    "SELECT currval('s1_id_seq')",
    'DROP SEQUENCE s1_id_seq',
    'DROP SEQUENCE s1_small_seq CASCADE',
    "INSERT INTO s1 (v) VALUES ('f')",
    'DROP TABLE s1',
    "SELECT count(*) FROM pg_class WHERE relname LIKE 's1%'",
  ]));

  test('GENERATED ALWAYS / BY DEFAULT AS IDENTITY, OVERRIDING, UPDATE', () => sameOnBoth(both, [
    'CREATE TABLE i1 (id int GENERATED ALWAYS AS IDENTITY, b bigint GENERATED BY DEFAULT AS IDENTITY (START WITH 10 INCREMENT BY 5), v text)',
    "INSERT INTO i1 (v) VALUES ('a'), ('b') RETURNING *",
    "INSERT INTO i1 (id, v) VALUES (5, 'x')",
    "INSERT INTO i1 VALUES (5, 1, 'x')",
    "INSERT INTO i1 OVERRIDING SYSTEM VALUE VALUES (5, 1, 'x') RETURNING *",
    "INSERT INTO i1 (b, v) VALUES (7, 'y') RETURNING *",
    "INSERT INTO i1 (b, v) OVERRIDING USER VALUE VALUES (7, 'z') RETURNING *",
    "INSERT INTO i1 (id, v) SELECT 1, 'q'",
    "INSERT INTO i1 (v) VALUES ('c') RETURNING id",
    'UPDATE i1 SET id = 3',
    'UPDATE i1 SET id = DEFAULT WHERE v = \'c\' RETURNING id',
    'UPDATE i1 SET b = 1 WHERE v = \'a\'',
    'SELECT * FROM i1 ORDER BY v',
    "SELECT column_name, column_default, is_identity, identity_generation, identity_start, identity_increment, identity_cycle FROM information_schema.columns WHERE table_name = 'i1' ORDER BY ordinal_position",
    "SELECT attname, attidentity FROM pg_attribute WHERE attrelid = 'i1'::regclass AND attnum > 0 ORDER BY attnum",
    "SELECT pg_get_serial_sequence('i1', 'id')",
    "SELECT count(*) FROM information_schema.sequences WHERE sequence_name LIKE 'i1%'",
    'DROP SEQUENCE i1_id_seq',
    'CREATE TABLE i2 (id text GENERATED ALWAYS AS IDENTITY)',
    'DROP TABLE i1',
    "SELECT count(*) FROM pg_class WHERE relname LIKE 'i1%'",
  ]));

  test('COPY into a serial table gives each row its own value', async () => {
    for (const c of [both.g.client, both.oracle]) {
      await c.query('CREATE TABLE c1 (id serial, v text)');
      await c.query('CREATE TABLE c2 (id int GENERATED ALWAYS AS IDENTITY, v text)');
    }
    // node-postgres has no COPY FROM helper here: psql's \copy from a here-document does it.
    const rows = Array.from({ length: 20 }, (_, i) => `r${i}`).join('\n');
    for (const target of [both.g.server, { port: Number(both.oracle.port), host: both.oracle.host, database: both.oracle.database }]) {
      for (const t of ['c1', 'c2']) {
        const r = await runPsql(target, ['-c', `\\copy ${t} (v) from stdin`], { input: `${rows}\n\\.\n` });
        assert.equal(r.code, 0, r.stderr);
      }
    }
    await sameOnBoth(both, [
      'SELECT count(*), count(DISTINCT id), min(id), max(id) FROM c1',
      'SELECT count(*), count(DISTINCT id), min(id), max(id) FROM c2',
      "INSERT INTO c1 (v) VALUES ('after') RETURNING id",
    ]);
  });

  test("psql's \\ds and \\d show sequences as PostgreSQL does", async () => {
    await sameOnBoth(both, [
      'CREATE TABLE p1 (id serial, v int GENERATED ALWAYS AS IDENTITY, w int DEFAULT 0)',
      'CREATE SEQUENCE p_seq AS smallint INCREMENT 5 CACHE 3 CYCLE',
    ]);
    const oracleTarget = { port: Number(both.oracle.port), host: both.oracle.host, database: both.oracle.database };
    for (const cmd of ['\\ds', '\\d p_seq', '\\d p1', '\\d p1_id_seq', '\\d p1_v_seq']) {
      const [f, o] = [await runPsql(both.g.server, ['-c', cmd]), await runPsql(oracleTarget, ['-c', cmd])];
      assert.equal(f.stderr, o.stderr, cmd);
      assert.equal(f.stdout, o.stdout, cmd);
    }
  });

  test('nextval($1), setval($1, $2) and currval($1) take the sequence by name as a text parameter', async () => {
    await sameOnBoth(both, ['CREATE SEQUENCE by_param']);
    for (const c of [both.g.client, both.oracle]) {
      const got = [];
      for (const [text, values] of [['SELECT nextval($1)', ['public.by_param']], ['SELECT setval($1, $2)', ['by_param', 41]], ['SELECT currval($1)', ['by_param']]] as const) {
        got.push(String((await c.query({ text, values: [...values], rowMode: 'array' })).rows[0][0]));
      }
      assert.deepEqual(got, ['1', '41', '41']);
    }
  });
});
