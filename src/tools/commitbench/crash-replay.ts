import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { PostgresCluster } from '../pg/postgres-cluster.js';
import { startGateway } from '../tpch/gateway-process.js';
import { createTableSql, insertSql, loadedRow } from './bench-rows.js';
import type { BenchRow } from './bench-rows.js';
import { emptyOutcome } from './commit-figure.js';
import type { MeasureOutcome } from './commit-figure.js';
import { since } from './latency-stats.js';
import { acceptedProperties, connect } from './sql-target.js';
import type { SqlTarget } from './sql-target.js';

const TABLE = 'replay_t';
/** Connections committing at once while the rows go in (the commits are setup, not timed). */
const WRITERS = 4;
/** Tiering (by age and by size) and optimizing off, so every committed row is still in the log at the crash. */
const UNTIERED = { 'self-optimizing.enabled': 'false', 'log.tier-interval': '24h', 'log.tier-size': '1024GB' } as const;
/** A gateway line that says the log replay finished (the lead's recovery logs it). */
const REPLAYED = /log replayed|replayed the log|log replay (done|finished)/i;

export interface ReplayOptions {
  readonly rows: number;
  /** Rows per transaction. */
  readonly txnRows: number;
  readonly serveArgs: readonly string[];
}

/** Commits `rows` rows in transactions of `txnRows` from WRITERS connections at once. */
async function commitRows(target: SqlTarget, opts: ReplayOptions, properties: Readonly<Record<string, string>>): Promise<number> {
  const admin = await connect(target);
  try {
    await admin.query(createTableSql(TABLE, properties));
  } finally {
    await admin.end();
  }
  let next = 0;
  let commits = 0;
  await Promise.all(Array.from({ length: WRITERS }, async () => {
    const c = await connect(target);
    try {
      while (next < opts.rows) {
        const from = next;
        next = Math.min(opts.rows, next + opts.txnRows);
        const rows: BenchRow[] = [];
        for (let id = from; id < next; id++) rows.push(loadedRow(id));
        await c.query(insertSql(TABLE, rows));
        commits++;
      }
    } finally {
      await c.end();
    }
  }));
  return commits;
}

/** Retries `SELECT count(*)` until the server answers; milliseconds from `t0` to that answer, and the count. */
async function firstQuery(url: string, t0: number): Promise<{ ms: number; count: number }> {
  for (;;) {
    const c = new pg.Client({ connectionString: url });
    try {
      await c.connect();
      const r = await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${TABLE}`);
      return { ms: since(t0), count: Number(r.rows[0]!.n) };
    } catch (e) {
      if (since(t0) > 600_000) throw new Error(`no answer 10 minutes after restart: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      await c.end().catch(() => undefined);
    }
  }
}

async function floeReplay(opts: ReplayOptions, out: MeasureOutcome, log: (l: string) => void): Promise<{ firstQueryMs: number; replayedMs?: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'floe-commitbench-replay-'));
  try {
    let gateway = await startGateway(dir, opts.serveArgs);
    let properties: Record<string, string>;
    try {
      const probe = await connect({ engine: 'floe', url: gateway.url });
      try {
        const accepted = await acceptedProperties(probe, UNTIERED);
        properties = accepted.properties;
        for (const r of accepted.refused) out.notes.push(`replay: table property not taken by this gateway, so not set: ${r}`);
      } finally {
        await probe.end();
      }
      const t0 = performance.now();
      const commits = await commitRows({ engine: 'floe', url: gateway.url }, opts, properties);
      log(`  floe: committed ${opts.rows.toLocaleString('en-US')} rows in ${commits} transactions (${(since(t0) / 1000).toFixed(1)} s); SIGKILL`);
    } finally {
      await gateway.kill();
    }
    let replayedMs: number | undefined;
    const t0 = performance.now();
    gateway = await startGateway(dir, opts.serveArgs, {
      onLine: (line) => {
        if (replayedMs !== undefined) return;
        try {
          const msg = (JSON.parse(line) as { msg?: unknown }).msg;
          if (typeof msg === 'string' && REPLAYED.test(msg)) replayedMs = since(t0);
        } catch { /* not a log record */ }
      },
    });
    try {
      const listeningMs = since(t0);
      const first = await firstQuery(gateway.url, t0);
      out.notes.push(`replay: floe listening ${listeningMs.toFixed(0)} ms after spawn, first answer at ${first.ms.toFixed(0)} ms${replayedMs === undefined ? ', no "log replayed" line' : `, "log replayed" at ${replayedMs.toFixed(0)} ms`}`);
      if (first.count !== opts.rows) out.mismatches.push(`replay: floe holds ${first.count} rows after the crash, ${opts.rows} were acknowledged`);
      return { firstQueryMs: first.ms, replayedMs };
    } finally {
      await gateway.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgresReplay(cluster: PostgresCluster, opts: ReplayOptions, out: MeasureOutcome, log: (l: string) => void): Promise<number> {
  const target: SqlTarget = { engine: 'postgres', url: cluster.adminUrl };
  // Recovery replays the WAL since the last checkpoint: make that only this measure's rows.
  const c = await connect(target);
  try {
    await c.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await c.query('CHECKPOINT');
  } finally {
    await c.end();
  }
  const tc = performance.now();
  const commits = await commitRows(target, opts, {});
  log(`  postgres: committed ${opts.rows.toLocaleString('en-US')} rows in ${commits} transactions (${(since(tc) / 1000).toFixed(1)} s); pg_ctl stop -m immediate`);
  await cluster.crash();
  const t0 = performance.now();
  await cluster.start();
  const first = await firstQuery(target.url, t0);
  if (first.count !== opts.rows) out.mismatches.push(`replay: postgres holds ${first.count} rows after the crash, ${opts.rows} were acknowledged`);
  return first.ms;
}

/**
 * Measure 6: commit `rows` rows in small transactions with tiering and optimizing off, kill
 * the gateway (SIGKILL), restart it, and time spawn → first successful query (and → the
 * "log replayed" line). PostgreSQL beside it: `pg_ctl stop -m immediate`, then start → first query.
 */
export async function measureCrashReplay(opts: ReplayOptions, cluster: PostgresCluster | undefined, log: (l: string) => void): Promise<MeasureOutcome> {
  const out = emptyOutcome();
  const ours = await floeReplay(opts, out, log);
  const peer = cluster === undefined ? undefined : await postgresReplay(cluster, opts, out, log);
  if (cluster === undefined) out.notes.push('replay: no PostgreSQL cluster of the bench\'s own to crash (--no-postgres, or --postgres-url: a shared server is not crashed), so no peer figure');
  const what = `restart after a crash, ${opts.rows.toLocaleString('en-US')} rows untiered`;
  out.figures.push({ measure: 'replay', what: `${what}: spawn → first answer`, unit: 'ms', floe: ours.firstQueryMs, postgres: peer, lowerIsBetter: true, target: { op: '<=', value: 5_000 } });
  if (ours.replayedMs !== undefined) out.figures.push({ measure: 'replay', what: `${what}: spawn → "log replayed"`, unit: 'ms', floe: ours.replayedMs, lowerIsBetter: true, target: { op: '<=', value: 5_000 } });
  for (const [engine, v] of [['floe', ours.firstQueryMs], ['postgres', peer]] as const) {
    if (v !== undefined) out.samples.push({ measure: 'replay', engine, name: 'spawn to first answer', values: [v] });
  }
  return out;
}
