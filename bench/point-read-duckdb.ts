/**
 * DuckDB's figure for the prepared point read of bench/point-read-client.ts: the same
 * five-column table with a PRIMARY KEY, FLOE_BENCH_KEYS rows (default 1M), one thread,
 * a prepared `SELECT * FROM t WHERE id = $1` per random key, p50/p99.
 */
import { DuckDBInstance } from '@duckdb/node-api';

const keys = Number(process.env['FLOE_BENCH_KEYS'] ?? 1_000_000);
const reads = Number(process.argv[2] ?? 1000);
const conn = await (await DuckDBInstance.create(':memory:')).connect();
await conn.run('SET threads = 1');
await conn.run('CREATE TABLE t (id BIGINT PRIMARY KEY, name VARCHAR, qty INTEGER, price DOUBLE, ts TIMESTAMPTZ)');
await conn.run(`INSERT INTO t SELECT i, 'customer-' || i || '-v0', (i * 7) % 1000, (i % 100000) / 100.0, TIMESTAMPTZ '2023-11-14 22:13:20+00' + to_microseconds(i * 1000) FROM range(${keys}) r(i)`);
const stmt = await conn.prepare('SELECT * FROM t WHERE id = $1');
let s = 7;
const rand = () => { s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0; return s / 4294967296; };
const ms: number[] = [];
for (let i = 0; i < reads + 20; i++) {
  stmt.bindBigInt(1, BigInt(Math.floor(rand() * keys)));
  const t0 = performance.now();
  const rows = (await stmt.runAndReadAll()).getRows();
  if (i >= 20) ms.push(performance.now() - t0);
  if (rows.length !== 1) throw new Error('expected one row');
}
ms.sort((a, b) => a - b);
const p = (x: number) => ms[Math.min(ms.length - 1, Math.floor(x * ms.length))]!.toFixed(3);
console.log(`DuckDB prepared point read, ${keys} rows, ${reads} reads: p50 ${p(0.5)} ms, p99 ${p(0.99)} ms`);
