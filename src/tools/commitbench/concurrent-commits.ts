import { createTableSql, loadedRow } from './bench-rows.js';
import { emptyOutcome } from './commit-figure.js';
import type { MeasureOutcome } from './commit-figure.js';
import { mainThreadCpuSeconds } from './process-cpu.js';
import { connect } from './sql-target.js';
import type { SqlTarget } from './sql-target.js';

const TABLE = 'commit_concurrent';
/** Client c inserts keys c·KEY_SPAN + 1, + 2, …: distinct keys per client. */
const KEY_SPAN = 1_000_000_000;

export interface ConcurrentRun {
  readonly commits: number;
  readonly failed: number;
  readonly seconds: number;
  readonly rows: number;
  /** Commits per client, and every acknowledged commit's latency (ms), for --json. */
  readonly perClient: number[];
  readonly latencies: number[];
  readonly firstError?: string;
  /** CPU seconds of the target's main thread over the timed commits (a target with a pid, on Linux). */
  readonly mainThreadCpuSeconds?: number;
}

/**
 * `clients` connections insert single rows of distinct keys into `table` for `seconds`;
 * connection i goes to targets[i mod n] (several gateways of one warehouse share the load).
 */
export async function runConcurrent(targets: readonly SqlTarget[], clients: number, seconds: number, table = TABLE): Promise<ConcurrentRun> {
  const admin = await connect(targets[0]!);
  const conns = await Promise.all(Array.from({ length: clients }, (_, i) => connect(targets[i % targets.length]!)));
  try {
    await admin.query(createTableSql(table));
    const perClient = new Array<number>(clients).fill(0);
    let failed = 0;
    let firstError: string | undefined;
    const latencies: number[] = [];
    const pid = targets.length === 1 ? targets[0]!.pid : undefined;
    const cpuBefore = pid === undefined ? undefined : mainThreadCpuSeconds(pid);
    const t0 = performance.now();
    const deadline = t0 + seconds * 1000;
    await Promise.all(conns.map(async (c, i) => {
      let n = 0;
      while (performance.now() < deadline) {
        const r = loadedRow(i * KEY_SPAN + ++n);
        try {
          const started = performance.now();
          await c.query({ name: `${table}_insert`, text: `INSERT INTO ${table} (id, v, s) VALUES ($1, $2, $3)`, values: [r.id, r.v, r.s] });
          latencies.push(performance.now() - started);
          perClient[i]!++;
        } catch (e) {
          // A commit refused (serialization failure, say) is counted, not retried: its key is simply skipped.
          failed++;
          firstError ??= (e as Error).message;
        }
      }
    }));
    const elapsed = (performance.now() - t0) / 1000;
    const cpuAfter = pid === undefined ? undefined : mainThreadCpuSeconds(pid);
    const cpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
    const rows = Number((await admin.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
    return { commits: perClient.reduce((a, b) => a + b, 0), failed, seconds: elapsed, rows, perClient, latencies, firstError, ...(cpu === undefined ? {} : { mainThreadCpuSeconds: cpu }) };
  } finally {
    await Promise.all(conns.map((c) => c.end()));
    await admin.end();
  }
}

/** Measure 2: single-row commits from `clients` connections at once for `seconds`; commits/s. */
export async function measureConcurrentCommits(floe: SqlTarget, postgres: SqlTarget | undefined, clients: number, seconds: number): Promise<MeasureOutcome> {
  const out = emptyOutcome();
  const ours = await runConcurrent([floe], clients, seconds);
  const peer = postgres === undefined ? undefined : await runConcurrent([postgres], clients, seconds);
  for (const [engine, run] of [['floe', ours], ['postgres', peer]] as const) {
    if (run === undefined) continue;
    out.samples.push({ measure: 'concurrent', engine, name: 'commits per client (count)', values: run.perClient });
    out.samples.push({ measure: 'concurrent', engine, name: 'commit latency', values: run.latencies });
    out.notes.push(`concurrent: ${engine} ${run.commits} commits in ${run.seconds.toFixed(1)} s over ${clients} clients, ${run.failed} refused${run.firstError === undefined ? '' : ` (first: ${run.firstError})`}`);
    if (run.rows !== run.commits) out.mismatches.push(`concurrent: ${engine} acknowledged ${run.commits} commits but holds ${run.rows} rows`);
  }
  const rate = (r: ConcurrentRun | undefined) => r && r.commits / r.seconds;
  out.figures.push({ measure: 'concurrent', what: `single-row commits, ${clients} clients, ${seconds} s`, unit: 'commits/s', floe: rate(ours), postgres: rate(peer), lowerIsBetter: false, target: { op: '>=', value: 10_000 } });
  if (ours.mainThreadCpuSeconds !== undefined && ours.commits > 0) {
    // Steadier than commits/s on a shared machine; the target's 10,000 a second on one event loop needs about 100 µs.
    out.figures.push({ measure: 'concurrent', what: '  gateway main-thread CPU a commit', unit: 'µs', floe: (ours.mainThreadCpuSeconds * 1e6) / ours.commits, lowerIsBetter: true });
  }
  if (ours.failed > 0 || (peer?.failed ?? 0) > 0) {
    out.figures.push({ measure: 'concurrent', what: '  commits refused', unit: 'commits', floe: ours.failed, postgres: peer?.failed, lowerIsBetter: true });
  }
  return out;
}
