import pg from 'pg';
import { QueryTimeoutError, runTextQuery } from '../tpch/wire-query.js';
import type { ChQuery } from './ch-queries.js';
import { readTableFiles } from './table-files.js';
import { readOptimizerWork } from './optimizer-work.js';
import type { OptimizerWork } from './optimizer-work.js';
import type { GatewayUsage } from '../tpch/gateway-process.js';
import type { TableFiles } from './table-files.js';
import { firstHistoryIdAfterLoad } from './tpcc-generator.js';
import type { TpccScale } from './tpcc-generator.js';
import { TpccRandom } from './tpcc-random.js';
import { pickTxKind, runTpccTransaction, TPCC_TX_KINDS } from './tpcc-transactions.js';
import type { TpccTxKind } from './tpcc-transactions.js';

/**
 * Marks each committed writing transaction so a replica can tell when it saw it (bench:cdc's
 * freshness). `next` gives a statement the transaction runs just before COMMIT; `settled`
 * says when the COMMIT was acknowledged, or that the transaction failed (undefined).
 */
export interface CommitStamps {
  next(): { readonly id: number; readonly sql: string };
  settled(id: number, acknowledgedAtMs: number | undefined): void;
}

export interface ChStreamOptions {
  /** The gateway the queries run on, whose files and optimizer work each period reads. */
  readonly url: string;
  /** Where the transactions run, when not `url` (bench:cdc: the PostgreSQL source Floe subscribes to). */
  readonly txUrl?: string;
  readonly stamps?: CommitStamps;
  readonly scale: TpccScale;
  /** Transactions started per second, paced evenly over the run. */
  readonly txRate: number;
  /** Client connections running transactions (each runs one at a time). */
  readonly clients: number;
  readonly periods: number;
  readonly periodMs: number;
  readonly queries: readonly ChQuery[];
  readonly queryTimeoutMs: number;
  /** First history key the clients may use (above the loaded rows). */
  readonly firstHistoryId: number;
  readonly seed?: string;
  /** A ticket whose start is later than this behind its due time is dropped and counted as missed. */
  readonly maxLagMs?: number;
  /** Attempts per transaction when it fails with 40001 or 23505 (each attempt draws fresh inputs). */
  readonly attempts?: number;
  /** The gateway's CPU and RSS so far (GatewayProcess.usage), read at the start and at each period's end. */
  readonly gatewayUsage?: () => GatewayUsage | undefined;
  /** Measured queries run as EXPLAIN ANALYZE (the warm-up runs them plain); each sample keeps the plan text. */
  readonly explainAnalyze?: boolean;
  readonly log?: (line: string) => void;
}

/** The pacing fields of a bench's command line that a stream takes as they are. */
export type ChStreamPacing = Pick<ChStreamOptions, 'txRate' | 'clients' | 'periods' | 'periodMs' | 'queryTimeoutMs'>;

/**
 * The stream options every CH-benCHmark stream shares: the scale and queries, the pacing
 * from the command line, and history keys above the loaded rows.
 */
export function chStreamBasics(scale: TpccScale, queries: readonly ChQuery[], pacing: ChStreamPacing) {
  const { txRate, clients, periods, periodMs, queryTimeoutMs } = pacing;
  return { scale, queries, txRate, clients, periods, periodMs, queryTimeoutMs, firstHistoryId: firstHistoryIdAfterLoad(scale) };
}

export interface QuerySample {
  readonly query: number;
  readonly period: number;
  /** When the query started, in ms since the measured stream began (ChStreamResult.startedAt): places a slow stretch in time. */
  readonly at: number;
  readonly ms: number;
  /** The EXPLAIN ANALYZE text, when the stream ran with explainAnalyze. */
  readonly plan?: string;
  readonly error?: string;
  readonly timedOut?: boolean;
}

