import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { after, before } from 'node:test';
import pg from 'pg';
import { startFloe } from '../../harness/floe-server.js';
import type { FloeServer } from '../../harness/floe-server.js';
import { startPostgres } from '../../harness/postgres-server.js';
import type { PostgresServer } from '../../harness/postgres-server.js';
import { startPostgresCluster } from '../../../src/tools/pg/postgres-cluster.js';
import type { PostgresCluster } from '../../../src/tools/pg/postgres-cluster.js';

/** Column lists read on both sides as text, so the comparison is PostgreSQL's text output against Floe's. */
export const COMPARED: Readonly<Record<string, string>> = {
  items: 'id, name, price, tags, doc, ref, blob, at',
  pairs: 'a, b, v',
  bag: 'grp, label, qty',
};

/** Tables without a key: equal rows are legal and have no order, so they compare as sorted multisets. */
const KEYLESS = new Set(['bag']);

/**
 * The source schema: types that must map exactly, a composite key, a table without a key
 * (REPLICA IDENTITY FULL: its changes are matched by whole rows), and a publication of all three.
 */
export async function createSourceSchema(c: pg.Client, publication: string): Promise<void> {
  await c.query(`CREATE TABLE items (id int PRIMARY KEY, name text, price numeric(12,2), tags text[], doc json,
    ref uuid, blob bytea, at timestamptz)`);
  await c.query('CREATE TABLE pairs (a int, b text, v bigint, PRIMARY KEY (a, b))');
  await c.query('CREATE TABLE bag (grp int, label text, qty numeric(8,2))');
  await c.query('ALTER TABLE bag REPLICA IDENTITY FULL');
  await c.query(`CREATE PUBLICATION ${publication} FOR TABLE items, pairs, bag`);
}

/** A slot name no other test on the shared server uses. */
export function uniqueSlot(): string {
  return `floe_t${process.pid}_${randomBytes(4).toString('hex')}`;
}

export function conninfoOf(pgs: PostgresServer): string {
  return `host=${pgs.host} port=${pgs.port} dbname=${pgs.database} user=${pgs.user}`;
}

