import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runPsql } from '../harness/run-psql.js';
import { gatewayAndOracleForSuite, sameOnBoth } from './gateway-and-oracle.js';
import type { GatewayAndOracle } from './gateway-and-oracle.js';

const COLUMNS_OF = (tables: string) => `SELECT table_name, column_name, data_type, is_nullable, column_default, character_maximum_length, numeric_precision, numeric_scale
  FROM information_schema.columns WHERE table_name IN (${tables}) ORDER BY table_name, ordinal_position`;

describe('derived tables, COMMENT ON and SET SCHEMA against PostgreSQL 15', () => {
  let both!: GatewayAndOracle;
  gatewayAndOracleForSuite([
    "CREATE TABLE src (id int PRIMARY KEY, name varchar(20) NOT NULL DEFAULT 'none', price numeric(8,2), CHECK (price > 0))",
    "INSERT INTO src VALUES (1, 'a', 1.50), (2, 'b', 2.50), (3, 'c', NULL)",
  ], (b) => { both = b; });
  const oracleTarget = () => ({ port: Number(both.oracle.port), host: both.oracle.host, database: both.oracle.database });

  test('CREATE TABLE AS: tags, column lists, WITH NO DATA, IF NOT EXISTS, and its errors', () => sameOnBoth(both, [
    'CREATE TABLE c1 AS SELECT id, name, price * 2 AS doubled FROM src WHERE id < 3',
    'SELECT * FROM c1 ORDER BY id',
    'CREATE TABLE c2 (k, label) AS SELECT id, upper(name) FROM src',
    'SELECT * FROM c2 ORDER BY k',
    'CREATE TABLE c3 AS SELECT * FROM src WITH NO DATA',
    'SELECT count(*) FROM c3',
    'CREATE TABLE IF NOT EXISTS c3 AS SELECT 1',
    'CREATE TABLE c3 AS SELECT 1',
    'CREATE TABLE c4 AS VALUES (1, \'x\'), (2, \'y\')',
    'SELECT * FROM c4 ORDER BY 1',
    "CREATE TABLE c5 AS SELECT 'lit' AS t, 1.5 AS n, 7 AS i, NULL::date AS d",
    'CREATE TABLE bad (a, a) AS SELECT 1, 2',
    'CREATE TABLE bad (a, b, c) AS SELECT 1, 2',
    'CREATE TABLE bad AS SELECT 1 AS x, 2 AS x',
    'CREATE TABLE bad AS SELECT no_such_column_here FROM src',
    'SELECT count(*) FROM pg_class WHERE relname = \'bad\'',
    "INSERT INTO c1 VALUES (1, 'dup', 0)",
    'SELECT count(*) FROM c1',
    COLUMNS_OF("'c1', 'c2', 'c3', 'c4', 'c5'"),
  ]));

  test('SELECT … INTO makes a table too', () => sameOnBoth(both, [
    'SELECT id, name INTO s1 FROM src WHERE price IS NOT NULL ORDER BY id',
    'SELECT * FROM s1 ORDER BY id',
    'SELECT 1 AS one INTO s2 FROM src WHERE false',
    'SELECT count(*) FROM s2',
    'SELECT id INTO s1 FROM src',
    COLUMNS_OF("'s1', 's2'"),
  ]));

  test('CREATE TABLE (LIKE …) copies columns, and defaults, checks and keys as asked', () => sameOnBoth(both, [
    'CREATE TABLE l1 (LIKE src)',
    'CREATE TABLE l2 (LIKE src INCLUDING DEFAULTS)',
    'CREATE TABLE l3 (LIKE src INCLUDING ALL)',
    'CREATE TABLE l4 (extra int, LIKE src EXCLUDING ALL, more text)',
    'CREATE TABLE l5 (LIKE nope)',
    'CREATE TABLE l6 (id int, LIKE src)',
    COLUMNS_OF("'l1', 'l2', 'l3', 'l4'"),
    "SELECT c.relname, co.contype, pg_get_constraintdef(co.oid) FROM pg_constraint co JOIN pg_class c ON c.oid = co.conrelid WHERE c.relname IN ('l1', 'l2', 'l3') ORDER BY 1, 2",
    "INSERT INTO l2 (id) VALUES (1) RETURNING name",
    "INSERT INTO l3 (id, price) VALUES (1, -1)",
    "INSERT INTO l3 (id) VALUES (1)",
    "INSERT INTO l3 (id) VALUES (1)",
    'INSERT INTO l1 (id) VALUES (1)',
  ]));

  test('COMMENT ON TABLE, COLUMN and VIEW, shown by obj_description, col_description and pg_description', () => sameOnBoth(both, [
    'CREATE TABLE cm (a int, b text)',
    'CREATE VIEW cm_v AS SELECT a FROM cm',
    "COMMENT ON TABLE cm IS 'the table'",
    "COMMENT ON COLUMN cm.b IS 'the b'",
    "COMMENT ON COLUMN public.cm.a IS 'the a'",
    "COMMENT ON VIEW cm_v IS 'the view'",
    "COMMENT ON TABLE cm_v IS 'no'",
    "COMMENT ON VIEW cm IS 'no'",
    "COMMENT ON TABLE nope IS 'no'",
    "COMMENT ON COLUMN cm.nope IS 'no'",
    "SELECT obj_description('cm'::regclass, 'pg_class'), obj_description('cm_v'::regclass, 'pg_class'), col_description('cm'::regclass, 1), col_description('cm'::regclass, 2), col_description('cm'::regclass, 3)",
    "SELECT objsubid, description FROM pg_description WHERE objoid = 'cm'::regclass ORDER BY objsubid",
    "COMMENT ON COLUMN cm.b IS NULL",
    "COMMENT ON TABLE cm IS ''",
    "SELECT obj_description('cm'::regclass, 'pg_class'), col_description('cm'::regclass, 2)",
    "COMMENT ON TABLE cm IS 'again'",
    'DROP VIEW cm_v',
    'DROP TABLE cm',
    'CREATE TABLE cm (a int)',
    "SELECT obj_description('cm'::regclass, 'pg_class')",
  ]));

  test("psql's \\dt+ query and \\d+ show comments as PostgreSQL does", async () => {
    await sameOnBoth(both, [
      'CREATE SCHEMA pc', 'CREATE TABLE pc.t (a int, b text)',
      "COMMENT ON TABLE pc.t IS 'about t'", "COMMENT ON COLUMN pc.t.b IS 'about b'",
    ]);
    // psql's \dt+ query, without its Size column (pg_size_pretty belongs to another part of issue 25).
    await sameOnBoth(both, [`SELECT n.nspname as "Schema", c.relname as "Name",
  CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' END as "Type",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner",
  pg_catalog.obj_description(c.oid, 'pg_class') as "Description"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
WHERE c.relkind IN ('r','p','t','s','')
  AND n.nspname OPERATOR(pg_catalog.~) '^(pc)$' COLLATE pg_catalog.default
ORDER BY 1,2`]);
    for (const cmd of ['\\d+ pc.t']) {
      const [f, o] = [await runPsql(both.g.server, ['-c', cmd]), await runPsql(oracleTarget(), ['-c', cmd])];
      assert.equal(f.stderr, o.stderr, cmd);
      assert.equal(f.stdout, o.stdout, cmd);
    }
  });

  test('ALTER TABLE … SET SCHEMA moves the table (and the sequences it owns)', () => sameOnBoth(both, [
    'CREATE SCHEMA s_a',
    'CREATE TABLE mv (id serial, v text)',
    "INSERT INTO mv (v) VALUES ('one')",
    'ALTER TABLE mv SET SCHEMA s_a',
    'SELECT * FROM mv',
    'SELECT * FROM s_a.mv',
    "INSERT INTO s_a.mv (v) VALUES ('two') RETURNING id",
    "SELECT schemaname, sequencename FROM pg_sequences WHERE sequencename = 'mv_id_seq'",
    'ALTER TABLE s_a.mv SET SCHEMA nope',
    'CREATE TABLE mv (x int)',
    'ALTER TABLE mv SET SCHEMA s_a',
    'ALTER TABLE nope SET SCHEMA s_a',
    'ALTER TABLE IF EXISTS nope SET SCHEMA s_a',
    'CREATE VIEW mv_view AS SELECT 1 AS one',
    'ALTER VIEW mv_view SET SCHEMA s_a',
    'SELECT * FROM s_a.mv_view',
    "SELECT table_schema, table_name FROM information_schema.tables WHERE table_name IN ('mv', 'mv_view') ORDER BY 1, 2",
  ]));
});

