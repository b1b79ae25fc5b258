import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLakeSqlGateway } from './lake-sql-gateway.js';
import type { LakeSqlGateway } from './lake-sql-gateway.js';

/*
 * Paimon's merge engines through the gateway (node-postgres): the properties as CREATE
 * TABLE … WITH and SHOW TBLPROPERTIES give them, what INSERT, UPDATE and DELETE do per
 * engine, reads before and after CALL optimize (the fold), point reads and filters on
 * combined columns, EXPLAIN's line, and the errors (SQLSTATE, hint) for what is refused.
 */
describe('merge engines through SQL', () => {
  let g: LakeSqlGateway;
  before(async () => { g = await startLakeSqlGateway(); });
  after(async () => { await g?.stop(); });

  test('first-row: the first row written for a key stays; UPDATE is refused, DELETE frees the key', async () => {
    await g.run("CREATE TABLE fr (id int PRIMARY KEY, v text) WITH ('merge-engine' = 'first-row')");
    assert.deepEqual(await g.rows('SHOW TBLPROPERTIES fr'), [['merge-engine', 'first-row']]);
    await g.run("INSERT INTO fr VALUES (1, 'first'), (2, 'two')");
    // an INSERT of a live key is no 23505: every write is an upsert, and first-row ignores it
    assert.deepEqual(await g.run("INSERT INTO fr VALUES (1, 'second')"), { command: 'INSERT', rowCount: 1 });
    assert.deepEqual(await g.rows('SELECT * FROM fr ORDER BY id'), [['1', 'first'], ['2', 'two']]);
    const e = await g.failure("UPDATE fr SET v = 'x' WHERE id = 1");
    assert.equal(e.code, '0A000');
    assert.match(e.message, /UPDATE is not supported on table "fr" \(merge-engine first-row\)/);
    await g.run('DELETE FROM fr WHERE id = 1');
    await g.run("INSERT INTO fr VALUES (1, 'again'), (1, 'ignored')");
    await g.run("CALL optimize('fr')");
    assert.deepEqual(await g.rows('SELECT * FROM fr ORDER BY id'), [['1', 'again'], ['2', 'two']]);
    assert.deepEqual(await g.rows('SELECT v FROM fr WHERE id = 1'), [['again']]);
  });

  test('partial-update: non-NULL values overwrite, a sequence group moves with its sequence column', async () => {
    await g.run(`CREATE TABLE pu (id int PRIMARY KEY, a int, b text, g int, c text)
      WITH ('merge-engine' = 'partial-update', 'fields.g.sequence-group' = 'c')`);
    assert.deepEqual(await g.rows('SHOW TBLPROPERTIES pu'), [['fields.g.sequence-group', 'c'], ['merge-engine', 'partial-update']]);
    await g.run("INSERT INTO pu VALUES (1, 10, NULL, 5, 'five')");
    await g.run("INSERT INTO pu VALUES (1, NULL, 'bee', 3, 'three')"); // g = 3 < 5: the group keeps (5, 'five')
    await g.run("INSERT INTO pu (id, b) VALUES (2, 'only b')");
    const all = [['1', '10', 'bee', '5', 'five'], ['2', null, 'only b', null, null]];
    assert.deepEqual(await g.rows('SELECT * FROM pu ORDER BY id'), all);
    // a filter on a column the merge combined sees the combined row, before and after the fold
    assert.deepEqual(await g.rows("SELECT id FROM pu WHERE a = 10 AND b = 'bee'"), [['1']]);
    await g.run("INSERT INTO pu VALUES (1, NULL, NULL, 7, NULL)"); // the group moves whole, its NULL included
    assert.deepEqual(await g.rows('SELECT * FROM pu WHERE id = 1'), [['1', '10', 'bee', '7', null]]);
    await g.run("CALL optimize('pu')");
    await g.run("INSERT INTO pu (id, a) VALUES (1, 11)");
    assert.deepEqual(await g.rows("SELECT * FROM pu WHERE b = 'bee'"), [['1', '11', 'bee', '7', null]]);
    // UPDATE writes the whole new row
    await g.run("UPDATE pu SET b = 'B' WHERE id = 2");
    assert.deepEqual(await g.rows('SELECT * FROM pu WHERE id = 2'), [['2', null, 'B', null, null]]);
    const explain = (await g.rows('EXPLAIN SELECT * FROM pu WHERE id = 1')).map((r) => r[0]).join('\n');
    assert.match(explain, /Point Read: full primary key/);
    assert.match(explain, /Merge Engine: partial-update/);
    const d = await g.failure('DELETE FROM pu WHERE id = 2');
    assert.equal(d.code, '0A000');
    assert.match(d.hint ?? '', /partial-update.remove-record-on-delete/);
    const k = await g.failure('UPDATE pu SET id = 9 WHERE id = 2');
    assert.equal(k.code, '0A000');
  });

  test('partial-update with remove-record-on-delete: DELETE removes the row, a later write starts a new one', async () => {
    await g.run("CREATE TABLE pud (id int PRIMARY KEY, a int, b text) WITH ('merge-engine' = 'partial-update', 'partial-update.remove-record-on-delete' = 'true')");
    await g.run("INSERT INTO pud VALUES (1, 1, 'x')");
    await g.run('DELETE FROM pud WHERE id = 1');
    await g.run('INSERT INTO pud (id, a) VALUES (1, 2)');
    assert.deepEqual(await g.rows('SELECT * FROM pud'), [['1', '2', null]]);
  });

  test('aggregation: each column by its function; UPDATE only where every function can take a value back', async () => {
    await g.run(`CREATE TABLE ag (id int PRIMARY KEY, total bigint, n bigint, hi int, lo int, last text, seen text, tags text, any_ok boolean, all_ok boolean)
      WITH ('merge-engine' = 'aggregation', 'fields.total.aggregate-function' = 'sum', 'fields.n.aggregate-function' = 'count',
        'fields.hi.aggregate-function' = 'max', 'fields.lo.aggregate-function' = 'min', 'fields.last.aggregate-function' = 'last_value',
        'fields.tags.aggregate-function' = 'listagg', 'fields.tags.list-agg-delimiter' = ';',
        'fields.any_ok.aggregate-function' = 'bool_or', 'fields.all_ok.aggregate-function' = 'bool_and')`);
    await g.run("INSERT INTO ag VALUES (1, 10, 0, 3, 3, 'a', 'a', 't1', false, true)");
    await g.run("INSERT INTO ag VALUES (1, 5, 0, 9, -1, NULL, NULL, 't2', true, false), (2, 1, NULL, 1, 1, 'z', 'z', NULL, NULL, NULL)");
    const want = [['1', '15', '2', '9', '-1', null, 'a', 't1;t2', 't', 'f'], ['2', '1', '0', '1', '1', 'z', 'z', null, null, null]];
    assert.deepEqual(await g.rows('SELECT * FROM ag ORDER BY id'), want);
    await g.run("CALL optimize('ag')");
    assert.deepEqual(await g.rows('SELECT * FROM ag ORDER BY id'), want);
    assert.deepEqual(await g.rows('SELECT id FROM ag WHERE total = 15'), [['1']]);
    const u = await g.failure('UPDATE ag SET total = 0 WHERE id = 1');
    assert.equal(u.code, '0A000');
    assert.match(u.hint ?? '', /max \(column "hi"\)/);
    const d = await g.failure('DELETE FROM ag WHERE id = 1');
    assert.equal(d.code, '0A000');
    assert.match(d.hint ?? '', /aggregation.remove-record-on-delete/);

    await g.run(`CREATE TABLE ctr (id int PRIMARY KEY, hits bigint, note text)
      WITH ('merge-engine' = 'aggregation', 'fields.hits.aggregate-function' = 'sum', 'aggregation.remove-record-on-delete' = 'true')`);
    await g.run("INSERT INTO ctr VALUES (1, 1, 'a'), (1, 1, NULL), (2, 7, 'b')");
    assert.deepEqual(await g.rows('SELECT * FROM ctr ORDER BY id'), [['1', '2', 'a'], ['2', '7', 'b']]);
    // UPDATE takes the old row back (-U) and adds the new one (+U): the sum becomes the new value
    await g.run('UPDATE ctr SET hits = hits * 10 WHERE id = 1');
    assert.deepEqual(await g.rows('SELECT * FROM ctr ORDER BY id'), [['1', '20', 'a'], ['2', '7', 'b']]);
    await g.run('DELETE FROM ctr WHERE id = 2');
    await g.run("CALL optimize('ctr')");
    assert.deepEqual(await g.rows('SELECT * FROM ctr ORDER BY id'), [['1', '20', 'a']]);
    await g.run('INSERT INTO ctr VALUES (1, 5, NULL)');
    assert.deepEqual(await g.rows('SELECT hits, note FROM ctr WHERE id = 1'), [['25', 'a']]);
  });

  test('a table big enough for the scan workers combines the same there, and after a fold', async () => {
    await g.run("CREATE TABLE big (id int PRIMARY KEY, hits bigint, tag text) WITH ('merge-engine' = 'aggregation', 'fields.hits.aggregate-function' = 'sum')");
    await g.run("INSERT INTO big SELECT g, 1, 'a' FROM generate_series(1, 60000) g");
    await g.run("INSERT INTO big SELECT g, 2, NULL FROM generate_series(1, 60000, 2) g");
    const check = async () => assert.deepEqual(await g.rows("SELECT count(*), sum(hits), count(*) FILTER (WHERE hits = 3), count(tag) FROM big"), [['60000', '120000', '30000', '60000']]);
    await check();
    await g.run("CALL optimize('big')");
    await g.run("INSERT INTO big VALUES (2, 10, 'b')");
    assert.deepEqual(await g.rows('SELECT hits, tag FROM big WHERE id = 2'), [['11', 'b']]);
    assert.deepEqual(await g.rows('SELECT id FROM big WHERE hits = 11'), [['2']]);
  });

  test('the engine is fixed once rows exist; bad options are refused before anything is written', async () => {
    const e = await g.failure("ALTER TABLE fr SET ('merge-engine' = 'deduplicate')");
    assert.equal(e.code, '0A000');
    assert.match(e.message, /cannot change "merge-engine" of table "fr" after rows were written to it/);
    assert.equal((await g.failure("ALTER TABLE ag SET ('fields.lo.aggregate-function' = 'max')")).code, '0A000');
    assert.equal((await g.failure('ALTER TABLE ag DROP COLUMN tags')).code, '2BP01');
    // an empty table may change its engine
    await g.run('CREATE TABLE empty (id int PRIMARY KEY, v int)');
    await g.run("ALTER TABLE empty SET ('merge-engine' = 'aggregation', 'fields.v.aggregate-function' = 'sum')");
    assert.deepEqual(await g.rows('SHOW TBLPROPERTIES empty'), [['fields.v.aggregate-function', 'sum'], ['merge-engine', 'aggregation']]);
    await g.run('ALTER TABLE empty RESET ("merge-engine", "fields.v.aggregate-function")');
    assert.deepEqual(await g.rows('SHOW TBLPROPERTIES empty'), []);
    const cases: [string, string, RegExp][] = [
      ["CREATE TABLE x1 (id int PRIMARY KEY, v int) WITH ('merge-engine' = 'aggregate')", '22023', /invalid value for merge-engine/],
      ["CREATE TABLE x2 (id int, v int) WITH ('merge-engine' = 'first-row')", '22023', /needs a primary key/],
      ["CREATE TABLE x3 (id int PRIMARY KEY, v int) WITH ('merge-engine' = 'aggregation', 'fields.v.aggregate-function' = 'median')", '22023', /invalid value for fields.v.aggregate-function/],
      ["CREATE TABLE x4 (id int PRIMARY KEY, v text) WITH ('merge-engine' = 'aggregation', 'fields.v.aggregate-function' = 'sum')", '42804', /sum does not apply to column "v"/],
      ["CREATE TABLE x5 (id int PRIMARY KEY, v int) WITH ('merge-engine' = 'aggregation', 'fields.w.aggregate-function' = 'sum')", '42703', /column "w"/],
      ["CREATE TABLE x6 (id int PRIMARY KEY, v int) WITH ('fields.v.aggregate-function' = 'sum')", '22023', /applies to merge-engine aggregation/],
      ["CREATE TABLE x7 (id int PRIMARY KEY, v int) WITH ('merge-engine' = 'partial-update', 'fields.id.sequence-group' = 'v')", '22023', /primary key column/],
      ["CREATE TABLE x8 (id int PRIMARY KEY, v int) WITH ('merge-engine' = 'partial-update', 'partial-update.remove-record-on-delete' = 'yes')", '22023', /true or false|remove-record-on-delete/],
    ];
    for (const [sql, code, message] of cases) {
      const f = await g.failure(sql);
      assert.equal(f.code, code, sql);
      assert.match(f.message, message, sql);
    }
    assert.equal((await g.failure('SELECT * FROM x1')).code, '42P01', 'nothing was created');
  });

  test('a combining engine takes no lookup changelog and joins no publication: their changes are the rows written', async () => {
    const c = await g.failure("CREATE TABLE lk (id int PRIMARY KEY, v int) WITH ('merge-engine' = 'first-row', 'changelog-producer' = 'lookup')");
    assert.equal(c.code, '0A000');
    assert.match(c.message, /changelog-producer "lookup" is not supported with merge-engine "first-row"/);
    await g.run("CREATE TABLE lk2 (id int PRIMARY KEY, v int) WITH ('merge-engine' = 'partial-update')");
    assert.equal((await g.failure("ALTER TABLE lk2 SET ('changelog-producer' = 'lookup')")).code, '0A000');
    await g.run("CREATE TABLE lk3 (id int PRIMARY KEY, v int) WITH ('changelog-producer' = 'lookup')");
    assert.equal((await g.failure("ALTER TABLE lk3 SET ('merge-engine' = 'first-row')")).code, '0A000', 'nor the other way round');
    const p = await g.failure('CREATE PUBLICATION engines_pub FOR TABLE lk2');
    assert.equal(p.code, '0A000');
    assert.match(p.detail ?? '', /merge-engine "partial-update" cannot be published yet/);
    assert.equal((await g.failure('DROP PUBLICATION engines_pub')).code, '42704', 'nothing was created');
  });
});
