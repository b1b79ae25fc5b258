/**
 * Prepared point reads through the wire: node-postgres sends a named prepared
 * `SELECT * FROM t WHERE id = $1` (Parse once, then Bind/Execute per key) to a gateway
 * on a warehouse built by bench/point-read-setup.ts, and prints p50/p99.
 * Usage: node --import tsx bench/point-read-client.ts <port> [reads] [keys]
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';

const port = Number(process.argv[2] ?? 55474);
const reads = Number(process.argv[3] ?? 500);
const keys = Number(process.argv[4] ?? 1_000_000);

// The gateway may still be starting: retry the connection for up to a minute.
let client = new pg.Client({ host: '127.0.0.1', port, user: 'floe', database: 'floe' });
for (let tries = 0; ; tries++) {
  try { await client.connect(); break; } catch (e) {
    if (tries >= 120) throw e;
    await new Promise((r) => setTimeout(r, 500));
    client = new pg.Client({ host: '127.0.0.1', port, user: 'floe', database: 'floe' });
  }
}
let s = 7;
const rand = () => { s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0; return s / 4294967296; };
const q = (id: number) => client.query({ name: 'point', text: 'SELECT * FROM t WHERE id = $1', values: [id] });
for (let i = 0; i < 20; i++) await q(Math.floor(rand() * keys)); // warm-up
// The gateway's CPU time (every thread), from /proc, when FLOE_GATEWAY_PID names it: on a shared machine wall time mostly measures the neighbours.
const gatewayPid = process.env['FLOE_GATEWAY_PID'];
const cpuMs = (): number => {
  if (!gatewayPid) return NaN;
  const f = readFileSync(`/proc/${gatewayPid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in 10 ms ticks
};
const cpu0 = cpuMs();
const ms: number[] = [];
for (let i = 0; i < reads; i++) {
  const id = Math.floor(rand() * keys);
  const t0 = performance.now();
  const r = await q(id);
  ms.push(performance.now() - t0);
  if (r.rows.length !== 1) throw new Error(`id ${id}: ${r.rows.length} rows`);
}
ms.sort((a, b) => a - b);
const p = (x: number) => ms[Math.min(ms.length - 1, Math.floor(x * ms.length))]!.toFixed(3);
const cpu = (cpuMs() - cpu0) / reads;
console.log(`prepared point read, ${reads} reads: p50 ${p(0.5)} ms, p99 ${p(0.99)} ms, max ${ms.at(-1)!.toFixed(3)} ms${Number.isNaN(cpu) ? '' : `, gateway CPU ${cpu.toFixed(2)} ms/read`}`);
await client.end();
