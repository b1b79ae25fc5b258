import { loadedRow, createTableSql } from './bench-rows.js';
import { emptyOutcome } from './commit-figure.js';
import type { MeasureOutcome } from './commit-figure.js';
import { percentile, since } from './latency-stats.js';
import { connect, describeFiles, floeTableFiles } from './sql-target.js';
import type { FloeTableFiles, SqlTarget } from './sql-target.js';

const TABLE = 'commit_single';

/** Window ends: 10, 100, 1,000, 10,000 commits of history, up to `commits` (which always ends the last). */
export function historyWindows(commits: number): number[] {
  const ends = [10, 100, 1_000, 10_000, 100_000].filter((n) => n < commits);
  return [...ends, commits];
}

interface WindowFigures {
  readonly from: number;
  readonly to: number;
  readonly latencies: number[];
  readonly files?: FloeTableFiles;
}

/** One client's autocommit INSERTs of one row each (prepared), timed one by one, in windows of history. */
async function runCommits(target: SqlTarget, commits: number): Promise<{ windows: WindowFigures[]; rows: number }> {
  const client = await connect(target);
  try {
    await client.query(createTableSql(TABLE));
    const windows: WindowFigures[] = [];
    let from = 1;
    for (const to of historyWindows(commits)) {
      const latencies: number[] = [];
      for (let id = from; id <= to; id++) {
        const r = loadedRow(id);
        const t0 = performance.now();
        await client.query({ name: 'commit_single_insert', text: `INSERT INTO ${TABLE} (id, v, s) VALUES ($1, $2, $3)`, values: [r.id, r.v, r.s] });
        latencies.push(since(t0));
      }
      windows.push({ from, to, latencies, files: target.engine === 'floe' ? await floeTableFiles(client, TABLE) : undefined });
      from = to + 1;
    }
    const rows = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${TABLE}`)).rows[0]!.n);
    return { windows, rows };
  } finally {
    await client.end();
  }
}

/** Measure 1: single-row autocommit INSERT, one client; p50/p99 per window of history. */
export async function measureSingleRowCommits(floe: SqlTarget, postgres: SqlTarget | undefined, commits: number): Promise<MeasureOutcome> {
  const out = emptyOutcome();
  const ours = await runCommits(floe, commits);
  const peer = postgres === undefined ? undefined : await runCommits(postgres, commits);
  for (const [engine, run] of [['floe', ours], ['postgres', peer]] as const) {
    if (run === undefined) continue;
    if (run.rows !== commits) out.mismatches.push(`insert: ${engine} holds ${run.rows} rows after ${commits} single-row commits`);
    for (const w of run.windows) out.samples.push({ measure: 'insert', engine, name: `commits ${w.from}-${w.to}`, values: w.latencies });
  }
  ours.windows.forEach((w, i) => {
    const p = peer?.windows[i];
    const files = w.files === undefined ? '' : ` (then ${describeFiles(w.files)})`;
    out.notes.push(`insert: commits ${w.from}–${w.to}${files}`);
    const what = `INSERT, commits ${w.from.toLocaleString('en-US')}–${w.to.toLocaleString('en-US')}`;
    out.figures.push({ measure: 'insert', what: `${what}, p50`, unit: 'ms', floe: percentile(w.latencies, 0.5), postgres: p && percentile(p.latencies, 0.5), lowerIsBetter: true, target: { op: '<=', value: 1 } });
    out.figures.push({ measure: 'insert', what: `${what}, p99`, unit: 'ms', floe: percentile(w.latencies, 0.99), postgres: p && percentile(p.latencies, 0.99), lowerIsBetter: true, target: { op: '<=', value: 5 } });
    if (w.files !== undefined) {
      out.figures.push({ measure: 'insert', what: `  files after ${w.to.toLocaleString('en-US')} commits (base + change)`, unit: 'files', floe: w.files.baseFiles + w.files.changeFiles, lowerIsBetter: true });
      out.figures.push({ measure: 'insert', what: `  snapshots after ${w.to.toLocaleString('en-US')} commits`, unit: 'snapshots', floe: w.files.snapshots, lowerIsBetter: true });
    }
  });
  return out;
}
