import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLakeSqlGateway } from './lake-sql-gateway.js';
import type { LakeSqlGateway } from './lake-sql-gateway.js';

/**
 * t$audit_log records what really happened to keys: an upsert over an existing key
 * (whose before-image ON CONFLICT reads) is UPDATE_BEFORE/UPDATE_AFTER, a new key is
 * INSERT, and an UPDATE or MERGE that moves a key is a DELETE of the old key with its
 * before-image plus an INSERT of the new one.
 */
describe('audit log images of upserts and key changes', () => {
  let g: LakeSqlGateway;
  before(async () => {
    g = await startLakeSqlGateway();
    await g.run('CREATE TABLE t (id int PRIMARY KEY, v text)');
    await g.run("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
  });
  after(async () => { await g?.stop(); });

  /** The change rows of the statement's commit. */
  const changesOf = async (sql: string) => {
    await g.run(sql);
    return g.rows('SELECT id, v, _change_type FROM t$audit_log WHERE _commit_snapshot_id = (SELECT max(snapshot_id) FROM t$snapshots)');
  };

  test('ON CONFLICT DO UPDATE over an existing key: UPDATE_BEFORE/UPDATE_AFTER; over a new key: INSERT', async () => {
    assert.deepEqual(await changesOf("INSERT INTO t VALUES (2, 'B'), (3, 'c') ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v"), [
      ['2', 'b', 'UPDATE_BEFORE'], ['2', 'B', 'UPDATE_AFTER'], ['3', 'c', 'INSERT'],
    ]);
    assert.deepEqual(await changesOf("INSERT INTO t VALUES (3, '!') ON CONFLICT (id) DO UPDATE SET v = t.v || EXCLUDED.v"), [
      ['3', 'c', 'UPDATE_BEFORE'], ['3', 'c!', 'UPDATE_AFTER'],
    ]);
  });

  test('UPDATE that moves keys: DELETE with the before-image, then INSERT', async () => {
    assert.deepEqual(await changesOf('UPDATE t SET id = id + 10 WHERE id >= 2'), [
      ['2', 'B', 'DELETE'], ['3', 'c!', 'DELETE'], ['12', 'B', 'INSERT'], ['13', 'c!', 'INSERT'],
    ]);
    assert.deepEqual(await changesOf("UPDATE t SET v = 'A' WHERE id = 1"), [['1', 'a', 'UPDATE_BEFORE'], ['1', 'A', 'UPDATE_AFTER']]);
    assert.deepEqual(await g.rows('SELECT id, v FROM t ORDER BY id'), [['1', 'A'], ['12', 'B'], ['13', 'c!']]);
  });

  test('MERGE that moves a key: DELETE plus INSERT', async () => {
    assert.deepEqual(await changesOf('MERGE INTO t USING (VALUES (12)) s(id) ON t.id = s.id WHEN MATCHED THEN UPDATE SET id = 20'), [
      ['12', 'B', 'DELETE'], ['20', 'B', 'INSERT'],
    ]);
  });
});
