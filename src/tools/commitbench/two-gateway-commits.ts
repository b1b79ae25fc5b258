import { emptyOutcome } from './commit-figure.js';
import type { MeasureOutcome } from './commit-figure.js';
import { runConcurrent } from './concurrent-commits.js';
import type { ConcurrentRun } from './concurrent-commits.js';
import { percentile } from './latency-stats.js';
import type { SqlTarget } from './sql-target.js';

/**
 * Issue 28's scale-out figure: single-row commits from `clients` connections through one
 * gateway, then the same number split over two gateways of one warehouse (each its own
 * process and log store, one catalog), each run on a table of its own; PostgreSQL with
 * all of them beside. Every acknowledged commit must be there: rows equal to commits.
 */
export async function measureTwoGateways(
  first: SqlTarget, second: SqlTarget, postgres: SqlTarget | undefined, clients: number, seconds: number,
): Promise<MeasureOutcome> {
  const out = emptyOutcome();
  const one = await runConcurrent([first], clients, seconds, 'commit_one_gateway');
  const two = await runConcurrent([first, second], clients, seconds, 'commit_two_gateways');
  const peer = postgres === undefined ? undefined : await runConcurrent([postgres], clients, seconds, 'commit_two_gateways');
  const runs = [['one gateway', one], ['two gateways', two], ['postgres', peer]] as const;
  for (const [name, run] of runs) {
    if (run === undefined) continue;
    out.notes.push(`gateways: ${name}: ${run.commits} commits in ${run.seconds.toFixed(1)} s over ${clients} clients, ${run.failed} refused${run.firstError === undefined ? '' : ` (first: ${run.firstError})`}`);
    if (run.rows !== run.commits) out.mismatches.push(`gateways: ${name} acknowledged ${run.commits} commits but holds ${run.rows} rows`);
  }
  out.samples.push({ measure: 'gateways', engine: 'floe', name: 'commit latency, one gateway', values: one.latencies });
  out.samples.push({ measure: 'gateways', engine: 'floe', name: 'commit latency, two gateways', values: two.latencies });
  if (peer !== undefined) out.samples.push({ measure: 'gateways', engine: 'postgres', name: 'commit latency', values: peer.latencies });
  const rate = (r: ConcurrentRun | undefined) => r && r.commits / r.seconds;
  const p99 = (r: ConcurrentRun | undefined) => r && percentile(r.latencies, 0.99);
  const half = Math.ceil(clients / 2);
  out.figures.push(
    { measure: 'gateways', what: `single-row commits, one gateway, ${clients} clients`, unit: 'commits/s', floe: rate(one), postgres: rate(peer), lowerIsBetter: false },
    { measure: 'gateways', what: `single-row commits, two gateways, ${half} client${half === 1 ? '' : 's'} each`, unit: 'commits/s', floe: rate(two), postgres: rate(peer), lowerIsBetter: false },
    { measure: 'gateways', what: '  p99 commit latency, one gateway', unit: 'ms', floe: p99(one), postgres: p99(peer), lowerIsBetter: true },
    { measure: 'gateways', what: '  p99 commit latency, two gateways', unit: 'ms', floe: p99(two), postgres: p99(peer), lowerIsBetter: true },
  );
  if (one.failed + two.failed > 0) {
    out.figures.push({ measure: 'gateways', what: '  commits refused (one, two gateways)', unit: 'commits', floe: one.failed + two.failed, postgres: peer?.failed, lowerIsBetter: true });
  }
  return out;
}
