/**
 * A point lookup on a non-key column, without and with a plain index (CREATE INDEX: per-file
 * value filters, src/lake/stats/value-bloom.ts). An append table of `files` × `rows` rows,
 * one INSERT (so one data file) each, whose `email` values are scattered so that every
 * file's min/max spans them all; then `SELECT … WHERE email = $1` for values that exist.
 * Through the real gateway with node-postgres:
 * `node --import tsx bench/index-lookup.bench.ts [files] [rows per file] [lookups]`.
 */
import pg from 'pg';
import { startFloe } from '../test/harness/floe-server.js';

const files = Number(process.argv[2] ?? 40);
const rowsPerFile = Number(process.argv[3] ?? 25_000);
const lookups = Number(process.argv[4] ?? 50);
const total = files * rowsPerFile;
const MODULUS = 1_000_003;

const floe = await startFloe();
const c = new pg.Client({ connectionString: floe.url });
await c.connect();
try {
  await c.query('CREATE TABLE people (id int8, email text, score int)');
  let t0 = performance.now();
  for (let f = 0; f < files; f++) {
    const from = f * rowsPerFile;
    await c.query(`INSERT INTO people SELECT g, 'user' || ((g * 7919) % ${MODULUS}), (g % 100)::int
                   FROM generate_series(${from}::int8, ${from + rowsPerFile - 1}::int8) AS g`);
  }
  console.log(`loaded ${total} rows in ${files} files: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const probe = async (label: string): Promise<void> => {
    const times: number[] = [];
    for (let i = 0; i < lookups; i++) {
      const g = Math.floor((i * 104_729) % total);
      const email = `user${(g * 7919) % MODULUS}`;
      const t = performance.now();
      const r = await c.query({ name: 'lookup', text: 'SELECT id, score FROM people WHERE email = $1', values: [email] });
      times.push(performance.now() - t);
      if (r.rowCount === 0) throw new Error(`${email} not found`);
    }
    times.sort((a, b) => a - b);
    const plan = await c.query(`EXPLAIN ANALYZE SELECT id FROM people WHERE email = 'user${(7 * 7919) % MODULUS}'`);
    const files = plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).filter((l: string) => /Files:|Index Prune/.test(l)).map((l: string) => l.trim());
    console.log(`${label}: p50 ${times[Math.floor(lookups / 2)]!.toFixed(1)} ms, p90 ${times[Math.floor(lookups * 0.9)]!.toFixed(1)} ms; ${files.join('; ')}`);
  };
  await probe('no index');
  t0 = performance.now();
  await c.query('CREATE INDEX people_email_idx ON people (email)');
  console.log(`CREATE INDEX over ${files} files: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await probe('with index');
} finally {
  await c.end();
  await floe.stop();
}
