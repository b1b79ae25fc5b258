import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startFloe } from '../harness/floe-server.js';

/*
 * `floe serve` writes Iceberg metadata after commits (on by default), and not with
 * --no-iceberg-metadata. No optimizer threads: only CALL optimize folds the change store,
 * so an UPDATE after it stays pending and is shown as an equality delete plus a row.
 */

async function optimizedTable(client: pg.Client): Promise<number> {
  await client.query(`CREATE TABLE t (id int PRIMARY KEY, v text) WITH ('metadata.iceberg.change-interval' = '1s')`);
  await client.query(`INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 25) g`);
  await client.query(`CALL optimize('t')`);
  const { rows } = await client.query<{ oid: number }>(`SELECT 't'::regclass::oid AS oid`);
  return Number(rows[0]!.oid);
}

test('floe serve writes Iceberg metadata after an optimize and after a pending UPDATE; --no-iceberg-metadata does not', { timeout: 120_000 }, async () => {
  for (const on of [true, false]) {
    const floe = await startFloe({ args: ['--optimizer-threads', '0', ...(on ? [] : ['--no-iceberg-metadata'])] });
    const client = new pg.Client({ connectionString: floe.url });
    try {
      await client.connect();
      assert.match(floe.log(), on ? /"icebergMetadata":true/ : /"icebergMetadata":false/);
      const id = await optimizedTable(client);
      const hint = join(floe.dataDir, 'iceberg', String(id), 'metadata', 'version-hint.text');
      // The service polls once a second; give it a few polls.
      const until = Date.now() + (on ? 30_000 : 3_000);
      while (!existsSync(hint) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      if (!on) {
        assert.ok(!existsSync(join(floe.dataDir, 'iceberg')), 'nothing written');
        continue;
      }
      assert.ok(existsSync(hint), 'version-hint.text appeared');
      const currentSummary = () => {
        const version = readFileSync(hint, 'utf8');
        const json = JSON.parse(readFileSync(join(floe.dataDir, 'iceberg', String(id), 'metadata', `v${version}.metadata.json`), 'utf8'));
        return json.snapshots.find((s: { 'snapshot-id': number }) => s['snapshot-id'] === json['current-snapshot-id']).summary as Record<string, string>;
      };
      // The service may export the INSERT before the optimize (the same 25 rows, as change
      // files with equality deletes): wait for the optimized head's version.
      const optimized = (s: Record<string, string>) => s['total-records'] === '25' && s['total-equality-deletes'] === '0';
      let summary = currentSummary();
      for (const stop = Date.now() + 30_000; !optimized(summary) && Date.now() < stop;) {
        await new Promise((r) => setTimeout(r, 100));
        summary = currentSummary();
      }
      assert.equal(summary['total-records'], '25');
      assert.equal(summary['total-equality-deletes'], '0');
      await client.query(`UPDATE t SET v = 'changed' WHERE id = 7`);
      for (const stop = Date.now() + 30_000; summary['total-equality-deletes'] !== '1' && Date.now() < stop;) {
        await new Promise((r) => setTimeout(r, 100));
        summary = currentSummary();
      }
      assert.equal(summary['total-equality-deletes'], '1', 'the pending UPDATE is exported as one equality delete');
      assert.equal(summary['total-records'], '26', 'the 25 base rows and the updated row');
    } finally {
      await client.end().catch(() => undefined);
      await floe.stop();
    }
  }
});
