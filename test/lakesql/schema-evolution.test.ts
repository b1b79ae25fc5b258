import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { runPsql } from '../harness/run-psql.js';
import { gatewayAndOracleForSuite } from './gateway-and-oracle.js';
import type { LakeSqlGateway } from './lake-sql-gateway.js';

/**
 * Schema evolution (ADD COLUMN … DEFAULT, ALTER COLUMN TYPE / DEFAULT / NOT NULL) and
 * CHECK / FOREIGN KEY constraints, run statement by statement on Floe and on PostgreSQL
 * 15: the outcome (command tag, or SQLSTATE, message and DETAIL) and the table contents
 * must agree.
 */

type Outcome = { command: string; rowCount: number | null } | { code: string; message: string; detail?: string };

async function outcome(c: pg.Client, sql: string): Promise<Outcome> {
  try {
    const r = await c.query(sql);
    return { command: r.command, rowCount: r.rowCount };
  } catch (e) {
    const x = e as { code?: string; message: string; detail?: string };
    return { code: x.code ?? '?', message: x.message, ...(x.detail !== undefined ? { detail: x.detail } : {}) };
  }
}

async function copyIn(c: pg.Client, sql: string, data: string): Promise<Outcome> {
  try {
    await pipeline(Readable.from([Buffer.from(data)]), c.query(copyFrom(sql)));
    return { command: 'COPY', rowCount: null };
  } catch (e) {
    const x = e as { code?: string; message: string; detail?: string };
    return { code: x.code ?? '?', message: x.message, ...(x.detail !== undefined ? { detail: x.detail } : {}) };
  }
}

