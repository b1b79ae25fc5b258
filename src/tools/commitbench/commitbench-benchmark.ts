import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgresCluster } from '../pg/postgres-cluster.js';
import type { PostgresCluster } from '../pg/postgres-cluster.js';
import { createScratchDatabase } from '../pg/scratch-database.js';
import type { ScratchDatabase } from '../pg/scratch-database.js';
import { startGateway } from '../tpch/gateway-process.js';
import type { GatewayProcess } from '../tpch/gateway-process.js';
import { COMMIT_MEASURES } from './commit-figure.js';
import type { CommitFigure, CommitMeasure, MeasureOutcome, SampleSet } from './commit-figure.js';
import { measureCommitVisibility } from './commit-visibility.js';
import { measureConcurrentCommits } from './concurrent-commits.js';
import { measureCrashReplay } from './crash-replay.js';
import { DuckDbTable } from './duckdb-table.js';
import { KEYED_TABLE, KeyedTable } from './keyed-table.js';
import { measureMergeOnReadScan, updateTenPercent } from './merge-on-read-scan.js';
import { measurePointReads, upsertOnePercent } from './point-read.js';
import { measureSingleRowCommits } from './single-row-commits.js';
import { measureTwoGateways } from './two-gateway-commits.js';
import { waitForQuietProcess } from './wait-for-quiet-process.js';
import { acceptedProperties, connect } from './sql-target.js';
import type { SqlTarget } from './sql-target.js';
import { machineDescription } from '../machine.js';
import { S3RVER_ENV, startS3rverBucket } from '../s3rver-bucket.js';
import type { S3rverBucket } from '../s3rver-bucket.js';

const fmtFigure = (x: number | undefined) => (x === undefined ? '—' : x.toPrecision(4));

export interface CommitBenchOptions {
  /** Measure 1: single-row commits of history (windows end at 10, 100, 1,000, 10,000 and here). */
  readonly commits: number;
  /** Measure 2: connections committing at once, and for how long. */
  readonly clients: number;
  readonly seconds: number;
  /** Measure 3: insert-then-read rounds. */
  readonly rounds: number;
  /** Measures 4 and 5: rows of the keyed table; point reads; rows per upsert commit. */
  readonly rows: number;
  readonly reads: number;
  readonly upsertBatch: number;
  /** Measure 6: rows committed before the crash, in transactions of replayTxnRows. */
  readonly replayRows: number;
  readonly replayTxnRows: number;
  /** The measures to run (default all, in order). */
  readonly only?: readonly CommitMeasure[];
  /** Run PostgreSQL beside Floe (default true): a fresh cluster, fsync on, started here. */
  readonly postgres?: boolean;
  /**
   * Instead of a fresh cluster, a database of its own on this server (tests share one); its
   * settings are whatever the server has, and measure 6 has no peer (a shared server is not crashed).
   */
  readonly postgresUrl?: string;
  /** Run DuckDB beside Floe where it applies (default true). */
  readonly duckdb?: boolean;
  /** Extra `floe serve` flags. */
  readonly serveArgs?: readonly string[];
  /** Node flags for the measured gateway only, for diagnosis (`--cpu-prof`); the report notes them. */
  readonly serveNodeArgs?: readonly string[];
  /** Floe's gateways keep their catalog in a database of its own on the PostgreSQL peer (`--catalog`), instead of SQLite. */
  readonly catalogOnPeer?: boolean;
  /**
   * Floe's data in a bucket of s3rver (a real S3 API server on loopback), each gateway with
   * a state directory of its own when the catalog is on the peer (two hosts' shape), else one.
   */
  readonly dataOnS3rver?: boolean;
  readonly log?: (line: string) => void;
}

export interface CommitBenchReport {
  readonly options: Omit<CommitBenchOptions, 'log'>;
  readonly figures: readonly CommitFigure[];
  readonly samples: readonly SampleSet[];
  readonly notes: readonly string[];
  readonly mismatches: readonly string[];
  readonly machine: string;
  readonly date: string;
  readonly seconds: number;
}

/**
 * `npm run bench:commit`: issue 24's six targets, Floe (a fresh `floe serve` on a temp
 * warehouse) beside PostgreSQL 15 (a fresh cluster with fsync on and default
 * synchronous_commit) and DuckDB where the figure is about scans and point reads.
 */