export interface PeriodStats {
  readonly period: number;
  /** Committed per kind (New-Order's by-design rollbacks count as completed, as TPC-C counts them). */
  readonly committed: Readonly<Record<TpccTxKind, number>>;
  /** Attempts that failed with 40001 / 23505 and were retried. */
  readonly retried: number;
  /** Transactions that failed on every attempt, or with another error. */
  readonly failed: number;
  /** Tickets dropped because every client was busy past maxLagMs (the rate was not kept). */
  readonly missed: number;
  /** Files per table at the end of the period. */
  readonly files: readonly TableFiles[];
  /** The self-optimizing service's processes that started in the period, per table. */
  readonly optimizer: readonly OptimizerWork[];
  /** The gateway's CPU in the period (all threads, main thread) and its RSS at the end, when it can be read. */
  readonly gateway?: GatewayUsage;
}

export interface ChStreamResult {
  /** Wall-clock start of the measured stream (ISO), to line samples up with the gateway's logs and history. */
  readonly startedAt: string;
  readonly samples: readonly QuerySample[];
  readonly periods: readonly PeriodStats[];
  /** Every committed transaction's writes, in the order their COMMITs were acknowledged. */
  readonly writeLog: readonly (readonly string[])[];
  /** Error messages of failed transactions and queries, with counts. */
  readonly errors: ReadonlyMap<string, number>;
}

const RETRYABLE = new Set(['40001', '23505']);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * One measured run, after a warm-up round of the queries: `clients` connections run the
 * TPC-C mix at `txRate` per second while one more runs the CH queries in rounds, for
 * `periods` × `periodMs`. Samples are attributed to
 * the period in which they started; files per table are read at each period's end.
 */