describe('schema evolution, CHECK and FOREIGN KEY over the wire, against PostgreSQL 15', () => {
  let g: LakeSqlGateway;
  let oracle: pg.Client;
  gatewayAndOracleForSuite([], (both) => { g = both.g; oracle = both.oracle; });

  /** Runs each statement on both servers and compares outcomes, then the named tables' contents. */
  async function same(statements: readonly string[], tables: readonly string[]): Promise<void> {
    for (const sql of statements) {
      assert.deepEqual(await outcome(g.client, sql), await outcome(oracle, sql), sql);
    }
    for (const t of tables) {
      const q = `SELECT * FROM ${t} ORDER BY 1`;
      assert.deepEqual(await g.rows(q), (await oracle.query({ text: q, rowMode: 'array' })).rows, q);
    }
  }

  test('ADD COLUMN … DEFAULT gives rows already written the default, over base and change files; SET DEFAULT changes only new rows', async () => {
    await same([
      'CREATE TABLE ad (id int PRIMARY KEY, v text)',
      "INSERT INTO ad VALUES (1, 'a'), (2, 'b'), (3, 'c')",
      "UPDATE ad SET v = 'bb' WHERE id = 2",
      'DELETE FROM ad WHERE id = 3',
      "ALTER TABLE ad ADD COLUMN c text DEFAULT 'dflt'",
      'ALTER TABLE ad ADD COLUMN n int NOT NULL DEFAULT 0',
      "ALTER TABLE ad ADD COLUMN d date DEFAULT '2024-02-29', ADD COLUMN m numeric(6,2) DEFAULT 12.5, ADD COLUMN b bigint DEFAULT 9000000000",
      'ALTER TABLE ad ADD COLUMN e int DEFAULT 1 + 2',
      'ALTER TABLE ad ADD COLUMN z int NOT NULL',
      "INSERT INTO ad (id, v) VALUES (4, 'd')",
      "ALTER TABLE ad ALTER COLUMN c SET DEFAULT 'later'",
      "INSERT INTO ad (id, v) VALUES (5, 'e')",
      'ALTER TABLE ad ALTER COLUMN c DROP DEFAULT',
      "INSERT INTO ad (id, v) VALUES (6, 'f')",
      'SELECT * FROM ad WHERE c = \'dflt\' AND n = 0',
    ], ['ad']);
    assert.deepEqual(await g.rows("SELECT id FROM ad WHERE c = 'dflt' ORDER BY id"), [['1'], ['2'], ['4']]);
    // NOT NULL without a default: fine on an empty table.
    await same(['CREATE TABLE ad_empty (id int)', 'ALTER TABLE ad_empty ADD COLUMN z int NOT NULL', 'INSERT INTO ad_empty VALUES (1, NULL)'], ['ad_empty']);
    // An append table with a deleted row.
    await same([
      'CREATE TABLE ad_log (a int, b text)',
      "INSERT INTO ad_log VALUES (1, 'x'), (2, 'y'), (3, 'z')",
      'DELETE FROM ad_log WHERE a = 2',
      "ALTER TABLE ad_log ADD COLUMN t timestamp DEFAULT '2024-01-02 03:04:05'",
      'UPDATE ad_log SET b = b || \'!\' WHERE a = 3',
    ], ['ad_log']);
  });

  test('typed-literal defaults (`date \'…\'`) on CREATE TABLE and ADD COLUMN', async () => {
    await same([
      "CREATE TABLE tl (id int PRIMARY KEY, d date DEFAULT date '2024-01-01', e timestamp DEFAULT timestamp '2024-01-01 10:00', f int DEFAULT -1)",
      'INSERT INTO tl (id) VALUES (1)',
      "ALTER TABLE tl ADD COLUMN g date DEFAULT DATE '2024-02-17'",
      'INSERT INTO tl (id) VALUES (2)',
    ], ['tl']);
  });

  test('old snapshots read through the current schema: time travel sees the initial default', async () => {
    await g.run('CREATE TABLE tt (id int PRIMARY KEY, v int)');
    await g.run('INSERT INTO tt VALUES (1, 10), (2, 20)');
    const [[snap]] = await g.rows('SELECT max(snapshot_id) FROM "tt$snapshots"');
    await g.run("ALTER TABLE tt ADD COLUMN label text NOT NULL DEFAULT 'old'");
    await g.run("INSERT INTO tt VALUES (3, 30, 'new')");
    assert.deepEqual(await g.rows(`SELECT * FROM tt FOR SYSTEM_VERSION AS OF ${snap} ORDER BY id`), [['1', '10', 'old'], ['2', '20', 'old']]);
    assert.deepEqual(await g.rows('SELECT * FROM tt ORDER BY id'), [['1', '10', 'old'], ['2', '20', 'old'], ['3', '30', 'new']]);
  });

  test('ALTER COLUMN TYPE widens without a rewrite and keeps every value', async () => {
    await same([
      'CREATE TABLE wd (id int PRIMARY KEY, a smallint, b int, f real, n numeric(5,2), s varchar(3))',
      "INSERT INTO wd VALUES (1, 1, 100000, 1.5, 123.45, 'abc'), (2, -2, -7, 0.1, 1.00, 'x'), (3, NULL, NULL, NULL, NULL, NULL)",
      "UPDATE wd SET s = 'yy' WHERE id = 2",
      'ALTER TABLE wd ALTER COLUMN a TYPE int',
      'ALTER TABLE wd ALTER COLUMN a TYPE bigint',
      'ALTER TABLE wd ALTER COLUMN b TYPE bigint USING b',
      'ALTER TABLE wd ALTER COLUMN f TYPE double precision',
      'ALTER TABLE wd ALTER COLUMN n TYPE numeric(9,2)',
      'ALTER TABLE wd ALTER COLUMN s TYPE varchar(10)',
      'ALTER TABLE wd ALTER COLUMN s TYPE text',
      'ALTER TABLE wd ALTER COLUMN id TYPE bigint',
      "INSERT INTO wd VALUES (4, 5000000000, 9000000000, 1e300, 1234567.89, 'longer text')",
      'UPDATE wd SET b = b + 1 WHERE id = 1',
    ], ['wd']);
    assert.deepEqual(await g.rows('SELECT id FROM wd WHERE a > 4000000000 OR b < 0 ORDER BY id'), [['2'], ['4']]);
    assert.deepEqual(await g.rows('SELECT sum(a), sum(b) FROM wd'), [['4999999999', '9000099994']]);
  });

  test('what would need a rewrite is 0A000 with a hint (PostgreSQL rewrites): narrowing, USING, volatile ADD COLUMN defaults', async () => {
    await g.run('CREATE TABLE rw (id int PRIMARY KEY, b bigint, t text)');
    await g.run("INSERT INTO rw VALUES (1, 5, '7')");
    for (const sql of [
      'ALTER TABLE rw ALTER COLUMN b TYPE int',
      'ALTER TABLE rw ALTER COLUMN t TYPE int USING t::int',
      'ALTER TABLE rw ALTER COLUMN b TYPE int USING b + 1',
      'ALTER TABLE rw ADD COLUMN r float8 DEFAULT random()',
    ]) {
      const f = await g.failure(sql);
      assert.equal(f.code, '0A000', sql);
      assert.ok(f.hint, sql);
    }
    assert.deepEqual(await g.rows('SELECT * FROM rw'), [['1', '5', '7']]);
  });

  test('an ALTER TABLE whose one action fails changes nothing', async () => {
    await same([
      'CREATE TABLE at (id int PRIMARY KEY, a int, b bigint)',
      'INSERT INTO at VALUES (1, NULL, 5)',
      "ALTER TABLE at ADD COLUMN g text NOT NULL DEFAULT 'x', ADD COLUMN h int NOT NULL",
      "ALTER TABLE at ADD COLUMN g2 text DEFAULT 'x', ALTER COLUMN a SET NOT NULL",
      'ALTER TABLE at ADD COLUMN g4 int DEFAULT 5, ADD CONSTRAINT g4c CHECK (g4 > 5)',
      'ALTER TABLE at ADD COLUMN g5 int DEFAULT 5, ADD CONSTRAINT bc CHECK (b > 5)',
      'ALTER TABLE at ALTER COLUMN a SET DEFAULT 3, ALTER COLUMN id DROP NOT NULL',
      'ALTER TABLE at ADD COLUMN g6 int DEFAULT 6, ADD CONSTRAINT g6c CHECK (g6 > 5)',
      'INSERT INTO at (id, b) VALUES (2, 1)',
    ], ['at']);
    // Floe refuses a narrowing; the ADD COLUMN before it in the same statement is not applied either.
    assert.equal((await g.failure('ALTER TABLE at ADD COLUMN g7 int DEFAULT 7, ALTER COLUMN b TYPE int')).code, '0A000');
    assert.deepEqual(await g.rows("SELECT count(*) FROM information_schema.columns WHERE table_name = 'at' AND column_name = 'g7'"), [['0']]);
  });

  test('SET/DROP NOT NULL check existing rows; DROP NOT NULL on a key column is 42P16', async () => {
    await same([
      'CREATE TABLE nn (id int PRIMARY KEY, a int, b int)',
      'INSERT INTO nn VALUES (1, 1, NULL), (2, 2, 2)',
      'ALTER TABLE nn ALTER COLUMN a SET NOT NULL',
      'ALTER TABLE nn ALTER COLUMN b SET NOT NULL',
      'INSERT INTO nn VALUES (3, NULL, 3)',
      'UPDATE nn SET a = NULL WHERE id = 2',
      'ALTER TABLE nn ALTER COLUMN a DROP NOT NULL',
      'INSERT INTO nn VALUES (3, NULL, 3)',
      'ALTER TABLE nn ALTER COLUMN id DROP NOT NULL',
      'UPDATE nn SET b = 0 WHERE b IS NULL',
      'ALTER TABLE nn ALTER COLUMN b SET NOT NULL',
      'INSERT INTO nn VALUES (4, 4, NULL)',
    ], ['nn']);
  });

  test('CHECK constraints on INSERT, UPDATE, upserts, MERGE and ADD CONSTRAINT, with PostgreSQL\'s names and messages', async () => {
    await same([
      'CREATE TABLE ck (id int PRIMARY KEY, qty int CHECK (qty > 0), price numeric(8,2), CONSTRAINT price_ok CHECK (price >= 0 AND price < 1000), CHECK (qty < id * 100))',
      'INSERT INTO ck VALUES (1, 5, 10), (2, 1, 0)',
      'INSERT INTO ck VALUES (3, 0, 1)',
      'INSERT INTO ck VALUES (3, NULL, NULL)',
      'INSERT INTO ck VALUES (4, 2, 1000)',
      'INSERT INTO ck VALUES (5, 501, 1)',
      'INSERT INTO ck VALUES (1, -1, 5) ON CONFLICT (id) DO UPDATE SET qty = excluded.qty',
      'INSERT INTO ck VALUES (1, 7, 5) ON CONFLICT (id) DO UPDATE SET qty = excluded.qty',
      'INSERT INTO ck VALUES (1, 7, 5) ON CONFLICT (id) DO UPDATE SET price = -ck.price - 1',
      'INSERT INTO ck VALUES (1, -7, 5) ON CONFLICT (id) DO NOTHING',
      'UPDATE ck SET qty = qty - 1',
      'UPDATE ck SET qty = qty + 1 WHERE id = 2',
      'MERGE INTO ck USING (VALUES (2, -5), (9, 9)) s(id, q) ON ck.id = s.id WHEN MATCHED THEN UPDATE SET qty = s.q WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.q, 1)',
      'MERGE INTO ck USING (VALUES (2, 5), (9, -9)) s(id, q) ON ck.id = s.id WHEN MATCHED THEN UPDATE SET qty = s.q WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.q, 1)',
      'MERGE INTO ck USING (VALUES (2, 6), (9, 9)) s(id, q) ON ck.id = s.id WHEN MATCHED THEN UPDATE SET qty = s.q WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.q, 1)',
      'ALTER TABLE ck ADD COLUMN z int DEFAULT -1 CHECK (z > 0)',
      'ALTER TABLE ck ADD COLUMN z int DEFAULT 1 CHECK (z > 0)',
      'ALTER TABLE ck ADD CONSTRAINT z_lt CHECK (z < id)',
      'ALTER TABLE ck ADD CONSTRAINT z_lt CHECK (z <= id)',
      'ALTER TABLE ck ADD CONSTRAINT z_lt CHECK (z <= id + 1)',
      'ALTER TABLE ck ADD CHECK (price < 500)',
      'ALTER TABLE ck ADD CHECK (price < 5000)',
      'INSERT INTO ck VALUES (10, 1, 600, 1)',
      'ALTER TABLE ck ADD CHECK (qty * 2 > 0 AND id > 0)',
      'ALTER TABLE ck ADD CHECK (1 + 1)',
      'ALTER TABLE ck ADD CHECK (nope > 0)',
      'ALTER TABLE ck RENAME COLUMN qty TO quantity',
      'INSERT INTO ck VALUES (20, 0, 1, 1)',
      'ALTER TABLE ck DROP COLUMN z',
      'ALTER TABLE ck DROP CONSTRAINT price_ok',
      'ALTER TABLE ck DROP CONSTRAINT price_ok',
      'ALTER TABLE ck DROP CONSTRAINT IF EXISTS price_ok',
      'INSERT INTO ck VALUES (21, 1, -5)',
    ], ['ck']);
    const defs = 'SELECT conname, contype, pg_get_constraintdef(oid), pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conrelid = \'ck\'::regclass ORDER BY conname';
    assert.deepEqual(await g.rows(defs), (await oracle.query({ text: defs, rowMode: 'array' })).rows);
  });

  test('COPY FROM enforces CHECK constraints and writes nothing of a failing COPY', async () => {
    await same(['CREATE TABLE cp (id int PRIMARY KEY, v int CHECK (v <> 13))'], []);
    for (const data of ['1\t1\n2\t2\n', '3\t3\n4\t13\n5\t5\n', '6\t\\N\n']) {
      assert.deepEqual(await copyIn(g.client, 'COPY cp FROM STDIN', data), await copyIn(oracle, 'COPY cp FROM STDIN', data), data);
    }
    await same([], ['cp']);
  });

  test('FOREIGN KEY is recorded with a NOTICE, never enforced, and shown in pg_constraint, information_schema and psql\'s \\d', async () => {
    const notices: string[] = [];
    g.client.on('notice', (n) => notices.push(n.message ?? ''));
    await g.run('CREATE TABLE fk_c (id int PRIMARY KEY, name text)');
    await g.run('CREATE TABLE fk_o (oid int PRIMARY KEY, cid int REFERENCES fk_c(id), qty int CHECK (qty > 0))');
    await g.run('ALTER TABLE fk_o ADD COLUMN cid2 int');
    await g.run('ALTER TABLE fk_o ADD CONSTRAINT second_fk FOREIGN KEY (cid2) REFERENCES fk_c');
    assert.deepEqual(notices, [
      'foreign key constraint "fk_o_cid_fkey" is recorded but not enforced',
      'foreign key constraint "second_fk" is recorded but not enforced',
    ]);
    // Not enforced: a dangling reference is accepted.
    await g.run('INSERT INTO fk_o VALUES (1, 999, 1, 998)');
    assert.equal((await g.failure('CREATE TABLE fk_x (a int REFERENCES fk_missing(id))')).code, '42P01');
    assert.equal((await g.failure('CREATE TABLE fk_x (a int REFERENCES fk_c(nope))')).code, '42703');
    assert.equal((await g.failure('CREATE TABLE fk_x (a int REFERENCES fk_c(name))')).code, '42830');
    assert.deepEqual(await g.rows(`
      SELECT conname, contype, conkey::text, confkey::text, confrelid = 'fk_c'::regclass, pg_get_constraintdef(oid)
      FROM pg_constraint WHERE conrelid = 'fk_o'::regclass AND contype = 'f' ORDER BY conname`), [
      ['fk_o_cid_fkey', 'f', '{2}', '{1}', 't', 'FOREIGN KEY (cid) REFERENCES fk_c(id) NOT ENFORCED'],
      ['second_fk', 'f', '{4}', '{1}', 't', 'FOREIGN KEY (cid2) REFERENCES fk_c(id) NOT ENFORCED'],
    ]);
    assert.deepEqual(await g.rows(`
      SELECT rc.constraint_name, rc.unique_constraint_name, kcu.column_name, kcu.position_in_unique_constraint
      FROM information_schema.referential_constraints rc JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = rc.constraint_name
      ORDER BY 1`), [['fk_o_cid_fkey', 'fk_c_pkey', 'cid', '1'], ['second_fk', 'fk_c_pkey', 'cid2', '1']]);
    const d = await runPsql({ port: g.server.port }, ['-c', '\\d fk_o']);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /Check constraints:\n {4}"fk_o_qty_check" CHECK \(qty > 0\)\n/);
    assert.match(d.stdout, /Foreign-key constraints:\n {4}"fk_o_cid_fkey" FOREIGN KEY \(cid\) REFERENCES fk_c\(id\) NOT ENFORCED\n {4}"second_fk" FOREIGN KEY \(cid2\) REFERENCES fk_c\(id\) NOT ENFORCED\n/);
    const dc = await runPsql({ port: g.server.port }, ['-c', '\\d fk_c']);
    assert.equal(dc.code, 0, dc.stderr);
    assert.match(dc.stdout, /Referenced by:\n/);
    // As in PostgreSQL, the referenced table cannot be dropped without CASCADE, which drops the foreign keys.
    const f = await g.failure('DROP TABLE fk_c');
    assert.equal(f.code, '2BP01');
    assert.equal(f.message, 'cannot drop table fk_c because other objects depend on it');
    notices.length = 0;
    await g.run('DROP TABLE fk_c CASCADE');
    assert.deepEqual(notices, ['drop cascades to 2 other objects']);
    assert.deepEqual(await g.rows("SELECT conname FROM pg_constraint WHERE contype = 'f'"), []);
  });
});
