import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runPsql } from '../harness/run-psql.js';
import { startLakeSqlGateway } from './lake-sql-gateway.js';
import type { LakeSqlGateway } from './lake-sql-gateway.js';
import { levenshtein } from '../../src/session/table-properties.js';

describe('table properties: WITH, SET, RESET, SHOW TBLPROPERTIES', () => {
  let g: LakeSqlGateway;
  before(async () => { g = await startLakeSqlGateway(); });
  after(async () => { await g?.stop(); });

  test('CREATE TABLE … WITH (…) stores the properties; SHOW TBLPROPERTIES lists them sorted', async () => {
    await g.run("CREATE TABLE p (id int PRIMARY KEY, v text) WITH ('write.target-file-size' = '67108864', comment = 'orders')");
    const r = await g.client.query({ text: 'SHOW TBLPROPERTIES p', rowMode: 'array' });
    assert.deepEqual(r.fields.map((f) => f.name), ['key', 'value']);
    assert.deepEqual(r.rows, [['comment', 'orders'], ['write.target-file-size', '67108864']]);
    const psql = await runPsql(g.server, ['-A', '-t', '-c', 'SHOW TBLPROPERTIES p']);
    assert.equal(psql.code, 0, psql.stderr);
    assert.deepEqual(psql.stdout.trim().split('\n'), ['comment|orders', 'write.target-file-size|67108864']);
  });

  test('ALTER TABLE SET (…) adds and replaces, RESET (…) removes', async () => {
    assert.deepEqual(await g.run("ALTER TABLE p SET ('merge-engine' = 'deduplicate', 'write.target-file-size' = '1048576')"), { command: 'ALTER', rowCount: null });
    assert.deepEqual(await g.rows('SHOW TBLPROPERTIES p'),
      [['comment', 'orders'], ['merge-engine', 'deduplicate'], ['write.target-file-size', '1048576']]);
    await g.run('ALTER TABLE p RESET (comment, "merge-engine")');
    assert.deepEqual(await g.rows('SHOW TBLPROPERTIES p'), [['write.target-file-size', '1048576']]);
    await g.run('ALTER TABLE p SET (comment = \'x\')');
    assert.deepEqual(await g.rows('SHOW TBLPROPERTIES p'), [['comment', 'x'], ['write.target-file-size', '1048576']]);
  });

  test('unknown keys are 22023 with a hint naming the nearest known keys; nothing is changed', async () => {
    let e = await g.failure("ALTER TABLE p SET ('write.target-filesize' = '1')");
    assert.equal(e.code, '22023');
    assert.match(e.message, /unrecognized table property "write.target-filesize"/);
    assert.match(e.hint ?? '', /^Did you mean "write.target-file-size"\?/);
    e = await g.failure("ALTER TABLE p SET ('merge_engine' = 'deduplicate')");
    assert.equal(e.code, '22023');
    assert.match(e.hint ?? '', /^Did you mean "merge-engine"\?/);
    e = await g.failure("ALTER TABLE p SET (fillfactor = '70')");
    assert.equal(e.code, '22023');
    assert.match(e.hint ?? '', /Known table properties: merge-engine, comment, self-optimizing.enabled, .*write.target-file-size/);
    e = await g.failure('ALTER TABLE p RESET (coment)');
    assert.equal(e.code, '22023');
    assert.match(e.hint ?? '', /"comment"/);
    e = await g.failure("CREATE TABLE q (id int) WITH ('write.target-file-sise' = '1')");
    assert.equal(e.code, '22023');
    assert.equal((await g.failure('SELECT * FROM q')).code, '42P01', 'the table was not created');
    assert.deepEqual(await g.rows('SHOW TBLPROPERTIES p'), [['comment', 'x'], ['write.target-file-size', '1048576']]);
  });

  test('bad values are 22023 too', async () => {
    // Sizes take units now (self-optimizing.target-size's rule), so '64MB' is fine and '64 parsecs' is not.
    assert.equal((await g.failure("ALTER TABLE p SET ('write.target-file-size' = '64 parsecs')")).code, '22023');
    assert.equal((await g.failure("ALTER TABLE p SET ('write.target-file-size' = '0')")).code, '22023');
    assert.equal((await g.failure("ALTER TABLE p SET ('merge-engine' = 'aggregate')")).code, '22023');
    assert.equal((await g.failure('SHOW TBLPROPERTIES nosuch')).code, '42P01');
  });

  test('levenshtein distance', () => {
    assert.equal(levenshtein('kitten', 'sitting'), 3);
    assert.equal(levenshtein('', 'abc'), 3);
    assert.equal(levenshtein('comment', 'comment'), 0);
  });
});