const RAW_TEXT = { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig;

/** Every row of the compared tables as text, in key order (a table without a key: sorted as JSON). */
export async function snapshotText(c: pg.Client): Promise<Record<string, string[][]>> {
  const out: Record<string, string[][]> = {};
  for (const [t, cols] of Object.entries(COMPARED)) {
    const r = await c.query<string[]>({ text: `SELECT ${cols} FROM ${t} ORDER BY 1, 2`, rowMode: 'array', types: RAW_TEXT });
    out[t] = KEYLESS.has(t) ? r.rows.sort((x, y) => compareText(JSON.stringify(x), JSON.stringify(y))) : r.rows;
  }
  return out;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export async function connect(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => undefined);
  await c.connect();
  await c.query("SET TimeZone = 'UTC'");
  return c;
}

/** Polls until Floe's rows equal the source's; fails with the last difference. */
export async function waitForEquality(source: pg.Client, floeUrl: string | (() => string), timeoutMs = 60_000): Promise<Record<string, string[][]>> {
  const deadline = Date.now() + timeoutMs;
  const want = await snapshotText(source);
  let got: Record<string, string[][]> | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      const floe = await connect(typeof floeUrl === 'string' ? floeUrl : floeUrl());
      try { got = await snapshotText(floe); } finally { await floe.end().catch(() => undefined); }
      lastError = undefined;
      if (JSON.stringify(got) === JSON.stringify(want)) return want;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      if (lastError !== undefined) throw lastError;
      const diff = Object.keys(want).map((t) => `${t}: source ${want[t]!.length} rows, floe ${got?.[t]?.length} rows; first source rows ${JSON.stringify(want[t]!.slice(0, 3))}, floe ${JSON.stringify(got?.[t]?.slice(0, 3))}`);
      throw new Error(`Floe did not catch up with the source within ${timeoutMs} ms:\n${diff.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Seeded random numbers, so a failing run can be replayed. */
export { seededRandom as rng } from '../../../src/tools/commitbench/bench-rows.js';

/**
 * One random source transaction: inserts, updates (some moving the key), deletes, on all
 * three tables (on the table without a key, each update or delete changes one of the equal
 * rows a group holds); sometimes rolled back (it must never appear). Returns false when it
 * rolled back.
 */
export async function randomTransaction(c: pg.Client, rand: () => number, keySpace = 400): Promise<boolean> {
  const k = () => 1 + Math.floor(rand() * keySpace);
  await c.query('BEGIN');
  const n = 1 + Math.floor(rand() * 6);
  for (let i = 0; i < n; i++) {
    if (rand() < 0.15) {
      await keylessChange(c, rand);
      continue;
    }
    const r = rand();
    if (r < 0.35) {
      const id = k();
      await c.query(`INSERT INTO items VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, price = EXCLUDED.price`, [
        id, `item ${id} ${Math.floor(rand() * 1000)}`, (rand() * 10000).toFixed(2), [`t${k()}`, rand() < 0.2 ? null : 'x,y'],
        JSON.stringify({ n: id, nested: { ok: rand() < 0.5 } }), randomUuid(rand), Buffer.from([id & 255, 0, 7]), new Date(1_700_000_000_000 + Math.floor(rand() * 1e10)),
      ]);
    } else if (r < 0.55) {
      await c.query('UPDATE items SET price = price + 1.25, name = name || $2 WHERE id = $1', [k(), '+']);
    } else if (r < 0.65) {
      // A key change: the old key must disappear, the new one appear (unless taken).
      await c.query('UPDATE items SET id = $2 WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM items WHERE id = $2)', [k(), keySpace + k()]);
    } else if (r < 0.75) {
      await c.query('DELETE FROM items WHERE id = $1', [k()]);
    } else if (r < 0.9) {
      await c.query('INSERT INTO pairs VALUES ($1, $2, $3) ON CONFLICT (a, b) DO UPDATE SET v = pairs.v + 1', [k() % 50, `b${k() % 7}`, BigInt(k()) * 1_000_000_007n]);
    } else {
      await c.query('DELETE FROM pairs WHERE a = $1', [k() % 50]);
    }
  }
  if (rand() < 0.15) {
    await c.query('ROLLBACK');
    return false;
  }
  await c.query('COMMIT');
  return true;
}

/** One change to `bag`: a row from a small domain (so many are equal, some with NULLs), or one row of a group updated or deleted. */
async function keylessChange(c: pg.Client, rand: () => number): Promise<void> {
  const grp = Math.floor(rand() * 12);
  const r = rand();
  // PostgreSQL's UPDATE and DELETE change every row they match: ctid picks one.
  const oneOfGroup = 'ctid = (SELECT ctid FROM bag WHERE grp = $1 LIMIT 1)';
  if (r < 0.4) {
    await c.query('INSERT INTO bag VALUES ($1, $2, $3)', [grp, rand() < 0.3 ? null : `l${Math.floor(rand() * 2)}`, rand() < 0.3 ? null : (Math.floor(rand() * 3) / 2).toFixed(2)]);
  } else if (r < 0.65) {
    await c.query(`UPDATE bag SET qty = coalesce(qty, 0) + 0.5 WHERE ${oneOfGroup}`, [grp]);
  } else {
    await c.query(`DELETE FROM bag WHERE ${oneOfGroup}`, [grp]);
  }
}

function randomUuid(rand: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Drops what a test left on the shared server's cluster: slots of its database (they keep WAL and block DROP DATABASE). */
export async function dropSlotsOf(adminUrl: string, database: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const slots = await c.query<{ slot_name: string; active_pid: number | null }>('SELECT slot_name, active_pid FROM pg_replication_slots WHERE database = $1', [database]);
    for (const s of slots.rows) {
      if (s.active_pid !== null) await c.query('SELECT pg_terminate_backend($1)', [s.active_pid]).catch(() => undefined);
      await c.query('SELECT pg_drop_replication_slot($1)', [s.slot_name]).catch(() => undefined);
    }
  } finally {
    await c.end();
  }
}

/** A test file's source database, a client connected to it, and a Floe gateway. */
export interface SourceAndFloe {
  readonly pgs: PostgresServer;
  readonly source: pg.Client;
  readonly floe: FloeServer;
}

/**
 * Starts a SourceAndFloe before the file's tests (unless `skip`) and hands it to `take`;
 * after them stops the gateway, closes the client and drops the database's slots.
 */
export function sourceAndFloeForFile(skip: string | false, take: (bed: SourceAndFloe) => void): void {
  let started: Partial<SourceAndFloe> = {};
  before(async () => {
    if (skip) return;
    const pgs = await startPostgres();
    started = { pgs };
    started = { ...started, source: await connect(pgs.url) };
    started = { ...started, floe: await startFloe() };
    take(started as SourceAndFloe);
  });
  after(async () => {
    if (skip) return;
    const { pgs, source, floe } = started;
    await floe?.stop();
    await source?.end().catch(() => undefined);
    if (pgs === undefined) return;
    await dropSlotsOf(pgs.adminUrl, pgs.database).catch(() => undefined);
    await pgs.stop();
  });
}

/** Polls `probe` until it returns a value `done` accepts; fails with the last value seen. */
export async function waitFor<T>(probe: () => Promise<T>, done: (v: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    try {
      last = await probe();
      if (done(last)) return last;
    } catch { /* not there yet */ }
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms (last: ${JSON.stringify(last, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Why a test that starts its own source cluster cannot run here, or false. */
export const NO_CLUSTER: string | false = existsSync('/usr/lib/postgresql/15/bin/initdb') ? false : 'needs PostgreSQL 15\'s binaries to start a source cluster';

/** A source of the test's own, which it may stop and start: a throwaway PostgreSQL 15 with wal_level=logical. */
export interface SourceCluster {
  readonly cluster: PostgresCluster;
  readonly url: string;
  readonly conninfo: string;
}

export async function startSourceCluster(settings: Readonly<Record<string, string>> = {}): Promise<SourceCluster> {
  const cluster = await startPostgresCluster({ settings: { wal_level: 'logical', ...settings } });
  return { cluster, url: cluster.adminUrl, conninfo: `host=127.0.0.1 port=${cluster.port} dbname=postgres user=postgres` };
}
