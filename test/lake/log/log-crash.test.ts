import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openWarehouse } from '../../../src/lake/index.js';
import type { CatalogConfig, S3StorageConfig, Warehouse, WarehouseOptions } from '../../../src/lake/index.js';
import { SqliteCatalog } from '../../../src/lake/catalog/sqlite/sqlite-catalog.js';
import { PostgresCatalog } from '../../../src/lake/catalog/postgres/postgres-catalog.js';
import type { LogWriterRecord } from '../../../src/lake/catalog/catalog.js';
import { LOG_DIR } from '../../../src/lake/log/log-locator.js';
import { transpiledNodeArgs } from '../../harness/transpiled-child.js';
import { readRows } from '../helpers/read-table.js';
import { S3RVER_ENV, startS3Server } from '../../harness/s3-server.js';
import { startPostgres } from '../../harness/postgres-server.js';
import { appendTableName, CLIENTS, MAX_LOGGED_BYTES, expectedAppendRows, expectedRows, markerKey } from './log-crash-model.js';
import { commitWorkload } from './log-crash-commit.js';
import { isLogPath } from '../../../src/lake/index.js';
import { RandomStream } from '../../../src/tools/tpch/random-stream.js';

const writer = fileURLToPath(new URL('./log-crash-writer.ts', import.meta.url));
const KILLS = Number(process.env['FLOE_LOG_CRASH_KILLS'] ?? 100);
/** Kills of the run with the log as objects in a bucket: each round costs more there (s3rver, a PostgreSQL catalog). */
const OBJECT_KILLS = Number(process.env['FLOE_LOG_CRASH_OBJECT_KILLS'] ?? 25);
const SEED = Number(process.env['FLOE_LOG_CRASH_SEED'] ?? Date.now() % 2 ** 31);

/**
 * Where the writers' warehouse lives: all in one directory (segment files, SQLite), or as on
 * several hosts (the log as objects in s3rver, the catalog in PostgreSQL).
 */
interface Place {
  readonly name: string;
  /**
   * How much later than on local disk the kills land: a commit through s3rver and a
   * PostgreSQL catalog takes several times as long, and each round must still commit a few.
   */
  readonly killDelayScale: number;
  /** openWarehouse options besides the path: the storage and catalog. */
  readonly options: Pick<WarehouseOptions, 'storage' | 'catalog'>;
  /** The catalog's log writers, read as another process would. */
  logWriters(dir: string): LogWriterRecord[];
  /** Bytes of each writer's newest segment file, to count tails recovery cut (segment files only). */
  segmentSizes(dir: string): Map<string, number>;
}

const directoryPlace: Place = {
  name: 'segment files in the warehouse directory, SQLite catalog',
  killDelayScale: 1,
  options: {},
  logWriters(dir) {
    const catalog = new SqliteCatalog(join(dir, 'catalog.db'));
    try { return catalog.listLogWriters(); } finally { catalog.close(); }
  },
  segmentSizes: lastSegmentSizes,
};

const cleanups: (() => Promise<void>)[] = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

async function objectPlace(): Promise<Place> {
  Object.assign(process.env, S3RVER_ENV);
  const s3 = await startS3Server(['lake']);
  cleanups.push(() => s3.stop());
  const pgServer = await startPostgres();
  cleanups.push(() => pgServer.stop());
  const storage: S3StorageConfig = { kind: 's3', bucket: 'lake', prefix: 'logcrash', endpoint: s3.endpoint, pathStyle: true };
  const catalog: CatalogConfig = { kind: 'postgres', url: pgServer.url, schema: 'logcrash' };
  return {
    name: 'objects in an s3rver bucket, PostgreSQL catalog',
    killDelayScale: 4,
    options: { storage, catalog },
    logWriters() {
      const c = new PostgresCatalog({ url: pgServer.url, schema: 'logcrash' });
      try { return c.listLogWriters(); } finally { c.close(); }
    },
    segmentSizes: () => new Map(),
  };
}

function spawnWriter(dir: string, place: Place): ChildProcess {
  const env = place.options.storage === undefined ? process.env : { ...process.env, FLOE_LOG_CRASH_PLACE: JSON.stringify(place.options) };
  return spawn(process.execPath, [...transpiledNodeArgs(writer), dir], { stdio: ['pipe', 'pipe', 'pipe'], env });
}

interface Round {
  /** Per client: the last acknowledged commit (-1 for none since `first`). */
  readonly acked: number[];
  /** Per client: the last commit sent. */
  readonly sent: number[];
}

