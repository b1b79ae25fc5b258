import { emptyOutcome } from './commit-figure.js';
import type { MeasureOutcome } from './commit-figure.js';
import { KEYED_TABLE } from './keyed-table.js';
import type { KeyedTable } from './keyed-table.js';
import { median, since } from './latency-stats.js';
import { connect } from './sql-target.js';
import type { SqlTarget } from './sql-target.js';

const SCAN = `SELECT count(*), sum(v) FROM ${KEYED_TABLE}`;
/**
 * Each scan runs this many times; the median counts. The first run also warms caches (and
 * on Floe, pending, finds the merge positions later runs take: merge-position-memo.ts), so
 * the notes list every run.
 */
const RUNS = 5;

/**
 * Raises v by one for 10% of the keys in one statement (id mod 100 ≥ 90), or 9% (≥ 91) when
 * the point-read measure already left 1% pending, so about 10% of rows are pending in all.
 */
export async function updateTenPercent(table: KeyedTable, afterPointReads: boolean, log: (l: string) => void): Promise<void> {
  const from = afterPointReads ? 91 : 90;
  const t0 = performance.now();
  await table.applyEverywhere([`UPDATE ${KEYED_TABLE} SET v = v + 1 WHERE id % 100 >= ${from}`]);
  table.markBumped((id) => id % 100 >= from);
  log(`  updated ${100 - from}% of keys in one statement on every engine (${(since(t0) / 1000).toFixed(1)} s)`);
}

type Scanned = { ms: number[]; answer: string };

async function wireScan(target: SqlTarget): Promise<Scanned> {
  const c = await connect(target);
  try {
    const ms: number[] = [];
    let answer = '';
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const r = await c.query<unknown[]>({ text: SCAN, rowMode: 'array' });
      ms.push(since(t0));
      answer = r.rows.map((row) => row.map(String).join('|')).join(';');
    }
    return { ms, answer };
  } finally {
    await c.end();
  }
}

async function duckScan(table: KeyedTable): Promise<Scanned | undefined> {
  if (table.duck === undefined) return undefined;
  const ms: number[] = [];
  let answer = '';
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const rows = await table.duck.query(SCAN);
    ms.push(since(t0));
    answer = rows.map((row) => row.join('|')).join(';');
  }
  return { ms, answer };
}

/**
 * Measure 5: a scan reading every row (count(*), sum(v)) with ~10% of rows pending, then the
 * same after `CALL optimize`; rows/s, and Floe's pending/optimized speed ratio.
 * `settle` waits, before each of Floe's series, until the gateway's background work after
 * the writes is done (the Iceberg export of 100k pending rows is ~0.4 s of CPU, which on a
 * 2-core box runs beside the scan's two workers, even at nice 19 on its own thread): the
 * figure is the scan's, not the export's. It returns what it waited, for the notes.
 */
export async function measureMergeOnReadScan(
  table: KeyedTable, log: (l: string) => void, settle?: () => Promise<string>,
): Promise<MeasureOutcome> {
  const out = emptyOutcome();
  const expected = table.expectedCountAndSum();
  const want = `${expected.count}|${expected.sum}`;
  const check = (label: string, s: Scanned | undefined) => {
    if (s !== undefined && s.answer !== want) out.mismatches.push(`scan: ${label} answered ${s.answer}, expected ${want}`);
  };
  out.notes.push(`scan: Floe's table with changes pending: ${await table.describeFloeFiles()}`);
  if (settle !== undefined) out.notes.push(`scan: before the pending scans, the gateway ${await settle()}`);
  const pending = await wireScan(table.floe);
  check('floe, pending', pending);
  const pgScan = table.postgres === undefined ? undefined : await wireScan(table.postgres);
  check('postgres', pgScan);
  const duck = await duckScan(table);
  check('duckdb', duck);
  const optimizeSeconds = await table.optimizeFloe();
  out.notes.push(`scan: CALL optimize took ${optimizeSeconds.toFixed(1)} s; then ${await table.describeFloeFiles()}`);
  log(`  optimize ${optimizeSeconds.toFixed(1)} s`);
  if (settle !== undefined) out.notes.push(`scan: before the optimized scans, the gateway ${await settle()}`);
  const optimized = await wireScan(table.floe);
  check('floe, optimized', optimized);
  const rate = (s: Scanned | undefined) => s && table.rows / (median(s.ms) / 1000);
  for (const [engine, name, s] of [['floe', 'pending', pending], ['floe', 'optimized', optimized], ['postgres', 'scan', pgScan], ['duckdb', 'scan', duck]] as const) {
    if (s !== undefined) out.samples.push({ measure: 'scan', engine, name, values: s.ms });
  }
  const runs = (s: Scanned) => s.ms.map((ms) => ms.toFixed(1)).join(', ');
  out.notes.push(`scan: Floe's runs, pending: ${runs(pending)} ms; optimized: ${runs(optimized)} ms`);
  const what = `full scan (count, sum), ${table.rows.toLocaleString('en-US')} rows`;
  out.figures.push({ measure: 'scan', what: `${what}, ~10% pending`, unit: 'rows/s', floe: rate(pending), postgres: rate(pgScan), duckdb: rate(duck), lowerIsBetter: false });
  out.figures.push({ measure: 'scan', what: `${what}, after optimize`, unit: 'rows/s', floe: rate(optimized), postgres: rate(pgScan), duckdb: rate(duck), lowerIsBetter: false });
  out.figures.push({ measure: 'scan', what: '  pending speed / optimized speed', unit: '×', floe: median(optimized.ms) / median(pending.ms), lowerIsBetter: false, target: { op: '>=', value: 0.8 } });
  return out;
}
