/**
 * bench:lake's checked-insert section (issue 22): 1M new keys inserted with the
 * primary-key check into a keyed table already holding 10M rows (optimized, so its
 * rows are hash-ordered base files), through LakeTransaction.insert — the path COPY
 * FROM and INSERT use — beside DuckDB's INSERT of the same rows into a PRIMARY KEY
 * table holding the same 10M rows.
 *
 * Two shapes of new keys:
 *  - interleaved: the table holds the even ids, the new rows the odd ones, so no key
 *    bitmap or min/max rules a file out and the check decodes every key of the table
 *    (the worst case);
 *  - ascending: the new ids follow the table's largest (serials, time-ordered ids),
 *    so the files' min/max rule every file out.
 * The same 1M rows upserted blind into an empty table give the write path's own cost.
 *
 * Env: FLOE_BENCH_PK_BASE (default 10000000), FLOE_BENCH_PK_NEW (default 1000000).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, DuckDBTimestampTZValue } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openWarehouse } from '../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../src/lake/index.js';

export interface BenchLine { what: string; unit: string; ours: number; peer: number; higherIsBetter: boolean }

const BASE = Number(process.env['FLOE_BENCH_PK_BASE'] ?? 10_000_000);
const NEW = Number(process.env['FLOE_BENCH_PK_NEW'] ?? 1_000_000);
const LOAD_BATCH = 1_000_000;

/** Columns for ids: id int8, name text, qty int4, price float8, ts timestamptz. */
function rowsFor(ids: bigint[]): unknown[][] {
  return [
    ids,
    ids.map((id) => `customer-${id}`),
    ids.map((id) => Number(id % 1000n)),
    ids.map((id) => Number(id % 100000n) / 100),
    ids.map((id) => 1_700_000_000_000_000n + id * 1000n),
  ];
}

const idRange = (from: number, count: number, step: number): bigint[] => Array.from({ length: count }, (_, i) => BigInt(from + i * step));

async function duckStage(conn: DuckDBConnection, cols: unknown[][]): Promise<void> {
  await conn.run('DELETE FROM staging');
  const app = await conn.createAppender('staging');
  const [id, name, qty, price, ts] = cols as [bigint[], string[], number[], number[], bigint[]];
  for (let i = 0; i < id.length; i++) {
    app.appendBigInt(id[i]!);
    app.appendVarchar(name[i]!);
    app.appendInteger(qty[i]!);
    app.appendDouble(price[i]!);
    app.appendTimestampTZ(new DuckDBTimestampTZValue(ts[i]!));
    app.endRow();
  }
  app.closeSync();
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  return (await clocked(fn)).wall;
}

/**
 * Wall and CPU milliseconds (the process's user + system time: both engines run in it,
 * single-threaded). On a shared machine the CPU time is the steadier of the two.
 */
async function clocked(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const c = process.cpuUsage(c0);
  return { wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 };
}

async function floeWrite(wh: Warehouse, t: TableMetadata, cols: unknown[][], how: 'insert' | 'upsert'): Promise<void> {
  const tx = await wh.begin();
  await (how === 'insert' ? tx.insert(t, 'main', cols) : tx.upsert(t, 'main', cols));
  await tx.commit();
}

