import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openWarehouse } from '../../lake/index.js';
import { startGateway } from '../tpch/gateway-process.js';
import { chQueries, CH_SKIPPED } from './ch-queries.js';
import { chStreamBasics, runChStream } from './chbench-driver.js';
import type { ChStreamPacing } from './chbench-driver.js';
import type { ChStreamResult } from './chbench-driver.js';
import { loadChBenchmark } from './chbench-loader.js';
import { DuckDbPeer } from './duckdb-peer.js';
import { TpccGenerator, tpccScale } from './tpcc-generator.js';
import type { TpccScale } from './tpcc-generator.js';
import { CH_TABLES } from './tpcc-schema.js';
import { machineDescription } from '../machine.js';

export type ChRunMode = 'optimizing' | 'no-optimizing';

export interface ChBenchOptions extends ChStreamPacing {
  readonly warehouses: number;
  /** Query numbers to run (default every one not skipped). */
  readonly queries?: readonly number[];
  /** Which runs, in order (default both: optimizing, then no-optimizing). */
  readonly modes?: readonly ChRunMode[];
  /** Run the DuckDB peer at the end (default true). */
  readonly peer?: boolean;
  /** `--optimizer-threads` for `floe serve` (default 1). */
  readonly optimizerThreads?: number;
  /** Extra `floe serve` flags, passed as given. */
  readonly serveArgs?: readonly string[];
  /** Extra node flags for the measured gateway only (profiling: `--cpu-prof`), not for the load. */
  readonly serveNodeArgs?: readonly string[];
  /** Measured queries run as EXPLAIN ANALYZE, each sample keeping its plan (diagnosis: which scan read more in a slow stretch). */
  readonly explainAnalyze?: boolean;
  /** Scaled-down cardinalities (tests, smoke runs). */
  readonly scale?: Partial<Omit<TpccScale, 'warehouses'>>;
  readonly log?: (line: string) => void;
}

export interface ChRunReport {
  readonly mode: ChRunMode;
  readonly serveArgs: readonly string[];
  readonly serveNodeArgs: readonly string[];
  readonly loadSeconds: number;
  /** What did not go as asked (a property or procedure the gateway does not know yet). */
  readonly notes: readonly string[];
  readonly stream: ChStreamResult;
  readonly peakRssGateway?: number;
}

export interface PeerTiming {
  readonly query: number;
  readonly ms?: number;
  readonly rows?: number;
  readonly error?: string;
}

export interface ChBenchReport {
  readonly options: Omit<ChBenchOptions, 'log'>;
  readonly scale: TpccScale;
  readonly runs: readonly ChRunReport[];
  readonly peer?: { readonly transactionsApplied: number; readonly replayErrors: number; readonly applySeconds: number; readonly queries: readonly PeerTiming[] };
  readonly skipped: Readonly<Record<number, string>>;
  readonly machine: string;
  readonly date: string;
}

const DISABLED = { 'self-optimizing.enabled': 'false' } as const;