export async function runCommitBenchmark(opts: CommitBenchOptions): Promise<CommitBenchReport> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const only = new Set(opts.only ?? COMMIT_MEASURES);
  const started = performance.now();
  const outcomes: MeasureOutcome[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'floe-commitbench-'));
  let gateway: GatewayProcess | undefined;
  let cluster: PostgresCluster | undefined;
  let scratch: ScratchDatabase | undefined;
  let catalogDb: ScratchDatabase | undefined;
  let bucket: S3rverBucket | undefined;
  let duck: DuckDbTable | undefined;
  let warmupNote: string | undefined;
  const stamp = () => `[${new Date().toISOString().slice(11, 19)}]`;
  // Each measure's figures go to the log as it ends, so a long run that is stopped still leaves them.
  const record = (o: MeasureOutcome) => {
    outcomes.push(o);
    for (const f of o.figures) log(`    ${f.what}: Floe ${fmtFigure(f.floe)}, PostgreSQL ${fmtFigure(f.postgres)}, DuckDB ${fmtFigure(f.duckdb)} ${f.unit}`);
  };
  try {
    if (opts.postgres !== false && opts.postgresUrl !== undefined) {
      scratch = await createScratchDatabase(opts.postgresUrl, 'commitbench');
      log(`${stamp()} PostgreSQL: a database of its own on the shared server (its settings as they are)`);
    } else if (opts.postgres !== false) {
      cluster = await startPostgresCluster({ durable: true, settings: { max_connections: '100', shared_buffers: '128MB' } });
      log(`${stamp()} PostgreSQL 15 started (fsync on, synchronous_commit on) on port ${cluster.port}`);
    }
    let serveArgs = opts.serveArgs ?? [];
    if (opts.catalogOnPeer === true) {
      const peer = opts.postgresUrl ?? cluster?.adminUrl;
      if (peer === undefined) throw new Error('--catalog-on-peer needs the PostgreSQL peer');
      // Measure 6 crashes the peer's server, which would take Floe's catalog with it.
      if (only.has('replay')) throw new Error('--catalog-on-peer does not go with measure 6 (replay): pick the others with --only');
      catalogDb = await createScratchDatabase(peer, 'floe_catalog');
      serveArgs = [...serveArgs, '--catalog', catalogDb.url];
      log(`${stamp()} Floe's catalog: a database of its own on the PostgreSQL peer`);
    }
    let gatewayEnv: Readonly<Record<string, string>> = {};
    let ownStateDir = (): readonly string[] => [];
    if (opts.dataOnS3rver === true) {
      if (only.has('replay')) throw new Error('--data-on-s3rver does not go with measure 6 (replay): pick the others with --only');
      bucket = await startS3rverBucket(join(dir, 's3rver'), 'commitbench');
      serveArgs = [...serveArgs, '--data', `s3://${bucket.bucket}/warehouse`, '--s3-endpoint', bucket.endpoint, '--s3-path-style'];
      gatewayEnv = S3RVER_ENV;
      let gateways = 0;
      // With the catalog on the peer each gateway is as on a host of its own; with SQLite they share its directory.
      ownStateDir = () => ['--state-dir', join(dir, opts.catalogOnPeer === true ? `state-${gateways++}` : 'state')];
      log(`${stamp()} Floe's data: a bucket of s3rver on ${bucket.endpoint}`);
    }
    const needsGateway = COMMIT_MEASURES.some((m) => m !== 'replay' && only.has(m));
    if (needsGateway) {
      gateway = await startGateway(dir, [...serveArgs, ...ownStateDir()], { env: gatewayEnv, nodeArgs: opts.serveNodeArgs ?? [] });
      log(`${stamp()} floe serve started on ${gateway.url}`);
      // Not while its worker threads still load code: the first commits would measure that.
      const warm = await waitForQuietProcess(gateway.pid);
      log(`${stamp()} floe serve ${warm.quiet ? 'idle' : 'still busy'} after ${(warm.ms / 1000).toFixed(1)} s`);
      if (!warm.quiet) warmupNote = `floe serve was still busy ${(warm.ms / 1000).toFixed(0)} s after it started; measure 1 ran anyway`;
    }
    const floe: SqlTarget = { engine: 'floe', url: gateway?.url ?? '', ...(gateway === undefined ? {} : { pid: gateway.pid }) };
    const postgresUrl = scratch?.url ?? cluster?.adminUrl;
    const postgres: SqlTarget | undefined = postgresUrl === undefined ? undefined : { engine: 'postgres', url: postgresUrl };
    if (only.has('insert')) {
      log(`${stamp()} 1. single-row autocommit INSERT, one client, ${opts.commits} commits`);
      record(await measureSingleRowCommits(floe, postgres, opts.commits));
    }
    if (only.has('concurrent')) {
      log(`${stamp()} 2. single-row commits, ${opts.clients} clients, ${opts.seconds} s`);
      record(await measureConcurrentCommits(floe, postgres, opts.clients, opts.seconds));
    }
    if (only.has('gateways') && gateway !== undefined) {
      // A second gateway on the same warehouse: its own process and log store, the one catalog.
      const second = await startGateway(dir, [...serveArgs, ...ownStateDir()], { env: gatewayEnv });
      try {
        log(`${stamp()} 2b. single-row commits, ${opts.clients} clients, ${opts.seconds} s: one gateway, then two (${second.url})`);
        await waitForQuietProcess(second.pid);
        record(await measureTwoGateways(floe, { engine: 'floe', url: second.url }, postgres, opts.clients, opts.seconds));
      } finally {
        await second.stop();
      }
    }
    if (only.has('visibility')) {
      log(`${stamp()} 3. commit acknowledged → visible to another session, ${opts.rounds} rounds`);
      record(await measureCommitVisibility(floe, postgres, opts.rounds));
    }
    if (only.has('point-read') || only.has('scan')) {
      log(`${stamp()} 4/5. loading ${opts.rows.toLocaleString('en-US')} rows into ${KEYED_TABLE}`);
      if (opts.duckdb !== false) duck = await DuckDbTable.create(KEYED_TABLE);
      const table = new KeyedTable(opts.rows, floe, postgres, duck);
      // Pending changes must stay pending: the self-optimizing service would fold them in the background.
      const probe = await connect(floe);
      let properties: Record<string, string>;
      try {
        const accepted = await acceptedProperties(probe, { 'self-optimizing.enabled': 'false' });
        properties = accepted.properties;
        for (const r of accepted.refused) log(`note: ${r}`);
      } finally {
        await probe.end();
      }
      await table.load(properties, log);
      log(`${stamp()}   optimize once: ${(await table.optimizeFloe()).toFixed(1)} s`);
      // Measures 4 and 5 time reads, not the gateway's work after the writes before them
      // (tiering, the Iceberg export of the pending rows): each waits for it to go quiet.
      const pid = gateway?.pid;
      const settle = pid === undefined ? undefined : async () => {
        const w = await waitForQuietProcess(pid, { maxMs: 30_000 });
        return `${w.quiet ? 'went quiet' : 'was still busy'} after ${(w.ms / 1000).toFixed(1)} s`;
      };
      if (only.has('point-read')) {
        log(`${stamp()} 4. point reads by key, ${opts.reads} reads, 1% of keys pending`);
        await upsertOnePercent(table, opts.upsertBatch, log);
        record(await measurePointReads(table, opts.reads, settle));
      }
      if (only.has('scan')) {
        log(`${stamp()} 5. full merge-on-read scan, ~10% pending, then optimized`);
        await updateTenPercent(table, only.has('point-read'), log);
        record(await measureMergeOnReadScan(table, log, settle));
      }
    }
    await gateway?.stop();
    gateway = undefined;
    if (only.has('replay')) {
      log(`${stamp()} 6. crash and restart with ${opts.replayRows.toLocaleString('en-US')} rows committed in ${opts.replayTxnRows}-row transactions`);
      record(await measureCrashReplay({ rows: opts.replayRows, txnRows: opts.replayTxnRows, serveArgs }, cluster, log));
    }
    log(`${stamp()} done`);
  } finally {
    duck?.close();
    await gateway?.stop();
    await catalogDb?.drop();
    await bucket?.stop();
    await cluster?.stop();
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  const { log: _log, ...options } = opts;
  return {
    options,
    figures: outcomes.flatMap((o) => o.figures),
    samples: outcomes.flatMap((o) => o.samples),
    notes: [
      ...((opts.serveNodeArgs ?? []).length > 0 ? [`gateway node flags: ${opts.serveNodeArgs!.join(' ')} (a diagnostic run, not the gateway as shipped)`] : []),
      ...(warmupNote === undefined ? [] : [warmupNote]), ...outcomes.flatMap((o) => o.notes)],
    mismatches: outcomes.flatMap((o) => o.mismatches),
    machine: machineDescription(),
    date: new Date().toISOString(),
    seconds: (performance.now() - started) / 1000,
  };
}