/** Starts a loaded writer, kills it `delayMs` after its first acknowledgement, returns what it sent and acknowledged. */
function runAndKill(child: ChildProcess, first: readonly number[], delayMs: number): Promise<Round> {
  return new Promise((resolve, reject) => {
    const acked = first.map((f) => f - 1);
    const sent = first.map((f) => f - 1);
    let buf = '';
    let err = '';
    let armed = false;
    const kill = () => child.kill('SIGKILL');
    const deadline = setTimeout(kill, 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const m = /^(send|ack) (\d+) (\d+)$/.exec(line);
        if (m === null) continue;
        const c = Number(m[2]);
        const i = Number(m[3]);
        if (m[1] === 'send') {
          assert.equal(i, sent[c]! + 1, `client ${c} sends in order`);
          sent[c] = i;
        } else {
          assert.equal(i, sent[c], `client ${c} acknowledges what it sent last`);
          acked[c] = i;
          if (!armed) {
            armed = true;
            setTimeout(kill, delayMs);
          }
        }
      }
    });
    child.stderr!.on('data', (d) => { err += d; });
    child.on('exit', (code, signal) => {
      clearTimeout(deadline);
      if (signal !== 'SIGKILL') reject(new Error(`writer exited on its own (${code}): ${err}`));
      else resolve({ acked, sent });
    });
    child.stdin!.write(`go ${JSON.stringify(first)}\n`);
  });
}

/**
 * Checks the reopened (replayed) table against the model: every acknowledged commit is
 * there; a commit in flight at the kill is wholly there or wholly absent; nothing never
 * sent appears. Returns, per client, the last commit the table holds.
 */
async function check(wh: Warehouse, round: Round): Promise<number[]> {
  const t = wh.getTable('public', 'logcrash')!;
  const rows = await readRows(wh, { table: t });
  const got = new Map(rows.map((r) => [r['id'] as bigint, r['v'] as string]));
  assert.equal(got.size, rows.length, 'no key twice');
  const last = round.acked.map((a, c) => {
    if (round.sent[c]! > a && got.has(markerKey(c, a + 1))) return a + 1;
    return a;
  });
  for (let c = 0; c < CLIENTS; c++) {
    assert.ok(!got.has(markerKey(c, round.sent[c]! + 1)), `client ${c}: commit ${round.sent[c]! + 1} was never sent`);
  }
  const want = expectedRows(last);
  for (const [k, v] of want) assert.equal(got.get(k), v, `key ${k} after commits ${JSON.stringify(last)} (acked ${JSON.stringify(round.acked)})`);
  for (const k of got.keys()) assert.ok(want.has(k), `key ${k} is in no sent commit (or was deleted)`);
  // The append tables were written in the same transactions: each holds exactly its client's commits up to the same one.
  for (let c = 0; c < CLIENTS; c++) {
    const appended = await readRows(wh, { table: wh.getTable('public', appendTableName(c))!, projection: ['id', 'v'] });
    const have = new Map(appended.map((r) => [r['id'] as bigint, r['v'] as string]));
    assert.equal(have.size, appended.length, `client ${c}: no appended row twice`);
    const expected = expectedAppendRows(c, last[c]!);
    for (const [id, v] of expected) assert.equal(have.get(id), v, `client ${c}: appended row ${id} after commit ${last[c]} (acked ${round.acked[c]})`);
    for (const id of have.keys()) assert.ok(expected.has(id), `client ${c}: appended row ${id} is in no sent commit (or was deleted)`);
  }
  return last;
}

/** Bytes of each writer's log directory's newest segment. */
function lastSegmentSizes(dir: string): Map<string, number> {
  const sizes = new Map<string, number>();
  const logDir = join(dir, LOG_DIR);
  if (!existsSync(logDir)) return sizes;
  for (const w of readdirSync(logDir)) {
    const segs = readdirSync(join(logDir, w)).filter((f) => f.endsWith('.wal')).sort();
    if (segs.length > 0) sizes.set(w, statSync(join(logDir, w, segs[segs.length - 1]!)).size);
  }
  return sizes;
}

test(`log crash: SIGKILL ${CLIENTS} concurrent log writers ${KILLS} times (seed ${SEED}); acknowledged commits survive whole`, { timeout: 900_000 }, async () => {
  await crashRounds(directoryPlace, KILLS);
});