/** The CH-benCHmark, as issue 23 specifies it: each mode on a fresh warehouse and gateway, then the DuckDB peer. */
export async function runChBenchmark(opts: ChBenchOptions): Promise<ChBenchReport> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const scale = tpccScale(opts.warehouses, opts.scale);
  const queries = chQueries(opts.queries);
  const modes = opts.modes ?? ['optimizing', 'no-optimizing'];
  const serveArgs = [...(opts.serveArgs ?? [])];
  serveArgs.push('--optimizer-threads', String(opts.optimizerThreads ?? 1));
  const loadTimeMs = Date.now();
  const runs: ChRunReport[] = [];
  let peer: DuckDbPeer | undefined;
  let peerLog: readonly (readonly string[])[] = [];
  try {
    for (const mode of modes) {
      const dir = mkdtempSync(join(tmpdir(), `floe-chbench-${mode}-`));
      const notes: string[] = [];
      log(`\n== run: ${mode} (W=${scale.warehouses}, ${opts.txRate} tx/s over ${opts.clients} clients, ${opts.periods} × ${opts.periodMs / 60_000} min) ==`);
      let gateway = await startGateway(dir, serveArgs);
      try {
        let properties: Record<string, string> = {};
        if (mode === 'no-optimizing') {
          const refused = await probeProperties(gateway.url, DISABLED);
          if (refused === undefined) properties = { ...DISABLED };
          else notes.push(`self-optimizing.enabled = false refused by this gateway (${refused}); tables created without it`);
        }
        const withPeer = opts.peer !== false && peer === undefined;
        if (withPeer) peer = await DuckDbPeer.create();
        log(`loading (${mode === 'no-optimizing' && Object.keys(properties).length > 0 ? "with 'self-optimizing.enabled' = 'false'" : 'default properties'})…`);
        const gen = new TpccGenerator(scale, { loadTimeMs });
        const load = await loadChBenchmark(gateway.url, gen, { properties, onBatch: withPeer ? (b) => peer!.load(b) : undefined, log });
        log(`loaded in ${load.seconds.toFixed(1)} s`);
        await gateway.stop();
        await optimizeAfterLoad(dir, log);
        gateway = await startGateway(dir, serveArgs, { nodeArgs: opts.serveNodeArgs });
        const stream = await runChStream({
          url: gateway.url,
          ...chStreamBasics(scale, queries, opts),
          seed: 'chbench',
          gatewayUsage: () => gateway.usage(),
          explainAnalyze: opts.explainAnalyze === true,
          log,
        });
        if (withPeer) peerLog = stream.writeLog;
        runs.push({ mode, serveArgs, serveNodeArgs: opts.serveNodeArgs ?? [], loadSeconds: load.seconds, notes, stream, peakRssGateway: gateway.peakRss() });
      } finally {
        await gateway.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    }
    let peerReport: ChBenchReport['peer'];
    if (peer !== undefined) {
      log(`\n== peer: DuckDB, replaying ${peerLog.length} committed transactions of the ${modes[0]} run ==`);
      const t0 = performance.now();
      let replayErrors = 0;
      for (const writes of peerLog) {
        try {
          await peer.apply(writes);
        } catch (e) {
          // A statement DuckDB refuses must not cost the runs already measured: count it and go on.
          if (replayErrors++ === 0) log(`  peer replay error (first of any): ${(e as Error).message}`);
        }
      }
      const applySeconds = (performance.now() - t0) / 1000;
      const timings: PeerTiming[] = [];
      for (const q of queries) {
        try {
          await peer.query(q.sql!); // warm-up run; the second counts
          const r = await peer.query(q.sql!);
          timings.push({ query: q.number, ms: r.ms, rows: r.rows.length });
        } catch (e) {
          timings.push({ query: q.number, error: (e as Error).message });
        }
      }
      peerReport = { transactionsApplied: peerLog.length - replayErrors, replayErrors, applySeconds, queries: timings };
    }
    return {
      options: { ...opts, log: undefined } as Omit<ChBenchOptions, 'log'>,
      scale,
      runs,
      peer: peerReport,
      skipped: CH_SKIPPED,
      machine: machineDescription(),
      date: new Date().toISOString(),
    };
  } finally {
    peer?.close();
  }
}

/** Creates and drops a probe table with the properties; undefined when accepted, else the gateway's message. */
async function probeProperties(url: string, properties: Readonly<Record<string, string>>): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const props = Object.entries(properties).map(([k, v]) => `'${k}' = '${v}'`).join(', ');
    await client.query(`CREATE TABLE chbench_probe (k integer PRIMARY KEY) WITH (${props})`);
    await client.query('DROP TABLE chbench_probe');
    return undefined;
  } catch (e) {
    return (e as Error).message;
  } finally {
    await client.end();
  }
}

/**
 * Both runs start from the same state: every table optimized once after the load, so a run
 * measures what streaming does to a compacted table (not the load's large change files,
 * which make every keyed read of a transaction decode them). Done offline through the
 * lake's API, as the TPC-H bench does, while no gateway runs on the warehouse, so it needs
 * no SQL surface and the service has nothing to do with it.
 */
export async function optimizeAfterLoad(dir: string, log: (l: string) => void): Promise<void> {
  const t0 = performance.now();
  const warehouse = await openWarehouse({ path: dir });
  try {
    for (const t of CH_TABLES) {
      const table = warehouse.getTable('public', t.name);
      if (table !== undefined) await warehouse.optimize(table);
    }
  } finally {
    await warehouse.close();
  }
  log(`optimized every table after the load in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
