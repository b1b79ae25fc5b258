/**
 * Cost of UNIQUE enforcement (src/lake/txn/check-unique.ts): a keyed table with an
 * int8 primary key and a unique text column, loaded in 100k-row transactions, then
 * single-row inserts (each one checks the table) and one more 100k-row insert, with the
 * constraint and without. `node --import tsx bench/unique.bench.ts [rows]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse } from '../src/lake/index.js';
import type { TableConstraint } from '../src/lake/index.js';

const total = Number(process.argv[2] ?? 1_000_000);
const batch = 100_000;

async function run(unique: boolean): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'floe-unique-bench-'));
  const w = await openWarehouse({ path: dir });
  try {
    const constraints: TableConstraint[] = unique ? [{ kind: 'unique', name: 'u_email_key', columns: ['email'] }] : [];
    const t = await w.createTable({
      namespace: 'public', name: 'u', primaryKey: ['id'], constraints,
      columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'email', type: { kind: 'text' }, nullable: true }],
    });
    const rows = (from: number, n: number) => [
      Array.from({ length: n }, (_, i) => BigInt(from + i)),
      Array.from({ length: n }, (_, i) => `user${from + i}@example.com`),
    ];
    let t0 = performance.now();
    for (let from = 0; from < total; from += batch) {
      const txn = await w.begin();
      await txn.insert(t, 'main', rows(from, Math.min(batch, total - from)));
      await txn.commit();
    }
    const load = performance.now() - t0;
    const singles: number[] = [];
    for (let i = 0; i < 20; i++) {
      t0 = performance.now();
      const txn = await w.begin();
      await txn.insert(t, 'main', rows(total + i, 1));
      await txn.commit();
      singles.push(performance.now() - t0);
    }
    singles.sort((a, b) => a - b);
    t0 = performance.now();
    const txn = await w.begin();
    await txn.insert(t, 'main', rows(total + 100, batch));
    await txn.commit();
    const big = performance.now() - t0;
    console.log(`${unique ? 'UNIQUE(email)' : 'no constraint'}: load ${total} rows ${(total / load * 1000).toFixed(0)} rows/s; `
      + `1-row insert p50 ${singles[10]!.toFixed(1)} ms, max ${singles[19]!.toFixed(1)} ms; 100k-row insert ${(batch / big * 1000).toFixed(0)} rows/s`);
  } finally {
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const only = process.argv[3];
if (only !== 'unique') await run(false);
if (only !== 'plain') await run(true);
