import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadGateway } from '../killable-gateway.js';
import type { KillableGateway, LoadedGateway } from '../killable-gateway.js';
import { startPostgres } from '../../harness/postgres-server.js';
import { connect, conninfoOf, createSourceSchema, dropSlotsOf, randomTransaction, rng, uniqueSlot, waitForEquality } from './cdc-source.js';

// Exactly once across crashes (issue 27: "at least 30 SIGKILLs of Floe mid-stream"): the
// source keeps committing while `floe serve` is SIGKILLed at random moments and restarted on
// the same warehouse. At the end Floe's tables equal the source's: nothing lost, nothing
// applied twice. FLOE_CDC_KILLS sets the count.
//
// A kill cycle costs the next gateway's start (its modules load ahead while the current ones
// run, bundled: test/harness/bundled-child.ts), its first commit, and a random moment more.
const url = process.env.FLOE_TEST_PG_URL;
const skip = url === undefined || url === '' ? 'needs FLOE_TEST_PG_URL (a PostgreSQL with wal_level=logical)' : false;
const KILLS = Number(process.env.FLOE_CDC_KILLS ?? 30);
// A gateway per kill, each starting its scan threads anew; one serves the few reads this test makes.
const SERVE_ARGS = ['--scan-threads', '1'];
/** Gateways loading ahead: with two, a restart rarely waits for one to finish loading (0.6 s from kill to listening, not 0.95). */
const SPARES = 2;
/** A gateway dies at a random moment up to this long after its first commit (the slot's confirmed position moved). */
const KILL_SPREAD_MS = 700;
/** …which must come within this long of its start. */
const FIRST_COMMIT_WITHIN_MS = 30_000;
/** The writer's pause after each transaction: it leaves the gateways CPU to start and catch up. */
const WRITER_PAUSE_MS = 3;

test(`SIGKILL of the gateway mid-stream, ${KILLS} times: exact equality after restarts`, { skip, timeout: 600_000 }, async (t) => {
  const pgs = await startPostgres();
  const dataDir = mkdtempSync(join(tmpdir(), 'floe-cdc-crash-'));
  const source = await connect(pgs.url);
  const writerConn = await connect(pgs.url);
  let gw: KillableGateway | undefined;
  const spares: LoadedGateway[] = [];
  let writing = true;
  let writer: Promise<number> | undefined;
  try {
    await createSourceSchema(source, 'pub_crash');
    const rand = rng(4242);
    for (let i = 0; i < 30; i++) await randomTransaction(source, rand);
    gw = await loadGateway().start(['--data', dataDir, ...SERVE_ARGS]);
    while (spares.length < SPARES) spares.push(loadGateway());
    const floeUrl = () => `postgres://floe@127.0.0.1:${gw!.port}/floe`;
    const f = await connect(floeUrl());
    const slot = uniqueSlot();
    await f.query(`CREATE SUBSCRIPTION sc CONNECTION '${conninfoOf(pgs)}' PUBLICATION pub_crash WITH (slot_name = ${slot})`);
    await f.end();
    // The source keeps committing while the gateway dies and comes back.
    writer = (async () => {
      const wrand = rng(99);
      let n = 0;
      while (writing) {
        await randomTransaction(writerConn, wrand);
        n++;
        await new Promise((r) => setTimeout(r, WRITER_PAUSE_MS));
        if (n % 50 === 0) await writerConn.query(`INSERT INTO items (id, name) SELECT g, 'batch' FROM generate_series(${200000 + n * 20}, ${200000 + n * 20 + 999}) g ON CONFLICT DO NOTHING`);
      }
      return n;
    })();
    const killRand = rng(7);
    // The slot's confirmed position moves when the gateway tells the source what it has committed: each gateway
    // is killed mid-stream, at a random moment after its first commit, not while it is still starting.
    const confirmed = async () => (await source.query<{ lsn: string }>(
      'SELECT confirmed_flush_lsn::text AS lsn FROM pg_replication_slots WHERE slot_name = $1', [slot])).rows[0]?.lsn;
    let restartMs = 0;
    let firstCommitMs = 0;
    const begun = performance.now();
    for (let i = 0; i < KILLS; i++) {
      const startedAt = performance.now();
      const before = await confirmed();
      while ((await confirmed()) === before) {
        if (performance.now() - startedAt > FIRST_COMMIT_WITHIN_MS) assert.fail(`gateway ${i} committed nothing within ${FIRST_COMMIT_WITHIN_MS} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
      firstCommitMs += performance.now() - startedAt;
      await new Promise((r) => setTimeout(r, Math.floor(killRand() * KILL_SPREAD_MS)));
      const killedAt = performance.now();
      await gw.kill();
      const next = spares.shift()!;
      await next.loaded;
      gw = await next.start(['--data', dataDir, ...SERVE_ARGS]);
      restartMs += performance.now() - killedAt;
      spares.push(loadGateway());
    }
    writing = false;
    const transactions = await writer;
    const caughtUpFrom = performance.now();
    t.diagnostic(`${KILLS} kills in ${((caughtUpFrom - begun) / 1000).toFixed(1)} s; on average ${(restartMs / KILLS).toFixed(0)} ms from a kill to `
      + `listening, ${(firstCommitMs / KILLS).toFixed(0)} ms from listening to the first commit; ${transactions} source transactions`);
    assert.ok(transactions > 0);
    try {
      await waitForEquality(source, floeUrl, 120_000);
      t.diagnostic(`caught up ${((performance.now() - caughtUpFrom) / 1000).toFixed(1)} s after the last restart`);
    } catch (e) {
      const g = await connect(floeUrl());
      const status = await g.query('SELECT * FROM floe_subscriptions').finally(() => g.end());
      throw new Error(`${(e as Error).message}\nfloe_subscriptions: ${JSON.stringify(status.rows)}\nlog tail:\n${gw.log().slice(-4000)}`);
    }
    const g = await connect(floeUrl());
    try {
      const status = await g.query(`SELECT last_error FROM floe_subscriptions WHERE subname = 'sc'`);
      assert.equal(status.rows.length, 1);
      await g.query('DROP SUBSCRIPTION sc');
    } finally {
      await g.end();
    }
  } finally {
    writing = false;
    await writer?.catch(() => undefined);
    await gw?.stop().catch(() => undefined);
    for (const s of spares) s.discard();
    await source.end().catch(() => undefined);
    await writerConn.end().catch(() => undefined);
    await dropSlotsOf(pgs.adminUrl, pgs.database).catch(() => undefined);
    await pgs.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
