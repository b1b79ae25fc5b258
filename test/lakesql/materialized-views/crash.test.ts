/**
 * Materialized views under SIGKILL (issue 31): a client runs random writes to the base
 * tables and REFRESH MATERIALIZED VIEW of several views through a `floe serve` that is
 * killed at a random moment (often while a refresh is running), KILLS times, restarted
 * on the same warehouse each time. After every restart:
 * - each view's rows are exactly its query's rows with every base table read at the
 *   snapshot the catalog records as the view's position (time travel): a refresh's rows
 *   and its positions commit together or not at all;
 * - each view's generation moved by every refresh acknowledged before the kill, and at
 *   most by the one in flight too;
 * - one more REFRESH makes each view equal its query run now, whatever the kill left.
 *
 * FLOE_MV_CRASH_KILLS (default 20); FLOE_MV_CRASH_SEED picks the writes and the kill delays
 * (where a kill lands still depends on timing); FLOE_MV_VERBOSE=1 reports each round.
 */
import { test } from 'node:test';
import { seededRandom } from '../../lake/helpers/seeded-random.js';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type pg from 'pg';
import {
  VIEWS, anyWrite, assertViewMatches, createTablesSql, createViewSql, errorCode, multiset, positionsByName, relationIds, rowsOf, snapshotRef, viewRecords,
} from './mv-model.js';
import { loadGateway } from '../../service/killable-gateway.js';
import type { LoadedGateway } from '../../service/killable-gateway.js';
import { startMvGateway, tempDataDir } from './mv-gateway.js';
import type { MvGateway } from './mv-gateway.js';

const KILLS = Number(process.env.FLOE_MV_CRASH_KILLS ?? 20);
const SEED = Number(process.env.FLOE_MV_CRASH_SEED ?? Date.now() % 2 ** 31);
/** A view of each kind of refresh: linear over a join, grouped with min/max, scalar, and full. */
const CRASH_VIEWS = VIEWS.filter((v) => ['v_join', 'v_agg', 'v_scalar', 'v_left'].includes(v.name));
const ARGS = ['--optimizer-threads', '0'];

const prng = seededRandom;

interface Round {
  /** Per view: refreshes acknowledged before the kill. */
  readonly acked: Map<string, number>;
  /** The view whose refresh was in flight at the kill, if any. */
  inFlight: string | undefined;
  /** Whether the kill landed while a REFRESH was running. */
  killedMidRefresh: boolean;
}

/**
 * Runs writes and refreshes on `c` until the connection dies; kills the gateway after a
 * random delay, half the time at a random moment within a refresh.
 */
async function runUntilKilled(g: MvGateway, c: pg.Client, rand: () => number, writes: readonly string[]): Promise<Round> {
  const round: Round = { acked: new Map(), inFlight: undefined, killedMidRefresh: false };
  let refreshStarted: (() => void) | undefined;
  const midRefresh = rand() < 0.5;
  const delay = 150 + Math.floor(rand() * 1200);
  const intoRefresh = Math.floor(rand() * 60);
  const killer = (async () => {
    await new Promise((r) => setTimeout(r, delay));
    if (midRefresh) await new Promise<void>((r) => { refreshStarted = r; });
    if (midRefresh) await new Promise((r) => setTimeout(r, intoRefresh));
    round.killedMidRefresh = round.inFlight !== undefined;
    await g.gateway.kill();
  })();
  for (let i = 0; ; i++) {
    const refresh = rand() < 0.35;
    const v = CRASH_VIEWS[Math.floor(rand() * CRASH_VIEWS.length)]!;
    const sql = refresh ? `REFRESH MATERIALIZED VIEW ${v.name}` : writes[i % writes.length]!;
    if (refresh) {
      round.inFlight = v.name;
      refreshStarted?.();
      refreshStarted = undefined;
    }
    let code: string | undefined;
    try {
      code = await errorCode(c, sql);
    } catch {
      break; // the connection died with the gateway
    }
    // The kill reaches the client as a shutdown notice, a broken connection or a reset socket.
    if (code !== undefined && ['57P01', '08006', '08003', 'ECONNRESET', 'EPIPE'].includes(code)) break;
    if (refresh) {
      assert.equal(code, undefined, `${sql} failed with ${code}`);
      round.acked.set(v.name, (round.acked.get(v.name) ?? 0) + 1);
      round.inFlight = undefined;
    } else {
      assert.ok(code === undefined || code === '23505', `${sql} failed with ${code}`);
    }
  }
  await killer;
  return round;
}

