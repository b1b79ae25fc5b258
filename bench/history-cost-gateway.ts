/**
 * bench/history-cost.ts through the PostgreSQL wire: against a running gateway
 * (`floe serve`), node-postgres runs N single-row autocommit statements on a keyed
 * table — alternating `INSERT … ON CONFLICT DO UPDATE` (an upsert) and a plain INSERT
 * of a new key — each followed by a prepared point read of that key, and prints the
 * median and p99 of each window ending at 10, 100, 1,000 and 10,000 commits.
 *
 * Env: FLOE_HISTORY_URL (default postgres://floe@127.0.0.1:55472/floe), FLOE_HISTORY_N
 * (default 10000), FLOE_HISTORY_OPTIMIZE_EVERY (default 200: `CALL optimize` keeps the
 * live files few while history grows; 0 leaves it to the self-optimizing service).
 * FLOE_HISTORY_SERVER_PID: the gateway's pid, to print its CPU time per commit and read
 * (user + system from /proc, the steadier figure on a shared machine).
 * Usage: nice -n 19 node --import tsx bench/history-cost-gateway.ts
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';

const URL = process.env['FLOE_HISTORY_URL'] ?? 'postgres://floe@127.0.0.1:55472/floe';
const N = Number(process.env['FLOE_HISTORY_N'] ?? 10_000);
const OPTIMIZE_EVERY = Number(process.env['FLOE_HISTORY_OPTIMIZE_EVERY'] ?? 200);
const MARKS = [...new Set([10, 100, 1_000, 10_000, 100_000, N])].filter((m) => m <= N).sort((a, b) => a - b);

const SERVER_PID = process.env['FLOE_HISTORY_SERVER_PID'];
/** The server's CPU milliseconds so far (/proc/<pid>/stat utime + stime, in clock ticks of 10 ms). */
function serverCpuMs(): number {
  if (SERVER_PID === undefined) return Number.NaN;
  const fields = readFileSync(`/proc/${SERVER_PID}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

const client = new pg.Client({ connectionString: URL });
await client.connect();
try {
  await client.query('DROP TABLE IF EXISTS history_cost');
  await client.query('CREATE TABLE history_cost (id int8 PRIMARY KEY, v text)');
  const commits: number[] = [];
  const reads: number[] = [];
  const cpuAt = new Map<number, number>([[0, serverCpuMs()]]);
  for (let i = 1; i <= N; i++) {
    const t0 = performance.now();
    if (i % 2 === 0) {
      await client.query({ name: 'upsert', text: 'INSERT INTO history_cost VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET v = excluded.v', values: [i, `v${i}`] });
    } else {
      await client.query({ name: 'insert', text: 'INSERT INTO history_cost VALUES ($1, $2)', values: [i, `v${i}`] });
    }
    const t1 = performance.now();
    const r = await client.query({ name: 'point', text: 'SELECT v FROM history_cost WHERE id = $1', values: [i] });
    const t2 = performance.now();
    if (r.rows.length !== 1) throw new Error(`point read of ${i} found ${r.rows.length} rows`);
    commits.push(t1 - t0);
    reads.push(t2 - t1);
    if (MARKS.includes(i)) {
      cpuAt.set(i, serverCpuMs());
      const from = Math.max(i - 200, MARKS.filter((m) => m < i).at(-1) ?? 0);
      const c = commits.slice(from);
      const rd = reads.slice(from);
      console.log(`${String(i).padStart(6)} commits (window ${from + 1}..${i}): ` +
        `commit p50 ${quantile(c, 0.5).toFixed(2)} ms p99 ${quantile(c, 0.99).toFixed(2)} ms; ` +
        `point read p50 ${quantile(rd, 0.5).toFixed(2)} ms p99 ${quantile(rd, 0.99).toFixed(2)} ms; ` +
        `server CPU per commit + read ${((cpuAt.get(i)! - (cpuAt.get(from) ?? Number.NaN)) / (i - from)).toFixed(2)} ms`);
    }
    if (OPTIMIZE_EVERY > 0 && i % OPTIMIZE_EVERY === 0) await client.query("CALL optimize('history_cost')");
    // a window's CPU starts after the optimize that may precede it
    if (MARKS.some((m) => m - 200 === i)) cpuAt.set(i, serverCpuMs());
  }
  await client.query('DROP TABLE history_cost');
} finally {
  await client.end();
}
