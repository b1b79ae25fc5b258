import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import copyStreams from 'pg-copy-streams';
import { startLakeSqlGateway } from './lake-sql-gateway.js';
import type { LakeSqlGateway } from './lake-sql-gateway.js';

/** COPY … WITH (UPSERT true): the documented blind bulk upsert by primary key, in text and CSV. */
describe('COPY FROM STDIN WITH (UPSERT)', () => {
  let g: LakeSqlGateway;
  before(async () => {
    g = await startLakeSqlGateway();
    await g.run('CREATE TABLE k (id int PRIMARY KEY, v text)');
    await g.run("INSERT INTO k VALUES (1, 'a'), (2, 'b')");
  });
  after(async () => { await g?.stop(); });

  const copy = async (sql: string, data: string): Promise<number> => {
    const stream = g.client.query(copyStreams.from(sql));
    await pipeline(Readable.from([Buffer.from(data)]), stream);
    return stream.rowCount;
  };

  test('CSV: existing keys are replaced, new keys added, a key twice keeps the last row', async () => {
    assert.equal(await copy('COPY k FROM STDIN WITH (FORMAT csv, UPSERT true)', '2,B\n3,c\n3,C\n'), 3);
    assert.deepEqual(await g.rows('SELECT id, v FROM k ORDER BY id'), [['1', 'a'], ['2', 'B'], ['3', 'C']]);
  });

  test('text format, the bare option, and a column list', async () => {
    assert.equal(await copy('COPY k (id, v) FROM STDIN WITH (UPSERT)', '1\tA\n4\td\n'), 2);
    assert.deepEqual(await g.rows('SELECT id, v FROM k ORDER BY id'), [['1', 'A'], ['2', 'B'], ['3', 'C'], ['4', 'd']]);
  });

  test('UPSERT false is plain COPY (23505), and UPSERT is refused on COPY TO', async () => {
    await assert.rejects(copy('COPY k FROM STDIN WITH (FORMAT csv, UPSERT false)', '1,x\n'), (e: { code?: string }) => e.code === '23505');
    assert.deepEqual(await g.rows('SELECT v FROM k WHERE id = 1'), [['A']]);
    assert.equal((await g.failure('COPY k TO STDOUT WITH (UPSERT true)')).code, '0A000');
  });

  test('the audit log shows COPY UPSERT rows as INSERT (no before-image is read)', async () => {
    const rows = await g.rows("SELECT id, v, _change_type FROM k$audit_log WHERE _commit_snapshot_id = (SELECT max(snapshot_id) FROM k$snapshots WHERE operation = 'write') ORDER BY 1");
    assert.deepEqual(rows, [['1', 'A', 'INSERT'], ['4', 'd', 'INSERT']].map((r) => r));
  });
});
