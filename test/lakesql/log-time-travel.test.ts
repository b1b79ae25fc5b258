import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadGateway } from '../service/killable-gateway.js';
import type { KillableGateway } from '../service/killable-gateway.js';

/**
 * Time travel to snapshots whose rows are still only in the log (issue 24): each small
 * commit through the gateway's log store has its own snapshot; FOR SYSTEM_VERSION AS OF
 * each one, table_changes between neighbours and t$audit_log read as a model says, and
 * read the same after the gateway is SIGKILLed and a new one replays its log.
 */

type Rows = (string | null)[][];

/** Each commit, the table after it, and the change rows it made (id, v, _change_type). */
const COMMITS: { sql: string; after: Rows; changes: Rows }[] = [
  { sql: "INSERT INTO tt VALUES (1, 'a')", after: [['1', 'a']], changes: [['1', 'a', 'INSERT']] },
  { sql: "INSERT INTO tt VALUES (2, 'b'), (3, 'c')", after: [['1', 'a'], ['2', 'b'], ['3', 'c']], changes: [['2', 'b', 'INSERT'], ['3', 'c', 'INSERT']] },
  { sql: "UPDATE tt SET v = 'B' WHERE id = 2", after: [['1', 'a'], ['2', 'B'], ['3', 'c']], changes: [['2', 'b', 'UPDATE_BEFORE'], ['2', 'B', 'UPDATE_AFTER']] },
  { sql: 'DELETE FROM tt WHERE id = 1', after: [['2', 'B'], ['3', 'c']], changes: [['1', null, 'DELETE']] },
  {
    sql: "INSERT INTO tt VALUES (1, 'again'), (3, 'C') ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v",
    after: [['1', 'again'], ['2', 'B'], ['3', 'C']], changes: [['1', 'again', 'INSERT'], ['3', 'c', 'UPDATE_BEFORE'], ['3', 'C', 'UPDATE_AFTER']],
  },
];

async function connect(gw: KillableGateway): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port: gw.port, user: 'floe', database: 'floe', types: { getTypeParser: () => (v: string) => v } });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

const rows = async (c: pg.Client, sql: string): Promise<Rows> => (await c.query({ text: sql, rowMode: 'array' })).rows as Rows;

/** Everything the test reads about the commits' snapshots, in one comparable value. */
async function readBack(c: pg.Client, snapshots: readonly string[]): Promise<{ asOf: Rows[]; changes: Rows[]; audit: Rows[]; snapshotIds: Rows }> {
  const asOf: Rows[] = [];
  const changes: Rows[] = [];
  const audit: Rows[] = [];
  let from = 'NULL';
  for (const s of snapshots) {
    asOf.push(await rows(c, `SELECT id, v FROM tt FOR SYSTEM_VERSION AS OF ${s} ORDER BY id`));
    changes.push(await rows(c, `SELECT id, v, _change_type FROM table_changes('tt', ${from}, ${s}) ORDER BY _seq, id, _change_type DESC`));
    audit.push(await rows(c, `SELECT id, v, _change_type FROM tt$audit_log WHERE _commit_snapshot_id = ${s} ORDER BY id, _change_type DESC`));
    from = s;
  }
  return { asOf, changes, audit, snapshotIds: await rows(c, "SELECT snapshot_id FROM tt$snapshots WHERE operation = 'write' ORDER BY snapshot_id") };
}

test('time travel, table_changes and the audit log at snapshots whose rows are only in the log, before and after a replay', { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-log-tt-'));
  const first = loadGateway();
  const second = loadGateway();
  let gw: KillableGateway | undefined;
  try {
    gw = await first.start(['--data', dir]);
    const c = await connect(gw);
    await c.query('CREATE TABLE tt (id int PRIMARY KEY, v text)');
    const snapshots: string[] = [];
    for (const commit of COMMITS) {
      await c.query(commit.sql);
      snapshots.push((await rows(c, 'SELECT max(snapshot_id) FROM tt$snapshots'))[0]![0]!);
    }
    assert.equal(new Set(snapshots).size, COMMITS.length, 'one snapshot per commit');
    const [[logFiles]] = await rows(c, "SELECT count(*) FROM tt$files WHERE file_path LIKE 'log/%'");
    assert.ok(Number(logFiles) > 0, 'the commits\' rows are in the log');
    const before = await readBack(c, snapshots);
    assert.deepEqual(before.asOf, COMMITS.map((x) => x.after), 'FOR SYSTEM_VERSION AS OF each snapshot');
    assert.deepEqual(before.changes.map((r) => [...r].sort()), COMMITS.map((x) => [...x.changes].sort()), 'table_changes between neighbouring snapshots');
    assert.deepEqual(before.audit.map((r) => [...r].sort()), COMMITS.map((x) => [...x.changes].sort()), 't$audit_log per commit');
    assert.deepEqual(before.snapshotIds, snapshots.map((s) => [s]));
    await c.end().catch(() => undefined);

    // A dead gateway: its log writer row stays until the next open replays its log.
    await gw.kill();
    gw = await second.start(['--data', dir]);
    assert.match(gw.log(), /"msg":"log replayed"/, 'the new gateway replayed the dead one\'s log');
    const c2 = await connect(gw);
    try {
      assert.deepEqual(await readBack(c2, snapshots), before, 'the same answers after the replay');
      // And it still commits.
      await c2.query("INSERT INTO tt VALUES (9, 'after')");
      assert.deepEqual(await rows(c2, 'SELECT id, v FROM tt ORDER BY id'), [...COMMITS[COMMITS.length - 1]!.after, ['9', 'after']]);
    } finally { await c2.end().catch(() => undefined); }
  } finally {
    await gw?.stop();
    first.discard();
    second.discard();
    rmSync(dir, { recursive: true, force: true });
  }
});
