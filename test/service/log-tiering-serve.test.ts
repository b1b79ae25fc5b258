import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startFloe } from '../harness/floe-server.js';

/*
 * `floe serve` tiers the log store by default (issue 24: every log.tier-interval), and with
 * --no-log-tiering the log files stay. No optimizer threads, so nothing but tiering moves a
 * commit's rows out of the log.
 */

// Enough that tiering passes (every 250 ms at most) cannot give each commit a file of its own.
const COMMITS = 20;

async function commitRows(client: pg.Client): Promise<void> {
  await client.query(`CREATE TABLE t (id int PRIMARY KEY, v text) WITH ('log.tier-interval' = '200ms')`);
  for (let i = 0; i < COMMITS; i++) await client.query('INSERT INTO t VALUES ($1, $2)', [i, `v${i}`]);
}

/** The table's change files: how many are still in the log, and how many are Parquet. */
async function changeFiles(client: pg.Client): Promise<{ log: number; parquet: number }> {
  const { rows } = await client.query<{ log: string; parquet: string }>(
    `SELECT count(*) FILTER (WHERE file_path LIKE 'log/%') AS log, count(*) FILTER (WHERE file_path LIKE '%.parquet') AS parquet
       FROM t$files WHERE store = 'change'`);
  return { log: Number(rows[0]!.log), parquet: Number(rows[0]!.parquet) };
}

async function withGateway(args: readonly string[], body: (client: pg.Client, log: () => string) => Promise<void>): Promise<void> {
  const floe = await startFloe({ args: ['--optimizer-threads', '0', ...args] });
  const client = new pg.Client({ connectionString: floe.url });
  try {
    await client.connect();
    await body(client, () => floe.log());
  } finally {
    await client.end().catch(() => undefined);
    await floe.stop();
  }
}

test('floe serve tiers the log into shared Parquet change files by default', { timeout: 120_000 }, async () => {
  await withGateway([], async (client, log) => {
    assert.match(log(), /"logTiering":true/);
    await commitRows(client);
    const until = Date.now() + 60_000;
    let files = await changeFiles(client);
    while (files.log > 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      files = await changeFiles(client);
    }
    assert.deepEqual(files.log, 0, 'every log file was tiered');
    assert.ok(files.parquet >= 1 && files.parquet < COMMITS, `the commits' rows share tiered files (${files.parquet})`);
    const { rows } = await client.query<{ id: number; v: string }>('SELECT id, v FROM t ORDER BY id');
    assert.deepEqual(rows, Array.from({ length: COMMITS }, (_, i) => ({ id: i, v: `v${i}` })));
  });
});

test('floe serve --no-log-tiering leaves the log files in the log', { timeout: 120_000 }, async () => {
  await withGateway(['--no-log-tiering'], async (client, log) => {
    assert.match(log(), /"logTiering":false/);
    await commitRows(client);
    // Several tier intervals and polls of the tiering task, had it been running.
    await new Promise((r) => setTimeout(r, 2_000));
    assert.deepEqual(await changeFiles(client), { log: COMMITS, parquet: 0 });
  });
});
