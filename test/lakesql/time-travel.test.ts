import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runPsql } from '../harness/run-psql.js';
import { startLakeSqlGateway } from './lake-sql-gateway.js';
import type { LakeSqlGateway } from './lake-sql-gateway.js';

/** Main's rows after each statement, keyed by the snapshot that statement committed. */
type States = Map<string, (string | null)[][]>;

describe('time travel in every spelling, checked against t$snapshots', () => {
  let g: LakeSqlGateway;
  const states: States = new Map();
  let snaps: { id: string; at: string }[] = [];
  const statements = [
    "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
    "UPDATE t SET v = 'B' WHERE id = 2",
    'DELETE FROM t WHERE id = 1',
    "INSERT INTO t VALUES (4, 'd'), (1, 'a2')",
  ];
  const mainRows = () => g.rows('SELECT id, v FROM t ORDER BY id');

  before(async () => {
    g = await startLakeSqlGateway();
    await g.run('CREATE TABLE t (id int PRIMARY KEY, v text)');
    for (const s of statements) {
      await g.run(s);
      const [[head]] = await g.rows("SELECT snapshot_id FROM t$refs WHERE name = 'main'");
      states.set(head!, await mainRows());
    }
    snaps = (await g.rows('SELECT snapshot_id, committed_at::text FROM t$snapshots ORDER BY snapshot_id')).map(([id, at]) => ({ id: id!, at: at! }));
  });
  after(async () => { await g?.stop(); });

  test('every statement made one snapshot; the first is the empty create', async () => {
    assert.equal(snaps.length, statements.length + 1);
    assert.deepEqual([...states.keys()], snaps.slice(1).map((s) => s.id));
    assert.deepEqual(await g.rows(`SELECT count(*) FROM t FOR SYSTEM_VERSION AS OF ${snaps[0]!.id}`), [['0']]);
  });

  test('by snapshot id: FOR SYSTEM_VERSION AS OF, VERSION AS OF, FOR VERSION AS OF, and the id as a string', async () => {
    for (const [id, expected] of states) {
      for (const clause of [`FOR SYSTEM_VERSION AS OF ${id}`, `VERSION AS OF ${id}`, `FOR VERSION AS OF ${id}`, `FOR SYSTEM_VERSION AS OF '${id}'`]) {
        assert.deepEqual(await g.rows(`SELECT id, v FROM t ${clause} ORDER BY id`), expected, clause);
      }
    }
  });

  test('by timestamp: FOR SYSTEM_TIME AS OF, TIMESTAMP AS OF, FOR TIMESTAMP AS OF, at and just after each commit', async () => {
    for (const { id, at } of snaps.slice(1)) {
      const expected = states.get(id)!;
      const [[justAfter]] = await g.rows(`SELECT (timestamptz '${at}' + interval '1 microsecond')::text`);
      for (const clause of [`FOR SYSTEM_TIME AS OF '${at}'`, `TIMESTAMP AS OF '${at}'`, `FOR TIMESTAMP AS OF '${justAfter}'`,
        `FOR SYSTEM_TIME AS OF TIMESTAMPTZ '${at}'`]) {
        assert.deepEqual(await g.rows(`SELECT id, v FROM t ${clause} ORDER BY id`), expected, clause);
      }
    }
    // Just before the second write commits, the first write is what is visible.
    const [[before2]] = await g.rows(`SELECT (timestamptz '${snaps[2]!.at}' - interval '1 microsecond')::text`);
    assert.deepEqual(await g.rows(`SELECT id, v FROM t FOR SYSTEM_TIME AS OF '${before2}' ORDER BY id`), states.get(snaps[1]!.id));
  });

  test('by tag and by branch name, and a branch read as t$branch_b', async () => {
    const second = snaps[2]!.id;
    await g.run(`ALTER TABLE t CREATE TAG before_delete AS OF VERSION ${second}`);
    await g.run(`ALTER TABLE t CREATE BRANCH old AS OF VERSION ${snaps[1]!.id}`);
    for (const clause of ["FOR SYSTEM_VERSION AS OF 'before_delete'", "VERSION AS OF 'before_delete'"]) {
      assert.deepEqual(await g.rows(`SELECT id, v FROM t ${clause} ORDER BY id`), states.get(second), clause);
    }
    assert.deepEqual(await g.rows("SELECT id, v FROM t VERSION AS OF 'old' ORDER BY id"), states.get(snaps[1]!.id));
    assert.deepEqual(await g.rows('SELECT id, v FROM t$branch_old ORDER BY id'), states.get(snaps[1]!.id));
    assert.deepEqual(await g.rows("SELECT id, v FROM t VERSION AS OF 'main' ORDER BY id"), await mainRows());
    // Iceberg's rule: a name that is also a snapshot id resolves as the id.
    await g.run(`ALTER TABLE t CREATE TAG "${snaps[1]!.id}" AS OF VERSION ${snaps[3]!.id}`);
    assert.deepEqual(await g.rows(`SELECT id, v FROM t FOR SYSTEM_VERSION AS OF '${snaps[1]!.id}' ORDER BY id`), states.get(snaps[1]!.id));
    await g.run(`ALTER TABLE t DROP TAG "${snaps[1]!.id}"`);
  });

  test('in joins and subqueries, with an alias after the clause', async () => {
    const [s1, s2, s3] = [snaps[1]!.id, snaps[2]!.id, snaps[3]!.id];
    assert.deepEqual(await g.rows(
      `SELECT a.id, a.v, b.v FROM t FOR SYSTEM_VERSION AS OF ${s1} a LEFT JOIN t FOR SYSTEM_VERSION AS OF ${s3} b ON a.id = b.id ORDER BY a.id`),
    [['1', 'a', null], ['2', 'b', 'B'], ['3', 'c', 'c']]);
    assert.deepEqual(await g.rows(`SELECT id FROM t WHERE id NOT IN (SELECT id FROM t VERSION AS OF ${s2}) ORDER BY id`), [['4']]);
    assert.deepEqual(await g.rows(`SELECT (SELECT count(*) FROM t FOR SYSTEM_VERSION AS OF ${s1}), (SELECT count(*) FROM t)`), [['3', '4']]);
    assert.deepEqual(await g.rows(`SELECT x.v FROM (SELECT * FROM t FOR SYSTEM_TIME AS OF '${snaps[2]!.at}') x WHERE x.id = 2`), [['B']]);
    assert.deepEqual(await g.rows(
      `SELECT id FROM t FOR SYSTEM_VERSION AS OF ${s1} o WHERE EXISTS (SELECT 1 FROM t i WHERE i.id = o.id AND i.v <> o.v) ORDER BY id`),
    [['1'], ['2']]);
    const psql = await runPsql(g.server, ['-A', '-t', '-c', `SELECT v FROM t VERSION AS OF ${s1} WHERE id = 2`]);
    assert.equal(psql.code, 0, psql.stderr);
    assert.equal(psql.stdout.trim(), 'b');
  });

  test('bad input: unknown ref, unknown id, a time before the first snapshot, wrong value kinds', async () => {
    let e = await g.failure("SELECT * FROM t FOR SYSTEM_VERSION AS OF 'nope'");
    assert.equal(e.code, '42704');
    assert.match(e.message, /"nope"/);
    e = await g.failure('SELECT * FROM t VERSION AS OF 987654');
    assert.equal(e.code, '42704');
    e = await g.failure("SELECT * FROM t FOR SYSTEM_TIME AS OF '2000-01-01 00:00:00+00'");
    assert.equal(e.code, '22023');
    assert.match(e.message, /before the first snapshot/);
    assert.equal((await g.failure("SELECT * FROM t FOR SYSTEM_TIME AS OF '2000-01-01'")).code, '22023', 'a bare date is UTC midnight');
    assert.equal((await g.failure("SELECT * FROM t FOR SYSTEM_TIME AS OF DATE '2000-01-01'")).code, '22023');
    assert.deepEqual(await g.rows("SELECT id, v FROM t FOR SYSTEM_TIME AS OF '2999-01-01' ORDER BY id"), await mainRows());
    assert.deepEqual(await g.rows("SELECT id, v FROM t FOR SYSTEM_TIME AS OF DATE '2999-01-01' ORDER BY id"), await mainRows());
    e = await g.failure('SELECT * FROM t FOR SYSTEM_TIME AS OF 5');
    assert.equal(e.code, '42804');
    assert.equal(e.position, 'SELECT * FROM t FOR SYSTEM_TIME AS OF '.length + 1);
    e = await g.failure("SELECT * FROM t FOR SYSTEM_TIME AS OF now() - interval '100 years'");
    assert.equal(e.code, '22023', 'an expression before the first snapshot');
    e = await g.failure('SELECT * FROM t FOR SYSTEM_TIME AS OF length(v)');
    assert.equal(e.code, '42703', 'an AS OF expression reads no column');
    e = await g.failure('SELECT * FROM t$snapshots FOR SYSTEM_VERSION AS OF 1');
    assert.equal(e.code, '0A000');
    e = await g.failure('SELECT * FROM t$branch_main FOR SYSTEM_VERSION AS OF 1');
    assert.equal(e.code, '42601');
  });

  test('by a timestamp expression: now(), arithmetic, a named zone, and $1 evaluated when the scan starts', async () => {
    assert.deepEqual(await g.rows('SELECT id, v FROM t FOR SYSTEM_TIME AS OF now() ORDER BY id'), await mainRows());
    assert.deepEqual(await g.rows("SELECT id, v FROM t FOR SYSTEM_TIME AS OF now() - interval '0 seconds' ORDER BY id"), await mainRows());
    const second = snaps[2]!;
    // Each commit time written in other zones and as arithmetic names the same instant.
    const [[inParis]] = await g.rows(`SELECT to_char(timestamptz '${second.at}' AT TIME ZONE 'Europe/Paris', 'YYYY-MM-DD HH24:MI:SS.US')`);
    for (const clause of [
      `FOR SYSTEM_TIME AS OF '${inParis} Europe/Paris'`,
      `FOR SYSTEM_TIME AS OF timestamptz '${second.at}' + interval '1 microsecond' - interval '1 microsecond'`,
    ]) {
      assert.deepEqual(await g.rows(`SELECT id, v FROM t ${clause} ORDER BY id`), states.get(second.id), clause);
    }
    const r = await g.client.query({
      text: 'SELECT id, v FROM t FOR SYSTEM_TIME AS OF $1::timestamptz ORDER BY id', values: [second.at], rowMode: 'array',
    });
    assert.deepEqual(r.rows, states.get(second.id));
  });

  test('by a version parameter: a prepared statement reads the snapshot id, tag or branch its $1 names at each run', async () => {
    const text = 'SELECT id, v FROM t FOR SYSTEM_VERSION AS OF $1 ORDER BY id';
    await g.run(`ALTER TABLE t CREATE TAG param_tag AS OF VERSION ${snaps[2]!.id}`);
    try {
      // One prepared statement (pg names it), run with every snapshot, a tag, a branch and an int8.
      for (const [id, expected] of states) {
        const r = await g.client.query({ name: 'travel_by_version', text, values: [id], rowMode: 'array' });
        assert.deepEqual(r.rows, expected, `version ${id}`);
      }
      assert.deepEqual((await g.client.query({ name: 'travel_by_version', text, values: ['param_tag'], rowMode: 'array' })).rows, states.get(snaps[2]!.id));
      assert.deepEqual((await g.client.query({ name: 'travel_by_version', text, values: ['main'], rowMode: 'array' })).rows, await mainRows());
      const typed = await g.client.query({ text: 'SELECT id, v FROM t FOR SYSTEM_VERSION AS OF $1::int8 ORDER BY id', values: [snaps[3]!.id], rowMode: 'array' });
      assert.deepEqual(typed.rows, states.get(snaps[3]!.id));
      await assert.rejects(g.client.query({ name: 'travel_by_version', text, values: [null] }), { code: '22004' });
      await assert.rejects(g.client.query({ name: 'travel_by_version', text, values: ['no_such_tag'] }), (e: { code?: string }) => e.code !== undefined && e.code !== 'XX000');
    } finally {
      await g.run('ALTER TABLE t DROP TAG param_tag');
    }
  });

  test('bad input: a time-travel write is 0A000 at the clause', async () => {
    for (const [sql, at] of [
      ["INSERT INTO t FOR SYSTEM_VERSION AS OF 1 VALUES (9, 'z')", 'INSERT INTO t '.length + 1],
      ["UPDATE t FOR SYSTEM_VERSION AS OF 1 SET v = 'z'", 'UPDATE t '.length + 1],
      ['DELETE FROM t VERSION AS OF 1', 'DELETE FROM t '.length + 1],
      ['MERGE INTO t FOR SYSTEM_TIME AS OF now() USING t s ON t.id = s.id WHEN MATCHED THEN DELETE', 'MERGE INTO t '.length + 1],
    ] as const) {
      const e = await g.failure(sql);
      assert.equal(e.code, '0A000', sql);
      assert.equal(e.position, at, sql);
    }
    assert.equal((await g.rows('SELECT count(*) FROM t'))[0]![0], '4', 'nothing was written');
  });

  test('bad input: syntax errors inside an extension clause carry their position', async () => {
    let sql = 'SELECT * FROM t FOR SYSTEM_VERSION AS OF';
    let e = await g.failure(sql);
    assert.equal(e.code, '42601');
    assert.equal(e.position, sql.length + 1, 'at the end of input');
    sql = 'SELECT * FROM t FOR SYSTEM_VERSION OF 3';
    e = await g.failure(sql);
    assert.equal(e.code, '42601');
    assert.ok(e.position !== undefined && e.position > 'SELECT * FROM t'.length && e.position <= sql.indexOf('3') + 1, `position ${e.position}`);
    sql = 'ALTER TABLE t CREATE BRANCH b2 RETAIN 2 WEEKS';
    e = await g.failure(sql);
    assert.equal(e.code, '42601');
    assert.equal(e.position, sql.indexOf('WEEKS') + 1);
    sql = 'ALTER TABLE t CREATE TAG AS OF VERSION 1';
    e = await g.failure(sql);
    assert.equal(e.code, '42601');
    assert.ok(e.position !== undefined && e.position >= sql.indexOf('AS OF') + 1, `position ${e.position}`);
  });

  test('bad input: DDL on a tag — writes, branch DDL naming a tag, duplicate names', async () => {
    await g.run('ALTER TABLE t CREATE TAG frozen');
    let e = await g.failure("INSERT INTO t$branch_frozen VALUES (10, 'x')");
    assert.equal(e.code, '55000');
    assert.match(e.message, /tag/);
    e = await g.failure("UPDATE t$branch_frozen SET v = 'x'");
    assert.equal(e.code, '55000');
    e = await g.failure('ALTER TABLE t DROP BRANCH frozen');
    assert.equal(e.code, '42704');
    e = await g.failure('ALTER TABLE t CREATE BRANCH frozen');
    assert.equal(e.code, '42710');
    e = await g.failure('ALTER TABLE t CREATE TAG frozen');
    assert.equal(e.code, '42710');
    await g.run('ALTER TABLE t CREATE TAG IF NOT EXISTS frozen');
    e = await g.failure("CALL fast_forward('t', 'frozen', 'main')");
    assert.ok(['55000', '42809', '42704'].includes(e.code), e.code);
    assert.deepEqual(await g.rows("SELECT type FROM t$refs WHERE name = 'frozen'"), [['TAG']]);
  });
});
