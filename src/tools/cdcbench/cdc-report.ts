import { chQueries } from '../chbench/ch-queries.js';
import { TPCC_TX_KINDS } from '../chbench/tpcc-transactions.js';
import { markdownTable } from '../markdown-table.js';
import { percentile } from '../commitbench/latency-stats.js';
import type { CdcBenchReport } from './cdc-benchmark.js';

/** The target the issue sets for the initial copy, rows per second on 2 cores. */
export const COPY_TARGET_ROWS_PER_S = 50_000;
/** The freshness target: p99 source commit → visible in Floe (its Floe snapshot committed), while the source keeps its rate. */
export const FRESHNESS_P99_TARGET_MS = 1_000;


const ms = (v: number) => (Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v.toFixed(1)) : '—');
const geomean = (xs: readonly number[]) => (xs.length === 0 ? Number.NaN : Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length));

export interface Quantiles {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

function quantilesOf(xs: readonly number[]): Quantiles {
  return { n: xs.length, p50: percentile(xs, 0.5), p99: percentile(xs, 0.99), max: xs.length === 0 ? Number.NaN : xs.reduce((m, x) => Math.max(m, x), -Infinity) };
}

export interface CdcPeriodSummary {
  readonly tpm: number;
  readonly missed: number;
  readonly rowChangesPerS: number;
  /** Source commit → committed in a Floe snapshot (the target's measure). */
  readonly committed: Quantiles;
  /** Source acknowledgement → first seen by the poller: adds the poll's own query time. */
  readonly seen: Quantiles;
  readonly lagBytesMax: number;
  readonly queryGeomeanMs: number;
}

/** Per period: the source's rate, freshness of its commits in Floe, the slot's lag, and the queries on Floe. */
export function summarizeCdcPeriods(r: CdcBenchReport): CdcPeriodSummary[] {
  const { periods, periodMs } = r.options;
  const okSamples = r.stream.samples.filter((s) => s.error === undefined);
  // geomean over the queries that finished in every period, as bench:stream reports it
  const everyPeriod = chQueries(r.options.queries).map((q) => q.number)
    .filter((q) => Array.from({ length: periods }, (_, p) => p).every((p) => okSamples.some((s) => s.query === q && s.period === p)));
  return Array.from({ length: periods }, (_, p) => {
    const stats = r.stream.periods[p]!;
    const committed = TPCC_TX_KINDS.reduce((s, k) => s + stats.committed[k], 0);
    const periodOf = (atMs: number) => Math.min(periods - 1, Math.floor(atMs / periodMs));
    const committedMs = r.committed.filter((c) => periodOf(c.stampedAtMs) === p).map((c) => c.ms);
    const seenMs = r.freshness.filter((f) => periodOf(f.ackAtMs) === p).map((f) => f.ms);
    const inPeriod = r.sourceSamples.filter((s) => s.atMs >= p * periodMs && s.atMs < (p + 1) * periodMs);
    const first = inPeriod[0];
    const last = inPeriod[inPeriod.length - 1];
    const perQuery = everyPeriod.map((q) => {
      const xs = okSamples.filter((s) => s.query === q && s.period === p).map((s) => s.ms);
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    });
    return {
      tpm: committed / (periodMs / 60_000),
      missed: stats.missed,
      rowChangesPerS: first === undefined || last === undefined || last.atMs === first.atMs ? Number.NaN : (last.rowChanges - first.rowChanges) / ((last.atMs - first.atMs) / 1000),
      committed: quantilesOf(committedMs),
      seen: quantilesOf(seenMs),
      lagBytesMax: inPeriod.reduce((m, s) => Math.max(m, s.lagBytes), 0),
      queryGeomeanMs: geomean(perQuery),
    };
  });
}

export function formatCdcReport(r: CdcBenchReport): string {
  const o = r.options;
  const out: string[] = [];
  out.push(`bench:cdc: TPC-C on PostgreSQL 15, Floe subscribed: W=${r.scale.warehouses} (items ${r.scale.items}, customers/district ${r.scale.customersPerDistrict}), ` +
    `${o.txRate} tx/s over ${o.clients} clients, ${o.periods} periods × ${(o.periodMs / 60_000).toFixed(1)} min, freshness polled every ${o.pollMs} ms`);
  out.push(`${r.machine}; ${r.date}; source: ${r.source}`);
  const copyRate = r.copy.rows / r.copy.seconds;
  out.push('', '## initial copy (CREATE SUBSCRIPTION until every table is ready)');
  out.push(markdownTable(['measure', 'Floe', 'target'], [
    ['rows', r.copy.rows.toLocaleString('en-US'), ''],
    ['seconds', r.copy.seconds.toFixed(1), ''],
    ['rows/s', Math.round(copyRate).toLocaleString('en-US'), `≥ ${COPY_TARGET_ROWS_PER_S.toLocaleString('en-US')} ${copyRate >= COPY_TARGET_ROWS_PER_S ? '✓' : '✗'}`],
    ['the source\'s own load (COPY FROM STDIN), s', r.sourceLoadSeconds.toFixed(1), ''],
  ]));
  const periods = summarizeCdcPeriods(r);
  out.push('', '## streaming: source commit → visible in Floe, per period (by the commit\'s period)');
  out.push('freshness: the stamp\'s time on the source to the commit of the Floe snapshot that added it; a reader\'s figure adds its poll\'s own query time');
  out.push(markdownTable(['measure', ...periods.map((_, i) => `P${i + 1}`)], [
    ['source tpm (all kinds)', ...periods.map((p) => p.tpm.toFixed(0))],
    ['source missed starts', ...periods.map((p) => String(p.missed))],
    ['source row changes/s', ...periods.map((p) => (Number.isFinite(p.rowChangesPerS) ? p.rowChangesPerS.toFixed(1) : '—'))],
    ['stamped commits in Floe', ...periods.map((p) => String(p.committed.n))],
    ['freshness p50 (ms)', ...periods.map((p) => ms(p.committed.p50))],
    ['freshness p99 (ms)', ...periods.map((p) => ms(p.committed.p99))],
    ['freshness max (ms)', ...periods.map((p) => ms(p.committed.max))],
    [`seen by a reader polling every ${o.pollMs} ms, p50 (ms)`, ...periods.map((p) => ms(p.seen.p50))],
    ['… p99 (ms)', ...periods.map((p) => ms(p.seen.p99))],
    ['slot lag, max (bytes)', ...periods.map((p) => p.lagBytesMax.toLocaleString('en-US'))],
    ['CH query geomean on Floe (ms)', ...periods.map((p) => ms(p.queryGeomeanMs))],
  ]));
  out.push(`after the stream: Floe showed every acknowledged transaction within ${r.catchUpSeconds.toFixed(1)} s${r.unseen > 0 ? `; ${r.unseen} never appeared ✗` : ''}`);
  const mismatched = r.counts.filter((c) => c.source !== c.floe);
  out.push(mismatched.length === 0
    ? `row counts: all ${r.counts.length} tables equal on the source and in Floe ✓`
    : `row counts differ ✗: ${mismatched.map((c) => `${c.table} source ${c.source} Floe ${c.floe}`).join(', ')}`);

  out.push('', '## CH queries: Floe while the stream runs (mean over the run) against PostgreSQL after it (second run)');
  const floeMeans = r.peer.map((p) => {
    const xs = r.stream.samples.filter((s) => s.query === p.query && s.error === undefined).map((s) => s.ms);
    return xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
  });
  const rows = r.peer.map((p, i) => {
    const floe = floeMeans[i]!;
    return [`Q${p.query}`, ms(floe), p.error === undefined ? ms(p.ms) : `error: ${p.error.slice(0, 40)}`, Number.isFinite(floe) && Number.isFinite(p.ms) ? `${(p.ms / floe).toFixed(2)}×` : '—'];
  });
  const both = r.peer.map((p, i) => [floeMeans[i]!, p.ms] as const).filter(([f, g]) => Number.isFinite(f) && Number.isFinite(g));
  const gF = geomean(both.map(([f]) => f));
  const gP = geomean(both.map(([, g]) => g));
  rows.push(['geomean', ms(gF), ms(gP), `${(gP / gF).toFixed(2)}×`]);
  out.push(markdownTable(['query', 'Floe ms', 'PostgreSQL ms', 'Floe speed vs PostgreSQL'], rows));
  const errors = Object.entries(r.stream.errors);
  if (errors.length > 0) out.push('', 'errors:', ...errors.map(([m, n]) => `  ${n}× ${m}`));

  const worstP99 = Math.max(...periods.map((p) => p.committed.p99));
  const kept = periods.every((p) => p.missed === 0);
  out.push('', '## targets (issue 27)');
  out.push(markdownTable(['target', 'measured', 'verdict'], [
    [`freshness p99 ≤ ${FRESHNESS_P99_TARGET_MS} ms in every period`, `${ms(worstP99)} ms (worst period)`, worstP99 <= FRESHNESS_P99_TARGET_MS ? 'met' : 'MISSED'],
    ['… while the source keeps its rate (no missed starts)', kept ? 'kept' : `missed ${periods.map((p) => p.missed).join('/')}`, kept ? 'met' : 'MISSED'],
    [`initial copy ≥ ${COPY_TARGET_ROWS_PER_S.toLocaleString('en-US')} rows/s`, `${Math.round(copyRate).toLocaleString('en-US')} rows/s`, copyRate >= COPY_TARGET_ROWS_PER_S ? 'met' : 'MISSED'],
    ['exactly once: equal row counts, every commit seen', mismatched.length === 0 && r.unseen === 0 ? 'equal' : 'differ', mismatched.length === 0 && r.unseen === 0 ? 'met' : 'MISSED'],
  ]));
  return out.join('\n');
}