export async function runChStream(opts: ChStreamOptions): Promise<ChStreamResult> {
  const log = opts.log ?? (() => undefined);
  // Warm-up, not measured: each query once, so the first period does not carry the JIT and
  // the scan workers' first Parquet reads (which would flatter every later period).
  const w0 = performance.now();
  for (const q of opts.queries) await runTextQuery(opts.url, q.sql!, opts.queryTimeoutMs).catch(() => undefined);
  log(`  warm-up: every query once in ${((performance.now() - w0) / 1000).toFixed(0)} s`);
  const maxLagMs = opts.maxLagMs ?? 2_000;
  const attempts = Math.max(1, opts.attempts ?? 4);
  const t0 = performance.now();
  const wall0 = Date.now();
  const startedAt = new Date(wall0).toISOString();
  let usageBefore = opts.gatewayUsage?.();
  const end = t0 + opts.periods * opts.periodMs;
  const periodOf = (t: number) => Math.min(opts.periods - 1, Math.max(0, Math.floor((t - t0) / opts.periodMs)));
  const committed = Array.from({ length: opts.periods }, () => Object.fromEntries(TPCC_TX_KINDS.map((k) => [k, 0])) as Record<TpccTxKind, number>);
  const retried = new Array<number>(opts.periods).fill(0);
  const failed = new Array<number>(opts.periods).fill(0);
  const missed = new Array<number>(opts.periods).fill(0);
  const files: TableFiles[][] = [];
  const optimizer: OptimizerWork[][] = [];
  const gateway: (GatewayUsage | undefined)[] = [];
  const samples: QuerySample[] = [];
  const writeLog: string[][] = [];
  const errors = new Map<string, number>();
  const noteError = (msg: string) => {
    const key = msg.slice(0, 160);
    if (!errors.has(key)) log(`  error: ${key}`);
    errors.set(key, (errors.get(key) ?? 0) + 1);
  };
  let historyId = opts.firstHistoryId;
  const interval = 1000 / opts.txRate;
  let ticket = 0;

  const client = async (index: number): Promise<void> => {
    const conn = new pg.Client({ connectionString: opts.txUrl ?? opts.url });
    await conn.connect();
    const random = new TpccRandom(`${opts.seed ?? 'chbench'}.client.${index}`);
    const ctx = { scale: opts.scale, random, nextHistoryId: () => historyId++, now: () => Date.now() };
    try {
      for (;;) {
        const due = t0 + ticket++ * interval;
        if (due >= end) return;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        else if (-wait > maxLagMs) {
          missed[periodOf(due)]!++;
          continue;
        }
        const kind = pickTxKind(random);
        for (let attempt = 1; ; attempt++) {
          let stamp: number | undefined;
          const beforeCommit = opts.stamps === undefined ? undefined : () => {
            const s = opts.stamps!.next();
            stamp = s.id;
            return s.sql;
          };
          try {
            const out = await runTpccTransaction(kind, conn, ctx, beforeCommit);
            if (stamp !== undefined) opts.stamps!.settled(stamp, Date.now());
            committed[periodOf(performance.now())]![kind]++;
            if (out.writes.length > 0) writeLog.push([...out.writes]);
            break;
          } catch (e) {
            if (stamp !== undefined) opts.stamps!.settled(stamp, undefined);
            const code = (e as { code?: string }).code;
            if (code !== undefined && RETRYABLE.has(code) && attempt < attempts) {
              retried[periodOf(performance.now())]!++;
              continue;
            }
            failed[periodOf(performance.now())]!++;
            const statement = (e as { statement?: string }).statement;
            noteError(`${kind}: ${code ?? ''} ${(e as Error).message}${statement === undefined ? '' : ` [${statement.slice(0, 120)}]`}`);
            break;
          }
        }
      }
    } finally {
      await conn.end().catch(() => undefined);
    }
  };

  const queryStream = async (): Promise<void> => {
    let round = 0;
    while (performance.now() < end) {
      round++;
      for (const q of opts.queries) {
        const start = performance.now();
        if (start >= end) return;
        try {
          const res = await runTextQuery(opts.url, opts.explainAnalyze === true ? `EXPLAIN ANALYZE ${q.sql!}` : q.sql!, opts.queryTimeoutMs);
          const ms = performance.now() - start;
          samples.push({ query: q.number, period: periodOf(start), at: Math.round(start - t0), ms,
            ...(opts.explainAnalyze === true ? { plan: res.rows.map((r) => r[0]).join('\n') } : {}) });
        } catch (e) {
          const timedOut = e instanceof QueryTimeoutError;
          samples.push({ query: q.number, period: periodOf(start), at: Math.round(start - t0), ms: performance.now() - start, error: (e as Error).message, timedOut });
          noteError(`${q.name}: ${(e as Error).message}`);
        }
      }
      log(`  query round ${round} done at ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
  };

  const periodEnds = async (): Promise<void> => {
    for (let p = 0; p < opts.periods; p++) {
      await sleep(Math.max(0, t0 + (p + 1) * opts.periodMs - performance.now()));
      const f = await readTableFiles(opts.url).catch((e: unknown) => {
        noteError(`files: ${(e as Error).message}`);
        return [] as TableFiles[];
      });
      files.push(f);
      const work = await readOptimizerWork(opts.url, new Date(wall0 + p * opts.periodMs), new Date(wall0 + (p + 1) * opts.periodMs)).catch((e: unknown) => {
        noteError(`optimizer work: ${(e as Error).message}`);
        return [] as OptimizerWork[];
      });
      optimizer.push(work);
      const usage = opts.gatewayUsage?.();
      gateway.push(usage === undefined || usageBefore === undefined ? undefined
        : { cpuMs: usage.cpuMs - usageBefore.cpuMs, mainThreadCpuMs: usage.mainThreadCpuMs - usageBefore.mainThreadCpuMs, rssBytes: usage.rssBytes });
      usageBefore = usage;
      const c = committed[p]!;
      log(`  period ${p + 1}/${opts.periods}: ${TPCC_TX_KINDS.map((k) => `${k} ${c[k]}`).join(', ')}; retried ${retried[p]}, failed ${failed[p]}, missed ${missed[p]}; ` +
        `files ${f.reduce((s, t) => s + t.baseFiles + t.changeFiles, 0)}; optimizer busy ${(work.reduce((s, w) => s + w.busyMs, 0) / 1000).toFixed(0)} s`);
    }
  };

  // No queries (bench:mv runs its own readers): the stream is the transactions alone.
  await Promise.all([...Array.from({ length: opts.clients }, (_, i) => client(i)), ...(opts.queries.length > 0 ? [queryStream()] : []), periodEnds()]);
  return {
    startedAt,
    samples,
    periods: Array.from({ length: opts.periods }, (_, p) => ({ period: p, committed: committed[p]!, retried: retried[p]!, failed: failed[p]!, missed: missed[p]!, files: files[p] ?? [], optimizer: optimizer[p] ?? [],
      ...(gateway[p] === undefined ? {} : { gateway: gateway[p] }) })),
    writeLog,
    errors,
  };
}