test(`materialized views survive SIGKILL: ${KILLS} kills during writes and refreshes, each view equal to its query at its positions`, { timeout: 900_000 }, async (t) => {
  if ((process.env.FLOE_TEST_CATALOG_URL ?? '') !== '') {
    t.skip('reads the positions from the SQLite catalog');
    return;
  }
  const data = tempDataDir('floe-mv-crash-');
  const rand = prng(SEED);
  let g: MvGateway | undefined;
  let next: LoadedGateway | undefined;
  let midRefreshKills = 0;
  try {
    g = await startMvGateway(data.dir, ARGS);
    let c = await g.connect();
    for (const sql of createTablesSql()) await c.query(sql);
    await c.query('INSERT INTO f SELECT i, i % 4, i % 7, i % 6 FROM generate_series(1, 8) AS s(i)');
    await c.query('INSERT INTO d SELECT i, i % 3, i, i % 4 FROM generate_series(1, 5) AS s(i)');
    await c.query('INSERT INTO e SELECT i, i FROM generate_series(1, 3) AS s(i)');
    for (const v of CRASH_VIEWS) await c.query(createViewSql(v));
    const ids = await relationIds(c, 'public');
    for (let k = 0; k < KILLS; k++) {
      const before = viewRecords(data.dir)!;
      const writes = fc.sample(anyWrite, { seed: SEED + k, numRuns: 500 });
      // The next gateway loads its modules meanwhile, so a restart costs about what a real one does.
      next = loadGateway();
      const round = await runUntilKilled(g, c, rand, writes);
      if (round.killedMidRefresh) midRefreshKills++;
      await c.end().catch(() => undefined);
      const restart = performance.now();
      g = await startMvGateway(data.dir, ARGS, next);
      next = undefined;
      c = await g.connect();
      const restarted = performance.now();
      const after = viewRecords(data.dir)!;
      const what = `kill ${k} (seed ${SEED})`;
      for (const v of CRASH_VIEWS) {
        const id = ids.get(v.name)!;
        const was = before.get(id)!;
        const now = after.get(id)!;
        const acked = round.acked.get(v.name) ?? 0;
        const moved = now.generation - was.generation;
        const inFlight = round.inFlight === v.name ? 1 : 0;
        assert.ok(moved >= acked && moved <= acked + inFlight,
          `${what}: ${v.name} moved ${moved} generations, with ${acked} refreshes acknowledged and ${inFlight} in flight`);
        assert.ok(now.populated, `${what}: ${v.name} is populated`);
        // The rows the kill left are the query's at the positions recorded with them.
        const got = multiset(await rowsOf(c, `SELECT * FROM ${v.name}`));
        const atPositions = multiset(await rowsOf(c, v.query(snapshotRef(positionsByName(now, ids)))));
        assert.deepEqual(got, atPositions, `${what}: ${v.name} equals its query at the positions ${JSON.stringify(now.positions)}`);
      }
      // Whatever the kill left, a refresh brings each view to its query's rows now.
      for (const v of CRASH_VIEWS) {
        await c.query(`REFRESH MATERIALIZED VIEW ${v.name}`);
        await assertViewMatches(c, v, () => what);
      }
      if (process.env.FLOE_MV_VERBOSE === '1') {
        t.diagnostic(`${what}: ${[...round.acked.values()].reduce((a, b) => a + b, 0)} refreshes acknowledged, ${round.killedMidRefresh ? `killed during a refresh of ${round.inFlight}` : 'killed between statements'}; restart ${(restarted - restart).toFixed(0)} ms, checks ${(performance.now() - restarted).toFixed(0)} ms`);
      }
    }
    await c.end();
    t.diagnostic(`seed ${SEED}: ${midRefreshKills} of ${KILLS} kills landed during a refresh`);
    assert.ok(midRefreshKills > 0, 'some kills landed during a refresh');
  } finally {
    next?.discard();
    await g?.gateway.stop();
    data.remove();
  }
});