describe('CREATE TABLE AS with a primary key (Floe dialect)', () => {
  let both!: GatewayAndOracle;
  gatewayAndOracleForSuite([], (b) => { both = b; });

  test("WITH (primary_key = 'a,b') makes a keyed table; a duplicate key fails and leaves nothing", async () => {
    const g = both.g;
    await g.run('CREATE TABLE kk (a int, b int, v text)');
    await g.run("INSERT INTO kk VALUES (1, 1, 'x'), (1, 2, 'y'), (2, 1, 'z')");
    assert.deepEqual(await g.run("CREATE TABLE kk2 WITH (primary_key = 'a,b') AS SELECT * FROM kk"), { command: 'SELECT', rowCount: 3 });
    assert.deepEqual(await g.rows("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'kk2'::regclass AND contype = 'p'"), [['PRIMARY KEY (a, b)']]);
    assert.deepEqual(await g.rows("SELECT attname, attnotnull::text FROM pg_attribute WHERE attrelid = 'kk2'::regclass AND attnum > 0 ORDER BY attnum"),
      [['a', 'true'], ['b', 'true'], ['v', 'false']]);
    assert.equal((await g.failure("INSERT INTO kk2 VALUES (1, 1, 'again')")).code, '23505');
    const dup = await g.failure("CREATE TABLE kk3 WITH (primary_key = 'a') AS SELECT * FROM kk");
    assert.equal(dup.code, '23505');
    assert.deepEqual(await g.rows("SELECT count(*) FROM pg_class WHERE relname = 'kk3'"), [['0']]);
    assert.equal((await g.failure("CREATE TABLE kk4 WITH (primary_key = 'nope') AS SELECT * FROM kk")).code, '42703');
  });
});