export async function benchCheckedInsert(log: (msg: string) => void): Promise<BenchLine[]> {
  const dir = mkdtempSync(join(tmpdir(), 'floe-bench-pk-'));
  const wh = await openWarehouse({ path: dir });
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  const lines: BenchLine[] = [];
  try {
    await duck.run('SET threads = 1');
    await duck.run('CREATE TABLE t (id BIGINT PRIMARY KEY, name VARCHAR, qty INTEGER, price DOUBLE, ts TIMESTAMPTZ)');
    await duck.run('CREATE TABLE staging (id BIGINT, name VARCHAR, qty INTEGER, price DOUBLE, ts TIMESTAMPTZ)');
    const def = (name: string) => ({
      namespace: 'public', name, primaryKey: ['id'],
      columns: [
        { name: 'id', type: { kind: 'int8' as const }, nullable: false }, { name: 'name', type: { kind: 'text' as const }, nullable: true },
        { name: 'qty', type: { kind: 'int4' as const }, nullable: true }, { name: 'price', type: { kind: 'float8' as const }, nullable: true },
        { name: 'ts', type: { kind: 'timestamptz' as const }, nullable: true },
      ],
    });
    const t = await wh.createTable(def('big'));
    const empty = await wh.createTable(def('empty'));

    // the 10M even ids, blind upserts in 1M-row commits, then optimized into base files
    let loadMs = 0;
    for (let done = 0; done < BASE; done += LOAD_BATCH) {
      const cols = rowsFor(idRange(2 * done, Math.min(LOAD_BATCH, BASE - done), 2));
      loadMs += await timed(() => floeWrite(wh, t, cols, 'upsert'));
      await duckStage(duck, cols);
      await duck.run('INSERT INTO t SELECT * FROM staging');
    }
    log(`checked insert: loaded ${BASE} rows into Floe in ${loadMs.toFixed(0)} ms`);
    const optMs = await timed(() => wh.optimize(t));
    const nodes = wh.bucketTree(t).filter((n) => n.isFrontier).length;
    log(`checked insert: optimize ${optMs.toFixed(0)} ms, ${nodes} frontier nodes, ${wh.listFiles(t).filter((f) => f.store === 'base').length} base files`);

    const interleaved = rowsFor(idRange(1, NEW, 2));
    const ascending = rowsFor(idRange(2 * BASE, NEW, 1));

    for (const [shape, cols] of [['interleaved', interleaved], ['ascending', ascending]] as const) {
      const ours = await clocked(() => floeWrite(wh, t, cols, 'insert'));
      await duckStage(duck, cols);
      const peer = await clocked(() => duck.run('INSERT INTO t SELECT * FROM staging'));
      log(`checked insert (${shape}): Floe ${ours.wall.toFixed(0)} ms (CPU ${ours.cpu.toFixed(0)} ms), DuckDB ${peer.wall.toFixed(0)} ms (CPU ${peer.cpu.toFixed(0)} ms)`);
      const what = `INSERT ${NEW.toLocaleString('en-US')} new keys into ${BASE.toLocaleString('en-US')} rows, PK checked (${shape})`;
      lines.push({ what, unit: 'rows/s', ours: NEW / (ours.wall / 1000), peer: NEW / (peer.wall / 1000), higherIsBetter: true });
      lines.push({ what: `${what}, per CPU second`, unit: 'rows/s', ours: NEW / (ours.cpu / 1000), peer: NEW / (peer.cpu / 1000), higherIsBetter: true });
    }
    // the write path's own cost, warm: the same rows upserted blind into an empty table
    const blind = await clocked(() => floeWrite(wh, empty, interleaved, 'upsert'));
    const blindMs = blind.wall;
    log(`checked insert: the same ${NEW} rows upserted blind into an empty table: ${blind.wall.toFixed(0)} ms (CPU ${blind.cpu.toFixed(0)} ms)`);
    // one duplicate among the new rows is found and refused
    const dup = rowsFor([BigInt(2 * BASE + 2 * NEW + 1), 0n]);
    const refused = await floeWrite(wh, t, dup, 'insert').then(() => false, (e: { sqlstate?: string }) => e.sqlstate === '23505');
    if (!refused) throw new Error('the checked insert accepted a duplicate key');
    lines.push({ what: `blind upsert of the same ${NEW.toLocaleString('en-US')} rows into an empty table (write cost alone)`, unit: 'rows/s', ours: NEW / (blindMs / 1000), peer: Number.NaN, higherIsBetter: true });
    return lines;
  } finally {
    duck.closeSync();
    await wh.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
