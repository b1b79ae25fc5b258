import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { chQueries, CH_VIEWS } from '../chbench/ch-queries.js';
import { chStreamBasics, runChStream } from '../chbench/chbench-driver.js';
import type { ChStreamPacing } from '../chbench/chbench-driver.js';
import type { ChStreamResult } from '../chbench/chbench-driver.js';
import { loadChBenchmark } from '../chbench/chbench-loader.js';
import { TpccGenerator, tpccScale } from '../chbench/tpcc-generator.js';
import type { TpccScale } from '../chbench/tpcc-generator.js';
import { CH_TABLES } from '../chbench/tpcc-schema.js';
import { startPostgresCluster } from '../pg/postgres-cluster.js';
import { startGateway } from '../tpch/gateway-process.js';
import { runTextQuery } from '../tpch/wire-query.js';
import { CREATE_STAMP_TABLE, FreshnessTracker, pollStamps, readCommitTimes, STAMP_TABLE } from './commit-stamps.js';
import type { CommitSample, FreshnessSample } from './commit-stamps.js';
import { sampleSource } from './source-sampler.js';
import type { SourceSample } from './source-sampler.js';
import { machineDescription } from '../machine.js';

export interface CdcBenchOptions extends ChStreamPacing {
  readonly warehouses: number;
  readonly scale?: Partial<Omit<TpccScale, 'warehouses'>>;
  readonly queries?: readonly number[];
  /** An existing PostgreSQL 15 with wal_level = logical (a database is created in it and dropped after); otherwise a throwaway cluster. */
  readonly sourceUrl?: string;
  readonly optimizerThreads: number;
  /** How often the freshness poller reads Floe. */
  readonly pollMs: number;
  readonly log?: (line: string) => void;
}

export interface CdcBenchReport {
  readonly options: Omit<CdcBenchOptions, 'log'>;
  readonly scale: TpccScale;
  readonly machine: string;
  readonly date: string;
  readonly source: string;
  /** The TPC-C load into the source (COPY), before Floe subscribes. */
  readonly sourceLoadSeconds: number;
  /** CREATE SUBSCRIPTION until every table is ready: the initial copy. */
  readonly copy: { readonly rows: number; readonly seconds: number };
  readonly stream: Omit<ChStreamResult, 'writeLog' | 'errors'> & { readonly errors: Readonly<Record<string, number>> };
  /** Each stamped commit's way into a Floe snapshot; stampedAtMs relative to the stream's start. */
  readonly committed: readonly CommitSample[];
  /** Each stamped commit as the poller first saw it; ackAtMs relative to the stream's start. */
  readonly freshness: readonly FreshnessSample[];
  /** Acknowledged source transactions Floe never showed within the catch-up wait. */
  readonly unseen: number;
  /** After the stream: until Floe showed every acknowledged transaction. */
  readonly catchUpSeconds: number;
  /** atMs relative to the stream's start. */
  readonly sourceSamples: readonly SourceSample[];
  /** Each query's second run on the source after the stream (the peer). */
  readonly peer: readonly { readonly query: number; readonly ms: number; readonly error?: string }[];
  /** Row counts per table on the source and on Floe once Floe caught up. */
  readonly counts: readonly { readonly table: string; readonly source: number; readonly floe: number }[];
}

const SUBSCRIPTION = 'cdc';
const PUBLICATION = 'floe_cdc';
const CATCH_UP_MS = 120_000;