test(`log crash, the log as objects in a bucket: SIGKILL ${CLIENTS} concurrent log writers ${OBJECT_KILLS} times (seed ${SEED})`, { timeout: 900_000 }, async () => {
  await crashRounds(await objectPlace(), OBJECT_KILLS);
});

async function crashRounds(place: Place, kills: number): Promise<void> {
  const stream = new RandomStream(SEED); // mulberry32: a seed replays the run
  const random = (): number => stream.next();
  const dir = mkdtempSync(join(tmpdir(), 'floe-logcrash-'));
  const cleanup = async () => rmSync(dir, { recursive: true, force: true });
  const wh = await openWarehouse({ path: dir, ...place.options });
  await wh.createTable({
    namespace: 'public', name: 'logcrash', primaryKey: ['id'],
    columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
  for (let c = 0; c < CLIENTS; c++) {
    await wh.createTable({
      namespace: 'public', name: appendTableName(c),
      columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
    });
  }
  await wh.close();
  const loaded = [spawnWriter(dir, place), spawnWriter(dir, place)];
  try {
    let next = Array.from({ length: CLIENTS }, () => 0);
    let inDoubtCommitted = 0;
    let inDoubtAbsent = 0;
    let tornTails = 0;
    let replayed = 0;
    for (let k = 0; k < kills; k++) {
      const current = loaded.shift()!;
      if (k + loaded.length + 1 < kills) loaded.push(spawnWriter(dir, place));
      // Mostly early (mid group commit, mid Parquet write); sometimes after a longer burst.
      const delay = place.killDelayScale * (random() < 0.8 ? Math.floor(random() * 60) : Math.floor(random() * 400));
      const round = await runAndKill(current, next, delay);
      const before = place.segmentSizes(dir);
      // The checker opens without a log store of its own, so it leaves no writer row.
      const reopened = await openWarehouse({ path: dir, ...place.options, log: false });
      try {
        replayed += reopened.logReplay?.commits ?? 0;
        const last = await check(reopened, round);
        last.forEach((l, c) => {
          if (round.sent[c]! > round.acked[c]!) { if (l > round.acked[c]!) inDoubtCommitted++; else inDoubtAbsent++; }
        });
        next = last.map((l) => l + 1);
      } finally { await reopened.close(); }
      for (const [w, size] of place.segmentSizes(dir)) if (size < (before.get(w) ?? 0)) tornTails++;
    }
    for (const c of loaded) c.kill('SIGKILL');
    loaded.length = 0;
    console.log(`${place.name}, seed ${SEED}: ${kills} kills, ${next.reduce((a, b) => a + b, 0)} commits, ${replayed} replayed, in flight at a kill: ${inDoubtCommitted} committed / ${inDoubtAbsent} absent, tails cut (torn records or preallocated zeroes): ${tornTails}`);
    // Kills land mostly within 60 ms of a writer's start, so a slow, loaded machine commits
    // about one round per kill and client: half that still shows the kills hit a running stream.
    assert.ok(next.every((n) => n > kills / 2), `every client made progress between kills: ${JSON.stringify(next)}`);
    assert.ok(replayed > 0, 'some acknowledged commits were only in the log at the kill');

    // Replay left no writer row behind for the dead processes.
    assert.deepEqual(place.logWriters(dir), []);

    // The warehouse still takes commits, through a log of its own, and reads them.
    const final = await openWarehouse({ path: dir, ...place.options, log: { maxTransactionBytes: MAX_LOGGED_BYTES } });
    try {
      // Client 0's next commit, whole, as the writer makes it.
      await commitWorkload(final, 0, next[0]!);
      next[0]!++;
      await check(final, { acked: next.map((n) => n - 1), sent: next.map((n) => n - 1) });
      if (process.env['FLOE_LOG_CRASH_TIERING'] !== '1') {
        // Without the writers' minor beside them, the append tables' small commits are still in the log.
        const appended = Array.from({ length: CLIENTS }, (_, c) => final.listFiles(final.getTable('public', appendTableName(c))!)).flat();
        assert.ok(appended.some((f) => f.store === 'base' && isLogPath(f.path)), 'append commits went through the log');
        assert.ok(appended.some((f) => f.deletedRows > 0 && isLogPath(f.path)), 'row-id deletes hit log-located files');
      }
    } finally { await final.close(); }
  } finally {
    for (const c of loaded) c.kill('SIGKILL');
    await cleanup();
  }
}
