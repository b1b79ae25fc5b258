import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLakeSqlGateway } from './lake-sql-gateway.js';
import type { LakeSqlGateway } from './lake-sql-gateway.js';

/** Each statement, and the change rows (id, v, _change_type) it must produce, in order. */
const script: readonly (readonly [string, readonly (readonly [string, string | null, string])[]])[] = [
  ["INSERT INTO t VALUES (1, 'a'), (2, 'b')", [['1', 'a', 'INSERT'], ['2', 'b', 'INSERT']]],
  ["UPDATE t SET v = 'B' WHERE id = 2", [['2', 'b', 'UPDATE_BEFORE'], ['2', 'B', 'UPDATE_AFTER']]],
  ['DELETE FROM t WHERE id = 1', [['1', null, 'DELETE']]],
  ["INSERT INTO t VALUES (3, 'c')", [['3', 'c', 'INSERT']]],
  ["MERGE INTO t USING (VALUES (3, 'C'), (4, 'd')) s(id, v) ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)",
    [['3', 'c', 'UPDATE_BEFORE'], ['3', 'C', 'UPDATE_AFTER'], ['4', 'd', 'INSERT']]],
];

describe("table_changes('t', from, to)", () => {
  let g: LakeSqlGateway;
  const snaps: string[] = [];
  before(async () => {
    g = await startLakeSqlGateway();
    await g.run('CREATE TABLE t (id int PRIMARY KEY, v text)');
    snaps.push((await g.rows('SELECT max(snapshot_id) FROM t$snapshots'))[0]![0]!);
    for (const [sql] of script) {
      await g.run(sql);
      snaps.push((await g.rows('SELECT max(snapshot_id) FROM t$snapshots'))[0]![0]!);
    }
  });
  after(async () => { await g?.stop(); });

  const expectedBetween = (i: number, j: number) => script.slice(i, j).flatMap(([, rows]) => rows.map((r) => [...r]));

  test('is ordered as the statements that produced it, exclusive of from and inclusive of to, for every pair', async () => {
    for (let i = 0; i < snaps.length; i++) {
      for (let j = i; j < snaps.length; j++) {
        const rows = await g.rows(`SELECT id, v, _change_type FROM table_changes('t', ${snaps[i]}, ${snaps[j]})`);
        assert.deepEqual(rows, expectedBetween(i, j), `(${snaps[i]}, ${snaps[j]}]`);
      }
    }
  });

  test('carries _seq and _commit_snapshot_id, agrees with t$audit_log, and NULL/omitted bounds mean start/head', async () => {
    const all = await g.rows(`SELECT id, v, _change_type, _seq, _commit_snapshot_id FROM table_changes('t', NULL, ${snaps[snaps.length - 1]})`);
    assert.deepEqual(all, await g.rows('SELECT id, v, _change_type, _seq, _commit_snapshot_id FROM t$audit_log'));
    assert.deepEqual(all.map((r) => r.slice(0, 3)), expectedBetween(0, script.length));
    assert.deepEqual(await g.rows(`SELECT count(*) FROM table_changes('t', ${snaps[3]})`), [[String(expectedBetween(3, script.length).length)]]);
    const commits = [...new Set(all.map((r) => r[4]))];
    assert.deepEqual(commits, snaps.slice(1), 'one commit per statement, in order');
  });

  test('works with an alias, column aliases, filters, joins and aggregates', async () => {
    const [a, b] = [snaps[1], snaps[5]];
    assert.deepEqual(await g.rows(`SELECT c.id, count(*) FROM table_changes('t', ${a}, ${b}) AS c WHERE c._change_type LIKE 'UPDATE%' GROUP BY c.id ORDER BY c.id`),
      [['2', '2'], ['3', '2']]);
    assert.deepEqual(await g.rows(`SELECT k, kind FROM table_changes('public.t', ${snaps[2]}, ${snaps[3]}) AS c(k, val, kind)`), [['1', 'DELETE']]);
    assert.deepEqual(await g.rows(`SELECT t.v FROM t JOIN table_changes('t', ${snaps[3]}, ${snaps[4]}) c ON c.id = t.id`), [['C']]);
  });

  test('snapshots as parameters: one prepared statement answers every pair as the constants do, and NULL means start/head', async () => {
    const text = "SELECT id, v, _change_type FROM table_changes('t', $1, $2)";
    for (let i = 0; i < snaps.length; i++) {
      for (let j = i; j < snaps.length; j++) {
        const r = await g.client.query({ name: 'changes_between', text, values: [snaps[i], snaps[j]], rowMode: 'array' });
        assert.deepEqual(r.rows, expectedBetween(i, j), `(${snaps[i]}, ${snaps[j]}]`);
      }
    }
    const open = await g.client.query({ name: 'changes_between', text, values: [null, null], rowMode: 'array' });
    assert.deepEqual(open.rows, expectedBetween(0, script.length));
    const mixed = await g.client.query({ text: `SELECT count(*) FROM table_changes('t', ${snaps[1]}, $1::int8)`, values: [snaps[3]], rowMode: 'array' });
    assert.deepEqual(mixed.rows, [[String(expectedBetween(1, 3).length)]]);
    // What the binder checks of constants is checked when the scan starts.
    await assert.rejects(g.client.query({ name: 'changes_between', text, values: [snaps[4], snaps[2]] }), { code: '22023' });
    await assert.rejects(g.client.query({ name: 'changes_between', text, values: [1, 987654] }), { code: '42704' });
    // Beside a parameter the other bound is still no column.
    await assert.rejects(g.client.query({ text: "SELECT * FROM t, table_changes('t', $1::int8, t.id)", values: [snaps[1]] }), { code: '22023' });
  });

  test('bad input: unknown table, non-ancestor or unknown snapshot, reversed bounds, non-constant arguments', async () => {
    assert.equal((await g.failure(`SELECT * FROM table_changes('nosuch', 1, 2)`)).code, '42P01');
    assert.equal((await g.failure(`SELECT * FROM table_changes('t', ${snaps[4]}, ${snaps[2]})`)).code, '22023');
    assert.equal((await g.failure(`SELECT * FROM table_changes('t', 1, 987654)`)).code, '42704');
    assert.equal((await g.failure(`SELECT * FROM table_changes('t', 'x', 2)`)).code, '22023');
    assert.equal((await g.failure(`SELECT * FROM t, table_changes(t.v, 1, 2)`)).code, '0A000');
  });

  test("changelog-producer 'lookup': blind upserts of existing keys as UPDATE_BEFORE/UPDATE_AFTER, deletes by key with the row", async () => {
    await g.run(`CREATE TABLE lk (id int PRIMARY KEY, v text) WITH ("changelog-producer" = 'lookup')`);
    await g.run("INSERT INTO lk VALUES (1, 'a'), (2, 'b')");
    await g.run("INSERT INTO lk VALUES (1, 'A'), (3, 'c') ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v");
    await g.run('DELETE FROM lk WHERE id = 2');
    await g.run('DELETE FROM lk WHERE id = 42');
    await g.run("UPDATE lk SET v = 'AA' WHERE id = 1");
    const want = [
      ['1', 'a', 'INSERT'], ['2', 'b', 'INSERT'],
      ['1', 'a', 'UPDATE_BEFORE'], ['1', 'A', 'UPDATE_AFTER'], ['3', 'c', 'INSERT'],
      ['2', 'b', 'DELETE'],
      ['1', 'A', 'UPDATE_BEFORE'], ['1', 'AA', 'UPDATE_AFTER'],
    ];
    assert.deepEqual(await g.rows("SELECT id, v, _change_type FROM table_changes('lk', NULL, NULL)"), want);
    assert.deepEqual(await g.rows('SELECT id, v, _change_type FROM lk$audit_log'), want);
    // On an input table a delete by key is what was written: the key alone.
    await g.run('CREATE TABLE inp (id int PRIMARY KEY, v text)');
    await g.run("INSERT INTO inp VALUES (1, 'a')");
    await g.run('DELETE FROM inp WHERE id = 1');
    assert.deepEqual(await g.rows('SELECT id, v, _change_type FROM inp$audit_log'), [['1', 'a', 'INSERT'], ['1', null, 'DELETE']]);
    assert.equal((await g.failure(`ALTER TABLE inp SET ('changelog-producer' = 'full-compaction')`)).code, '22023');
  });

  test('an append table reports its deletion-vector deletes as DELETE rows with the deleted values', async () => {
    await g.run('CREATE TABLE ap (id int, v text)');
    await g.run("INSERT INTO ap VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    const [[s1]] = await g.rows('SELECT max(snapshot_id) FROM ap$snapshots');
    await g.run('DELETE FROM ap WHERE id = 2');
    await g.run("UPDATE ap SET v = 'C' WHERE id = 3");
    await g.run('DELETE FROM ap WHERE id = 1');
    assert.deepEqual(await g.rows(`SELECT id, v, _change_type FROM table_changes('ap', ${s1}, NULL)`), [
      ['2', 'b', 'DELETE'],
      ['3', 'c', 'DELETE'], ['3', 'C', 'INSERT'],
      ['1', 'a', 'DELETE'],
    ]);
    const audit = await g.rows('SELECT id, v, _change_type FROM ap$audit_log');
    assert.equal(audit.filter((r) => r[2] === 'DELETE').length, 3);
  });
});
