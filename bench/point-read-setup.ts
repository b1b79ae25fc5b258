/**
 * Builds a warehouse for the prepared point-read benchmark (bench/point-read.bench.ts):
 * a keyed table `public.t` of FLOE_BENCH_KEYS rows (default 1M), loaded and optimized
 * into hash-ordered base files, then 1% of its keys upserted in small commits
 * (FLOE_BENCH_SMALL_COMMIT rows each, default 100) so change files are pending.
 * Usage: node --import tsx bench/point-read-setup.ts <warehouse dir>
 */
import { openWarehouse } from '../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../src/lake/index.js';

const KEYS = Number(process.env['FLOE_BENCH_KEYS'] ?? 1_000_000);
const SMALL_COMMIT = Number(process.env['FLOE_BENCH_SMALL_COMMIT'] ?? 100);
const LOAD_BATCH = 500_000;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    s = (s ^ (s >>> 12)) >>> 0;
    return s / 4294967296;
  };
}

async function upsert(wh: Warehouse, t: TableMetadata, ids: bigint[], version: number, rand: () => number): Promise<void> {
  const tx = await wh.begin();
  await tx.upsert(t, 'main', [
    ids,
    ids.map((id) => `customer-${id}-v${version}`),
    ids.map(() => Math.floor(rand() * 1000)),
    ids.map(() => Math.round(rand() * 1e6) / 100),
    ids.map((id) => 1_700_000_000_000_000n + id * 1000n + BigInt(version)),
  ]);
  await tx.commit();
}

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: point-read-setup.ts <warehouse dir>');
  const wh = await openWarehouse({ path: dir });
  const t = await wh.createTable({
    namespace: 'public', name: 't', primaryKey: ['id'],
    columns: [
      { name: 'id', type: { kind: 'int8' }, nullable: false },
      { name: 'name', type: { kind: 'text' }, nullable: true },
      { name: 'qty', type: { kind: 'int4' }, nullable: true },
      { name: 'price', type: { kind: 'float8' }, nullable: true },
      { name: 'ts', type: { kind: 'timestamptz' }, nullable: true },
    ],
  });
  const rand = rng(42);
  const t0 = performance.now();
  for (let start = 0; start < KEYS; start += LOAD_BATCH) {
    const ids = Array.from({ length: Math.min(LOAD_BATCH, KEYS - start) }, (_, i) => BigInt(start + i));
    await upsert(wh, t, ids, 0, rand);
  }
  console.error(`loaded ${KEYS} in ${(performance.now() - t0).toFixed(0)} ms`);
  const t1 = performance.now();
  await wh.optimize(t);
  console.error(`optimized in ${(performance.now() - t1).toFixed(0)} ms`);
  const pending = Math.floor(KEYS / 100);
  const t2 = performance.now();
  for (let done = 0, v = 1; done < pending; done += SMALL_COMMIT, v++) {
    const ids = Array.from({ length: Math.min(SMALL_COMMIT, pending - done) }, () => BigInt(Math.floor(rand() * KEYS)));
    await upsert(wh, t, ids, v, rand);
  }
  console.error(`${pending} keys upserted in commits of ${SMALL_COMMIT} in ${(performance.now() - t2).toFixed(0)} ms`);
  await wh.close?.();
}

await main();
