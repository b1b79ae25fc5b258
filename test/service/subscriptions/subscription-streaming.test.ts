import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { loadGateway } from '../killable-gateway.js';
import type { KillableGateway, LoadedGateway } from '../killable-gateway.js';
import { connect, createSourceSchema, NO_CLUSTER, randomTransaction, rng, startSourceCluster, waitFor, waitForEquality } from './cdc-source.js';
import type { SourceCluster } from './cdc-source.js';

// pgoutput protocol 2 with `streaming = on` (issue 27): the source, whose
// logical_decoding_work_mem is PostgreSQL's least (64 kB), streams a large transaction in
// blocks before it commits. Floe holds the blocks per transaction (past 64 kB of its own
// memory, in a file: FLOE_SUBSCRIPTION_STREAM_MEMORY), applies them at Stream Commit as one
// whole transaction in commit order, drops them at Stream Abort (a whole transaction, or a
// subtransaction rolled back to its savepoint), and a SIGKILL in the middle of a streamed
// transaction loses nothing: the source sends it again whole.

const SLOT = 'ss_slot';

/** Files of open streamed transactions under the spill directories (one per transaction that spilled). */
function spilledFiles(root: string): number {
  return readdirSync(root).reduce((n, dir) => n + readdirSync(join(root, dir)).length, 0);
}

/** How many transactions the source has streamed from the slot so far. */
async function streamedTransactions(url: string): Promise<number> {
  const c = await connect(url);
  try {
    const r = await c.query<{ n: string }>('SELECT stream_txns::text AS n FROM pg_stat_replication_slots WHERE slot_name = $1', [SLOT]);
    return Number(r.rows[0]?.n ?? 0);
  } finally {
    await c.end();
  }
}

test('streaming = on: large in-progress transactions are applied whole at their commit, dropped at their abort, and survive a kill', { skip: NO_CLUSTER, timeout: 300_000 }, async () => {
  const spillRoot = mkdtempSync(join(tmpdir(), 'floe-cdc-spill-test-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'floe-cdc-stream-wh-'));
  const env = { FLOE_SUBSCRIPTION_STREAM_MEMORY: String(64 * 1024), FLOE_SPILL_DIR: spillRoot };
  let src: SourceCluster | undefined;
  let gw: KillableGateway | undefined;
  let next: LoadedGateway | undefined;
  const clients: pg.Client[] = [];
  try {
    [src, gw] = await Promise.all([
      startSourceCluster({ logical_decoding_work_mem: '64kB' }),
      loadGateway(env).start(['--data', dataDir, '--scan-threads', '1']),
    ]);
    next = loadGateway(env);
    const floeUrl = () => `postgres://floe@127.0.0.1:${gw!.port}/floe`;
    const source = await connect(src.url);
    const big = await connect(src.url);
    clients.push(source, big);
    await createSourceSchema(source, 'pub_stream');
    const rand = rng(2702);
    for (let i = 0; i < 20; i++) await randomTransaction(source, rand);
    const f = await connect(floeUrl());
    try {
      await f.query(`CREATE SUBSCRIPTION ss CONNECTION '${src.conninfo}' PUBLICATION pub_stream WITH (slot_name = ${SLOT}, streaming = on)`);
      const sub = await f.query(`SELECT substream FROM pg_subscription WHERE subname = 'ss'`);
      assert.deepEqual(sub.rows, [{ substream: true }]);
    } finally {
      await f.end();
    }
    await waitForEquality(source, floeUrl);

    // 1. A large transaction, streamed while small ones commit around it: inserts, key changes, deletes, and a
    //    subtransaction whose streamed changes are rolled back to its savepoint. It commits last, so it applies last.
    await big.query('BEGIN');
    await big.query(`INSERT INTO items (id, name, price) SELECT g, 'big ' || g, g / 100.0 FROM generate_series(300000, 309999) g`);
    for (let i = 0; i < 10; i++) await randomTransaction(source, rand);
    await big.query('UPDATE items SET id = id + 100000 WHERE id BETWEEN 300000 AND 300099');
    await big.query('DELETE FROM items WHERE id BETWEEN 300100 AND 300199');
    await big.query('SAVEPOINT s1');
    await big.query(`INSERT INTO items (id, name) SELECT g, 'rolled back ' || g FROM generate_series(320000, 324999) g`);
    await big.query(`UPDATE items SET name = 'rolled back too' WHERE id BETWEEN 300200 AND 300299`);
    await big.query('ROLLBACK TO SAVEPOINT s1');
    await big.query('SAVEPOINT s2');
    await big.query(`INSERT INTO pairs (a, b, v) SELECT g, 'kept', g FROM generate_series(1000, 1999) g`);
    await big.query('RELEASE SAVEPOINT s2');
    for (let i = 0; i < 10; i++) await randomTransaction(source, rand);
    await big.query('COMMIT');
    // Committed after it, so applied after it, though both may share a Floe commit.
    await source.query(`UPDATE items SET name = 'after big' WHERE id = 300500`);

    // 2. A large transaction that streams, then rolls back: nothing of it may appear.
    await big.query('BEGIN');
    await big.query(`INSERT INTO items (id, name) SELECT g, 'never' FROM generate_series(600000, 609999) g`);
    await big.query('ROLLBACK');
    for (let i = 0; i < 5; i++) await randomTransaction(source, rand);
    const want = await waitForEquality(source, floeUrl);
    assert.equal(want.items!.filter((r) => r[1]?.startsWith('big ')).length, 9899);
    assert.equal(want.items!.find((r) => r[0] === '300500')?.[1], 'after big');
    assert.ok(!want.items!.some((r) => /rolled back|never/.test(r[1] ?? '')));
    assert.equal(want.pairs!.filter((r) => r[1] === 'kept').length, 1000);
    assert.ok(await streamedTransactions(src.url) >= 2, 'the source streamed both large transactions');

    // 3. A SIGKILL while a streamed transaction is open and held in a file; it commits while Floe is down.
    const before = await streamedTransactions(src.url);
    await big.query('BEGIN');
    await big.query(`INSERT INTO items (id, name, price) SELECT g, 'across a kill ' || g, 1 FROM generate_series(500000, 509999) g`);
    await waitFor(() => streamedTransactions(src!.url), (n) => n > before, 'the open transaction streamed');
    await waitFor(async () => spilledFiles(spillRoot), (n) => n > 0, 'the streamed transaction spilled to a file');
    await gw.kill();
    await big.query(`UPDATE items SET price = 2 WHERE id BETWEEN 500000 AND 500999`);
    await big.query(`DELETE FROM items WHERE id BETWEEN 501000 AND 501999`);
    await big.query('COMMIT');
    await next.loaded;
    gw = await next.start(['--data', dataDir, '--scan-threads', '1']);
    next = undefined;
    const after = await waitForEquality(source, floeUrl);
    assert.equal(after.items!.filter((r) => r[1]?.startsWith('across a kill ')).length, 9000);

    const g = await connect(floeUrl());
    try {
      await g.query('DROP SUBSCRIPTION ss');
    } finally {
      await g.end();
    }
    await gw.stop();
    gw = undefined;
    // The killed gateway's spill directory went when the next one spilled; the next one's own at its stop.
    assert.deepEqual(readdirSync(spillRoot), []);
  } finally {
    for (const c of clients) await c.end().catch(() => undefined);
    await gw?.stop().catch(() => undefined);
    next?.discard();
    await src?.cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(spillRoot, { recursive: true, force: true });
  }
});
