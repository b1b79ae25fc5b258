import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startFloe } from '../harness/floe-server.js';

/*
 * A point read by full key of an optimized table scans one base file without merging, so
 * its numeric(p ≤ 18) columns come back as Decimal64 while the column's type says
 * Decimal128. The scan worker's batch transfer lays buffers out by the batch schema: a
 * schema that disagreed with its data failed with XX000 "Cannot convert undefined to a
 * BigInt" (found by the CH-benCHmark's Payment transaction).
 */
test('point reads and key updates of numeric columns work after the table is optimized', async () => {
  const server = await startFloe({ args: ['--optimizer-threads', '0'] });
  const c = new pg.Client({ connectionString: server.url, types: { getTypeParser: () => (v: string) => v } });
  await c.connect();
  try {
    await c.query('CREATE TABLE acct (w int, d int, id int, bal numeric(12,2), tag varchar(16), PRIMARY KEY (w, d, id))');
    await c.query("INSERT INTO acct SELECT 1, g % 10, g, g / 100.0, 'x' FROM generate_series(1, 10000) g");
    await c.query("CALL optimize('acct')");
    const one = async () => (await c.query({ text: 'SELECT bal, tag FROM acct WHERE w = 1 AND d = 2 AND id = 712', rowMode: 'array' })).rows;
    assert.deepEqual(await one(), [['7.12', 'x']]);
    await c.query('UPDATE acct SET bal = bal - 804.86 WHERE w = 1 AND d = 2 AND id = 712');
    assert.deepEqual(await one(), [['-797.74', 'x']]);
    await c.query("CALL optimize('acct')");
    assert.deepEqual(await one(), [['-797.74', 'x']]);
    assert.deepEqual((await c.query({ text: 'SELECT bal FROM acct WHERE w = 1 AND d = 5 AND id IN (5, 15)', rowMode: 'array' })).rows, [['0.05'], ['0.15']]);
  } finally {
    await c.end().catch(() => undefined);
    await server.stop();
  }
});
