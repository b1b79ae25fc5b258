import { insertSql, seededRandom, upsertedRow } from './bench-rows.js';
import { emptyOutcome } from './commit-figure.js';
import type { MeasureOutcome } from './commit-figure.js';
import { KEYED_TABLE } from './keyed-table.js';
import type { KeyedTable } from './keyed-table.js';
import { percentile, since } from './latency-stats.js';
import { connect } from './sql-target.js';
import type { SqlTarget } from './sql-target.js';

/** The 1% of keys the small commits replace. */
export const isPointUpsertKey = (id: number) => id % 100 === 1;
/** Untimed reads first, so no engine's first-use costs count. */
const WARM_UP = 10;

/** Upserts 1% of the keys (id ≡ 1 mod 100) in commits of `batch` rows on every engine, leaving them pending on Floe. */
export async function upsertOnePercent(table: KeyedTable, batch: number, log: (l: string) => void): Promise<void> {
  const statements: string[] = [];
  let rows = [];
  for (let id = 1; id < table.rows; id += 100) {
    rows.push(upsertedRow(id));
    if (rows.length === batch) { statements.push(insertSql(KEYED_TABLE, rows, true)); rows = []; }
  }
  if (rows.length > 0) statements.push(insertSql(KEYED_TABLE, rows, true));
  const t0 = performance.now();
  await table.applyEverywhere(statements);
  table.markUpserted(isPointUpsertKey);
  log(`  upserted 1% of keys in ${statements.length} commits of up to ${batch} rows on every engine (${(since(t0) / 1000).toFixed(1)} s)`);
}

type Row = readonly (string | null)[];

async function wireReads(target: SqlTarget, keys: readonly number[]): Promise<{ latencies: number[]; answers: Row[] }> {
  const c = await connect(target);
  try {
    const read = async (id: number) => (await c.query<unknown[]>({ name: 'point_read', text: `SELECT id, v, s FROM ${KEYED_TABLE} WHERE id = $1`, values: [id], rowMode: 'array' })).rows;
    for (let i = 0; i < WARM_UP; i++) await read(keys[i % keys.length]!);
    const latencies: number[] = [];
    const answers: Row[] = [];
    for (const id of keys) {
      const t0 = performance.now();
      const rows = await read(id);
      latencies.push(since(t0));
      answers.push((rows[0] ?? []).map((v) => (v === null ? null : String(v))));
    }
    return { latencies, answers };
  } finally {
    await c.end();
  }
}

/**
 * Measure 4: prepared `SELECT … WHERE id = $1` with random keys on a table with pending
 * changes; p50/p99. `settle` waits for the gateway's work after the upserts (tiering, the
 * Iceberg export) and says what it waited, for the notes.
 */
export async function measurePointReads(table: KeyedTable, reads: number, settle?: () => Promise<string>): Promise<MeasureOutcome> {
  const out = emptyOutcome();
  const rand = seededRandom(4);
  // Half the keys among the upserted 1%, so reads that must find the pending version are sampled, not only base rows.
  const keys = Array.from({ length: reads }, (_, i) => {
    const id = Math.floor(rand() * table.rows);
    const upserted = id - (id % 100) + 1;
    return i % 2 === 0 && upserted < table.rows ? upserted : id;
  });
  if (settle !== undefined) out.notes.push(`point-read: before the reads, the gateway ${await settle()}`);
  const files = await table.floeFiles();
  out.notes.push(`point-read: Floe's table before the reads: ${await table.describeFloeFiles()}`);
  if (files.changeFiles === 0) out.notes.push('point-read: Floe shows no change files, so nothing was pending');
  const results = new Map<'floe' | 'postgres' | 'duckdb', number[]>();
  const check = (engine: string, answers: readonly Row[]) => {
    let wrong = 0;
    answers.forEach((a, i) => {
      const e = table.expected(keys[i]!);
      if (a.length !== 3 || Number(a[0]) !== e.id || Number(a[1]) !== e.v || a[2] !== e.s) {
        if (wrong++ === 0) out.mismatches.push(`point-read: ${engine} read ${JSON.stringify(a)} for key ${keys[i]}, expected ${JSON.stringify(e)}`);
      }
    });
  };
  for (const t of table.targets()) {
    const r = await wireReads(t, keys);
    results.set(t.engine, r.latencies);
    check(t.engine, r.answers);
  }
  if (table.duck !== undefined) {
    for (let i = 0; i < WARM_UP; i++) await table.duck.pointRead(keys[i % keys.length]!);
    const latencies: number[] = [];
    const answers: Row[] = [];
    for (const id of keys) {
      const t0 = performance.now();
      const rows = await table.duck.pointRead(id);
      latencies.push(since(t0));
      answers.push(rows[0] ?? []);
    }
    results.set('duckdb', latencies);
    check('duckdb', answers);
  }
  for (const [engine, values] of results) out.samples.push({ measure: 'point-read', engine, name: 'point read', values });
  const p = (engine: 'floe' | 'postgres' | 'duckdb', q: number) => {
    const v = results.get(engine);
    return v && percentile(v, q);
  };
  const what = `point read by key, ${table.rows.toLocaleString('en-US')} rows, pending (${files.changeFiles} change files)`;
  out.figures.push({ measure: 'point-read', what: `${what}, p50`, unit: 'ms', floe: p('floe', 0.5), postgres: p('postgres', 0.5), duckdb: p('duckdb', 0.5), lowerIsBetter: true, target: { op: '<=', value: 0.5 } });
  out.figures.push({ measure: 'point-read', what: `${what}, p99`, unit: 'ms', floe: p('floe', 0.99), postgres: p('postgres', 0.99), duckdb: p('duckdb', 0.99), lowerIsBetter: true, target: { op: '<=', value: 2 } });
  return out;
}
