import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runPsql } from '../harness/run-psql.js';
import { startLakeSqlGateway } from './lake-sql-gateway.js';
import type { LakeSqlGateway } from './lake-sql-gateway.js';

describe('branch lifecycle, rollback and expiration over the wire', () => {
  let g: LakeSqlGateway;
  const main = () => g.rows('SELECT id, v FROM t ORDER BY id');
  const branch = () => g.rows('SELECT id, v FROM t$branch_b ORDER BY id');
  const head = async (ref: string) => (await g.rows(`SELECT snapshot_id FROM t$refs WHERE name = '${ref}'`))[0]![0]!;

  before(async () => {
    g = await startLakeSqlGateway();
    await g.run('CREATE TABLE t (id int PRIMARY KEY, v int)');
    await g.run('INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)');
  });
  after(async () => { await g?.stop(); });

  test('writes to t$branch_b (INSERT, UPDATE, DELETE, MERGE, COPY) leave main unchanged until fast_forward', async () => {
    const before = await main();
    const mainHead = await head('main');
    await g.run('ALTER TABLE t CREATE BRANCH b');
    assert.equal(await head('b'), mainHead, 'a new branch starts at main');
    assert.deepEqual(await g.run('INSERT INTO t$branch_b VALUES (4, 40)'), { command: 'INSERT', rowCount: 1 });
    assert.deepEqual(await g.run('UPDATE t$branch_b SET v = v + 1 WHERE id = 1'), { command: 'UPDATE', rowCount: 1 });
    assert.deepEqual(await g.run('DELETE FROM t$branch_b WHERE id = 2'), { command: 'DELETE', rowCount: 1 });
    assert.deepEqual(await g.run('MERGE INTO t$branch_b x USING (VALUES (3, 0), (5, 50)) s(id, v) ON x.id = s.id '
      + 'WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)'), { command: 'MERGE', rowCount: 2 });
    const copy = await runPsql(g.server, ['-c', 'COPY t$branch_b FROM STDIN'], { input: '6\t60\n' });
    assert.equal(copy.code, 0, copy.stderr);
    assert.match(copy.stdout, /COPY 1/);
    const expected = [['1', '11'], ['3', '0'], ['4', '40'], ['5', '50'], ['6', '60']];
    assert.deepEqual(await branch(), expected);
    assert.deepEqual(await main(), before, 'main did not change');
    assert.equal(await head('main'), mainHead);
    assert.deepEqual(await g.rows("SELECT DISTINCT branch FROM t$snapshots WHERE snapshot_id > " + mainHead), [['b']]);

    assert.deepEqual(await g.run("CALL fast_forward('t', 'main', 'b')"), { command: 'CALL', rowCount: null });
    assert.deepEqual(await main(), expected, 'the change is visible on main');
    assert.equal(await head('main'), await head('b'));
  });

  test('fast_forward refuses a non-ancestor with a clear error and moves nothing', async () => {
    await g.run('INSERT INTO t VALUES (100, 1)');
    await g.run('INSERT INTO t$branch_b VALUES (200, 2)');
    const [mainHead, bHead] = [await head('main'), await head('b')];
    const e = await g.failure("CALL fast_forward('t', 'main', 'b')");
    assert.equal(e.code, '55000');
    assert.match(e.message, /not an ancestor/);
    assert.equal(await head('main'), mainHead);
    assert.equal(await head('b'), bHead);
    assert.equal((await g.failure("CALL fast_forward('t', 'main', 'nosuch')")).code, '42704');
    assert.equal((await g.failure("CALL fast_forward('nosuch', 'main', 'b')")).code, '42P01');
    assert.equal((await g.failure("CALL no_such_procedure('t')")).code, '42883');
  });

  test('rollback_to_timestamp and rollback_to_snapshot move main back along its lineage', async () => {
    // Main's lineage now runs through the fast-forwarded branch commits; pick one in the middle.
    const lineage = await g.rows("SELECT snapshot_id, committed_at::text FROM t$snapshots WHERE operation = 'write' AND snapshot_id <= "
      + `${await head('main')} AND branch IN ('main', 'b') ORDER BY snapshot_id`);
    const [firstId] = lineage[0]!;
    const [midId, midAt] = lineage[Math.floor(lineage.length / 2)]!;
    const atMid = await g.rows(`SELECT id, v FROM t FOR SYSTEM_TIME AS OF '${midAt}' ORDER BY id`);
    const atFirst = await g.rows(`SELECT id, v FROM t FOR SYSTEM_VERSION AS OF ${firstId} ORDER BY id`);
    assert.notDeepEqual(atMid, await main());
    await g.run(`CALL rollback_to_timestamp('t', '${midAt}')`);
    assert.deepEqual(await main(), atMid);
    assert.equal(await head('main'), midId);
    await g.run(`CALL rollback_to_snapshot('t', snapshot_id => ${firstId})`);
    assert.deepEqual(await main(), [['1', '10'], ['2', '20'], ['3', '30']]);
    assert.deepEqual(await main(), atFirst);
    assert.equal(await head('main'), firstId);
    // Writing after a rollback continues from there.
    await g.run('INSERT INTO t VALUES (7, 70)');
    assert.deepEqual((await main()).map((r) => r[0]), ['1', '2', '3', '7']);
    assert.equal((await g.failure("CALL rollback_to_snapshot('t', 987654)")).code, '42704');
    assert.equal((await g.failure("CALL rollback_to_timestamp('t', '2000-01-01 00:00:00+00')")).code, '22023');
  });

  test('a tag survives expire_snapshots; expired snapshots are refused with 22023', async () => {
    await g.run('CREATE TABLE e (id int PRIMARY KEY, v int)');
    await g.run('INSERT INTO e VALUES (1, 1)');
    await g.run('INSERT INTO e VALUES (2, 2)');
    await g.run('ALTER TABLE e CREATE TAG keep');
    const tagged = await g.rows("SELECT id, v FROM e VERSION AS OF 'keep' ORDER BY id");
    const [[keepId]] = await g.rows("SELECT snapshot_id FROM e$tags WHERE tag_name = 'keep'");
    await g.run('INSERT INTO e VALUES (3, 3)');
    const [[untagged]] = await g.rows('SELECT max(snapshot_id) FROM e$snapshots');
    await g.run('INSERT INTO e VALUES (4, 4)');
    const [[firstWrite]] = await g.rows("SELECT min(snapshot_id) FROM e$snapshots WHERE operation = 'write'");
    const latest = await g.rows('SELECT id, v FROM e ORDER BY id');

    // Iceberg's named-argument form.
    assert.deepEqual(await g.run("CALL expire_snapshots('e', retain_last => 1, older_than => now())"), { command: 'CALL', rowCount: null });
    const left = (await g.rows('SELECT snapshot_id FROM e$snapshots ORDER BY 1')).map((r) => r[0]);
    assert.ok(left.includes(keepId!), 'the tagged snapshot is kept');
    assert.ok(!left.includes(untagged!), 'an untagged old snapshot is gone');
    assert.deepEqual(await g.rows("SELECT id, v FROM e VERSION AS OF 'keep' ORDER BY id"), tagged);
    assert.deepEqual(await g.rows(`SELECT id, v FROM e FOR SYSTEM_VERSION AS OF ${keepId} ORDER BY id`), tagged);
    assert.deepEqual(await g.rows('SELECT id, v FROM e ORDER BY id'), latest);
    for (const gone of [untagged, firstWrite]) {
      if (gone === keepId) continue;
      const e = await g.failure(`SELECT * FROM e FOR SYSTEM_VERSION AS OF ${gone}`);
      assert.equal(e.code, '22023', `snapshot ${gone}`);
    }
    assert.deepEqual(await g.rows("SELECT tag_name FROM e$tags"), [['keep']]);
    assert.equal((await g.failure("CALL expire_snapshots('e', 'soon')")).code, '22007');
    const named = await g.failure("CALL expire_snapshots('e', older_then => now())");
    assert.equal(named.code, '42883');
    assert.match(named.hint ?? '', /older_than/);
    assert.equal((await g.failure("CALL rollback_to_snapshot('e')")).code, '42883');
    assert.equal((await g.failure("CALL expire_snapshots('e', now(), 0)")).code, '22023');
  });
});
