import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadGateway } from '../service/killable-gateway.js';
import type { KillableGateway } from '../service/killable-gateway.js';

/**
 * An append table (no primary key) through the gateway's log store (issue 24): small
 * commits write no Parquet file; INSERT, UPDATE, DELETE and TRUNCATE, time travel to each
 * snapshot and table_changes read as a model says, the same after the gateway is SIGKILLed
 * and a new one replays its log; CALL optimize then moves the rows into one Parquet file.
 */

type Rows = (string | null)[][];

const COMMITS: { sql: string; after: Rows }[] = [
  { sql: "INSERT INTO at VALUES (1, 'a')", after: [['1', 'a']] },
  { sql: "INSERT INTO at VALUES (2, 'b'), (3, 'c')", after: [['1', 'a'], ['2', 'b'], ['3', 'c']] },
  { sql: "UPDATE at SET v = 'B' WHERE id = 2", after: [['1', 'a'], ['2', 'B'], ['3', 'c']] },
  { sql: 'DELETE FROM at WHERE id = 1', after: [['2', 'B'], ['3', 'c']] },
  { sql: 'TRUNCATE at', after: [] },
  { sql: "INSERT INTO at VALUES (4, 'd'), (5, 'e')", after: [['4', 'd'], ['5', 'e']] },
];

async function connect(gw: KillableGateway): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port: gw.port, user: 'floe', database: 'floe', types: { getTypeParser: () => (v: string) => v } });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

const rows = async (c: pg.Client, sql: string): Promise<Rows> => (await c.query({ text: sql, rowMode: 'array' })).rows as Rows;

async function readBack(c: pg.Client, snapshots: readonly string[]): Promise<{ asOf: Rows[]; changes: Rows }> {
  const asOf: Rows[] = [];
  for (const s of snapshots) asOf.push(await rows(c, `SELECT id, v FROM at FOR SYSTEM_VERSION AS OF ${s} ORDER BY id`));
  const changes = await rows(c, `SELECT id, v, _change_type FROM table_changes('at', NULL, ${snapshots[snapshots.length - 1]!}) ORDER BY _commit_snapshot_id, _change_type, id`);
  return { asOf, changes };
}

test('an append table commits through the log: no Parquet until optimize, the same answers after a replay', { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-log-append-'));
  const first = loadGateway();
  const second = loadGateway();
  let gw: KillableGateway | undefined;
  try {
    gw = await first.start(['--data', dir]);
    const c = await connect(gw);
    await c.query('CREATE TABLE at (id int, v text)');
    const snapshots: string[] = [];
    for (const commit of COMMITS) {
      await c.query(commit.sql);
      snapshots.push((await rows(c, 'SELECT max(snapshot_id) FROM at$snapshots'))[0]![0]!);
    }
    assert.equal(new Set(snapshots).size, COMMITS.length, 'one snapshot per commit');
    const [[logFiles, parquetFiles]] = await rows(c, "SELECT count(*) FILTER (WHERE file_path LIKE 'log/%'), count(*) FILTER (WHERE file_path LIKE '%.parquet') FROM at$files");
    assert.ok(Number(logFiles) > 0, 'the rows are in log-located files');
    assert.equal(parquetFiles, '0', 'no commit wrote Parquet');
    const before = await readBack(c, snapshots);
    assert.deepEqual(before.asOf, COMMITS.map((x) => x.after), 'FOR SYSTEM_VERSION AS OF each snapshot');
    assert.deepEqual(before.changes, [
      ['1', 'a', 'INSERT'], ['2', 'b', 'INSERT'], ['3', 'c', 'INSERT'],
      ['2', 'b', 'DELETE'], ['2', 'B', 'INSERT'],
      ['1', 'a', 'DELETE'],
      ['2', 'B', 'DELETE'], ['3', 'c', 'DELETE'],
      ['4', 'd', 'INSERT'], ['5', 'e', 'INSERT'],
    ], 'table_changes over every commit');
    await c.end().catch(() => undefined);

    await gw.kill();
    gw = await second.start(['--data', dir]);
    const c2 = await connect(gw);
    try {
      assert.deepEqual(await readBack(c2, snapshots), before, 'the same answers after the replay');
      await c2.query("INSERT INTO at VALUES (6, 'f')");
      await c2.query("CALL optimize('at')");
      assert.deepEqual(
        await rows(c2, "SELECT count(*) FILTER (WHERE file_path LIKE 'log/%'), count(*) FILTER (WHERE file_path LIKE '%.parquet') FROM at$files"),
        [['0', '1']], 'optimize moved the log-located files into one Parquet file',
      );
      assert.deepEqual(await rows(c2, 'SELECT id, v FROM at ORDER BY id'), [['4', 'd'], ['5', 'e'], ['6', 'f']]);
      assert.deepEqual(await rows(c2, `SELECT id, v FROM at FOR SYSTEM_VERSION AS OF ${snapshots[2]!} ORDER BY id`), COMMITS[2]!.after, 'older snapshots still read the log');
    } finally { await c2.end().catch(() => undefined); }
  } finally {
    await gw?.stop();
    first.discard();
    second.discard();
    rmSync(dir, { recursive: true, force: true });
  }
});
