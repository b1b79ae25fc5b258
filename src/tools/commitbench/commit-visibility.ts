import { createTableSql, loadedRow } from './bench-rows.js';
import { emptyOutcome } from './commit-figure.js';
import type { MeasureOutcome } from './commit-figure.js';
import { percentile, since } from './latency-stats.js';
import { connect } from './sql-target.js';
import type { SqlTarget } from './sql-target.js';

const TABLE = 'commit_visible';
/** A commit not visible to the other session after this long is a bug, not a slow sample. */
const GIVE_UP_MS = 30_000;

interface VisibilityRun {
  readonly latencies: number[];
  /** Reads that did not see the key yet, over all rounds. */
  readonly misses: number;
}

/**
 * Client A inserts key k (autocommit); the moment A's acknowledgement arrives, client B
 * (another connection, a prepared point SELECT) reads k until it sees it. A sample is the
 * time from A's ack to B's first read that saw the row.
 */
async function runVisibility(target: SqlTarget, rounds: number): Promise<VisibilityRun> {
  const a = await connect(target);
  const b = await connect(target);
  try {
    await a.query(createTableSql(TABLE));
    const latencies: number[] = [];
    let misses = 0;
    for (let id = 1; id <= rounds; id++) {
      const r = loadedRow(id);
      await a.query({ name: 'commit_visible_insert', text: `INSERT INTO ${TABLE} (id, v, s) VALUES ($1, $2, $3)`, values: [r.id, r.v, r.s] });
      const acked = performance.now();
      for (;;) {
        const got = await b.query<{ v: string }>({ name: 'commit_visible_read', text: `SELECT v FROM ${TABLE} WHERE id = $1`, values: [id] });
        if (got.rows.length === 1 && Number(got.rows[0]!.v) === r.v) break;
        misses++;
        if (since(acked) > GIVE_UP_MS) throw new Error(`${target.engine}: key ${id}, acknowledged, was still not visible to another session after ${GIVE_UP_MS} ms`);
      }
      latencies.push(since(acked));
    }
    return { latencies, misses };
  } finally {
    await a.end();
    await b.end();
  }
}

/** Measure 3: commit acknowledged → visible to another session; p50/p99 over `rounds`. */
export async function measureCommitVisibility(floe: SqlTarget, postgres: SqlTarget | undefined, rounds: number): Promise<MeasureOutcome> {
  const out = emptyOutcome();
  const ours = await runVisibility(floe, rounds);
  const peer = postgres === undefined ? undefined : await runVisibility(postgres, rounds);
  for (const [engine, run] of [['floe', ours], ['postgres', peer]] as const) {
    if (run === undefined) continue;
    out.samples.push({ measure: 'visibility', engine, name: 'ack to visible', values: run.latencies });
    out.notes.push(`visibility: ${engine} ${rounds} rounds, ${run.misses} reads that did not see the row yet`);
  }
  const p = (r: VisibilityRun | undefined, q: number) => r && percentile(r.latencies, q);
  out.figures.push({ measure: 'visibility', what: 'ack → visible to another session, p50', unit: 'ms', floe: p(ours, 0.5), postgres: p(peer, 0.5), lowerIsBetter: true });
  out.figures.push({ measure: 'visibility', what: 'ack → visible to another session, p99', unit: 'ms', floe: p(ours, 0.99), postgres: p(peer, 0.99), lowerIsBetter: true, target: { op: '<=', value: 20 } });
  return out;
}