async function withClient<T>(url: string, f: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await f(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * bench:cdc (issue 27): TPC-C runs on PostgreSQL 15 while Floe subscribes to it, with the CH
 * queries on Floe; then the same queries on the source as the peer. Floe in place of Flink
 * CDC + a lake + a query engine.
 */
export async function runCdcBenchmark(opts: CdcBenchOptions): Promise<CdcBenchReport> {
  const { log: logOption, ...options } = opts;
  const log = logOption ?? ((l: string) => process.stderr.write(`${l}\n`));
  const scale = tpccScale(opts.warehouses, opts.scale);
  const queries = chQueries(opts.queries);
  const cluster = opts.sourceUrl === undefined
    ? await startPostgresCluster({ durable: true, settings: { wal_level: 'logical', max_wal_senders: '10', max_replication_slots: '10', shared_buffers: '512MB' } })
    : undefined;
  const adminUrl = opts.sourceUrl ?? cluster!.adminUrl;
  const database = `floe_cdcbench_${process.pid}`;
  const sourceUrl = (() => {
    const u = new URL(adminUrl);
    u.pathname = `/${database}`;
    return u.toString();
  })();
  const dir = mkdtempSync(join(tmpdir(), 'floe-cdcbench-'));
  try {
    await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${database}`));
    log(`loading the source (PostgreSQL, ${opts.sourceUrl === undefined ? 'a throwaway cluster, fsync on' : 'the given server'})…`);
    const load = await loadChBenchmark(sourceUrl, new TpccGenerator(scale, { loadTimeMs: Date.now() }), { log });
    const sourceRows = [...load.rows.values()].reduce((a, b) => a + b, 0);
    await withClient(sourceUrl, async (c) => {
      await c.query(CREATE_STAMP_TABLE);
      await c.query(`CREATE PUBLICATION ${PUBLICATION} FOR ALL TABLES`);
      await c.query('VACUUM ANALYZE');
    });
    log(`source loaded in ${load.seconds.toFixed(1)} s (${sourceRows.toLocaleString('en-US')} rows)`);

    const gateway = await startGateway(dir, ['--optimizer-threads', String(opts.optimizerThreads)]);
    try {
      const src = new URL(sourceUrl);
      const conninfo = `host=${src.hostname} port=${src.port || 5432} dbname=${database} user=${decodeURIComponent(src.username) || 'postgres'}`;
      const copyStart = performance.now();
      await withClient(gateway.url, (c) => c.query(`CREATE SUBSCRIPTION ${SUBSCRIPTION} CONNECTION '${conninfo}' PUBLICATION ${PUBLICATION}`));
      const slot = await waitForCopy(gateway.url, CH_TABLES.length + 1, log);
      const copySeconds = (performance.now() - copyStart) / 1000;
      log(`initial copy: ${sourceRows.toLocaleString('en-US')} rows in ${copySeconds.toFixed(1)} s (${Math.round(sourceRows / copySeconds).toLocaleString('en-US')} rows/s)`);
      await withClient(gateway.url, async (c) => {
        for (const v of CH_VIEWS) await c.query(v);
      });

      const tracker = new FreshnessTracker();
      const poller = pollStamps(gateway.url, tracker, opts.pollMs);
      const sampler = sampleSource(sourceUrl, slot);
      log(`\n== stream: TPC-C on the source at ${opts.txRate} tx/s over ${opts.clients} clients, CH queries on Floe, ${opts.periods} × ${opts.periodMs / 60_000} min ==`);
      let stream: ChStreamResult;
      let catchUpSeconds: number;
      try {
        stream = await runChStream({
          url: gateway.url,
          txUrl: sourceUrl,
          stamps: tracker,
          ...chStreamBasics(scale, queries, opts),
          seed: 'cdcbench',
          gatewayUsage: () => gateway.usage(),
          log,
        });
        const caughtUp = performance.now();
        while (tracker.pending > 0 && performance.now() - caughtUp < CATCH_UP_MS) await sleep(50);
        catchUpSeconds = (performance.now() - caughtUp) / 1000;
      } finally {
        await poller.stop();
        await sampler.stop();
      }
      log(`Floe showed every acknowledged source transaction ${catchUpSeconds.toFixed(1)} s after the stream ended${tracker.pending > 0 ? ` (${tracker.pending} never did)` : ''}`);
      const committed = await withClient(gateway.url, readCommitTimes);

      const counts: { table: string; source: number; floe: number }[] = [];
      for (const table of [...CH_TABLES.map((t) => t.name), STAMP_TABLE]) {
        const count = async (url: string) => Number((await runTextQuery(url, `SELECT count(*) FROM ${table}`, opts.queryTimeoutMs)).rows[0]![0]);
        counts.push({ table, source: await count(sourceUrl), floe: await count(gateway.url) });
      }

      log('peer: the CH queries on the source (PostgreSQL), each twice…');
      const peer: { query: number; ms: number; error?: string }[] = [];
      for (const q of queries) {
        // The second run counts, as the DuckDB peer's does: the first warms the source's caches.
        let ms = Number.NaN;
        let error: string | undefined;
        for (let i = 0; i < 2; i++) {
          const t = performance.now();
          try {
            await runTextQuery(sourceUrl, q.sql!, opts.queryTimeoutMs);
            ms = performance.now() - t;
            error = undefined;
          } catch (e) {
            ms = Number.NaN;
            error = (e as Error).message;
          }
        }
        peer.push({ query: q.number, ms, ...(error === undefined ? {} : { error }) });
      }

      const t0 = Date.parse(stream.startedAt);
      const { writeLog: _writes, errors, ...rest } = stream;
      return {
        options,
        scale,
        machine: machineDescription(),
        date: new Date().toISOString(),
        source: opts.sourceUrl === undefined ? 'throwaway PostgreSQL 15 cluster (fsync on, shared_buffers 512MB)' : 'the given PostgreSQL server',
        sourceLoadSeconds: load.seconds,
        copy: { rows: sourceRows, seconds: copySeconds },
        stream: { ...rest, errors: Object.fromEntries(errors) },
        committed: committed.map((s) => ({ ...s, stampedAtMs: s.stampedAtMs - t0 })),
        freshness: tracker.samples.map((s) => ({ ackAtMs: s.ackAtMs - t0, ms: s.ms })),
        unseen: tracker.pending,
        catchUpSeconds,
        sourceSamples: sampler.samples.map((s) => ({ ...s, atMs: s.atMs - t0 })),
        peer,
        counts,
      };
    } finally {
      await withClient(gateway.url, (c) => c.query(`DROP SUBSCRIPTION IF EXISTS ${SUBSCRIPTION}`)).catch(() => undefined);
      await gateway.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (cluster !== undefined) await cluster.stop();
    else await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).catch(() => undefined);
  }
}

/** Waits until the subscription has `tables` tables, none copying; returns its slot's name. Fails on the first error the subscription reports. */
async function waitForCopy(floeUrl: string, tables: number, log: (l: string) => void): Promise<string> {
  let lastNote = 0;
  for (;;) {
    const row = await withClient(floeUrl, async (c) => (await c.query<{ tables: number; tables_copying: number; slot_name: string | null; last_error: string | null }>(
      `SELECT tables, tables_copying, slot_name, last_error FROM floe_subscriptions WHERE subname = '${SUBSCRIPTION}'`,
    )).rows[0]);
    if (row === undefined) throw new Error(`subscription ${SUBSCRIPTION} is gone`);
    if (row.last_error !== null) throw new Error(`the subscription failed: ${row.last_error}`);
    if (Number(row.tables) >= tables && Number(row.tables_copying) === 0) return row.slot_name ?? SUBSCRIPTION;
    if (performance.now() - lastNote > 10_000) {
      lastNote = performance.now();
      log(`  copying: ${row.tables_copying} of ${row.tables} tables not ready`);
    }
    await sleep(200);
  }
}
