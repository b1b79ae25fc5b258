/**
 * The log store with data on S3 and a shared PostgreSQL catalog (docs/design-notes.md, "The
 * log store on object storage"): small commits are log objects in the bucket, which a
 * warehouse opened as on another host reads; a process whose heartbeat lapsed has its log
 * replayed by another, which applies its durable but unapplied commits once, and the first
 * process's later commits are refused rather than applied twice.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Storage, isLogPath, openWarehouse } from '../../../src/lake/index.js';
import type { S3StorageConfig, TableMetadata, Warehouse } from '../../../src/lake/index.js';
import { SqlCatalog } from '../../../src/lake/catalog/sql-catalog.js';
import { PostgresCatalog } from '../../../src/lake/catalog/postgres/postgres-catalog.js';
import { S3RVER_ENV, startS3Server } from '../../harness/s3-server.js';
import type { S3Server } from '../../harness/s3-server.js';
import { startPostgres } from '../../harness/postgres-server.js';
import type { PostgresServer } from '../../harness/postgres-server.js';
import { kvTable, upsertRows } from '../helpers/keyed-table.js';
import { readRows } from '../helpers/read-table.js';

let s3: S3Server;
let pgServer: PostgresServer;
before(async () => {
  Object.assign(process.env, S3RVER_ENV);
  s3 = await startS3Server(['lake']);
  pgServer = await startPostgres();
});
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  await s3.stop();
  await pgServer.stop();
});

/** A warehouse as a gateway on its own host opens it: its own local directory, the shared bucket and catalog. */
async function openAsHost(host: string, prefix: string, schema: string, staleTransactionMs?: number): Promise<Warehouse> {
  const dir = mkdtempSync(join(tmpdir(), `floe-objlog-${host}-`));
  // Another URL for the same database: catalogs of one thread know each other by URL, as processes do not.
  const url = new URL(pgServer.url);
  url.searchParams.set('application_name', host);
  // A local log directory the shared catalog must override: another host could not read it.
  const storage: S3StorageConfig = { kind: 's3', bucket: 'lake', prefix, endpoint: s3.endpoint, pathStyle: true, logRoot: dir };
  const wh = await openWarehouse({
    path: dir, storage, catalog: { kind: 'postgres', url: url.toString(), schema }, log: { releaseGraceMs: 0 },
    ...(staleTransactionMs === undefined ? {} : { staleTransactionMs }),
  });
  cleanups.push(async () => {
    await wh.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });
  return wh;
}

const ids = async (wh: Warehouse, t: TableMetadata): Promise<number[]> =>
  (await readRows(wh, { table: t, projection: ['id'] })).map((r) => r['id'] as number).sort((a, b) => a - b);

const range = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i);

test('small commits are log objects in the bucket, and a warehouse on another host reads them', async () => {
  const prefix = 'wh-read';
  const a = await openAsHost('host-a', prefix, 'objlog_read');
  const b = await openAsHost('host-b', prefix, 'objlog_read');
  const t = await kvTable(a, 'kv');
  for (let i = 0; i < 12; i++) await upsertRows(a, t, [{ id: i, v: `a${i}` }]);
  const files = a.listFiles(t);
  assert.equal(files.length, 12);
  assert.ok(files.every((f) => isLogPath(f.path)), 'each small commit is located in the log, not in a Parquet file');
  const bucket = new S3Storage({ kind: 's3', bucket: 'lake', prefix, endpoint: s3.endpoint, pathStyle: true });
  const objects = await bucket.list('log/');
  assert.ok(objects.length > 0 && objects.every((o) => o.key.endsWith('.wal')), 'the log is objects in the bucket');
  assert.deepEqual((await bucket.list('data/')).filter((o) => o.key.endsWith('.parquet')), [], 'no Parquet file was written');

  const tb = b.getTable('public', 'kv')!;
  assert.deepEqual(await ids(b, tb), range(12));
  // And the other way round, both writing.
  for (let i = 12; i < 20; i++) await upsertRows(b, tb, [{ id: i, v: `b${i}` }]);
  assert.deepEqual(await ids(a, t), range(20));
  // Folding the log into the base store reads it from the bucket too.
  await a.optimize(t, { kind: 'full' });
  assert.ok(a.listFiles(t).every((f) => !isLogPath(f.path)));
  assert.deepEqual(await ids(b, tb), range(20));
});

test('a lapsed writer\'s log is replayed by another host once; the lapsed writer\'s pending commit gets 40003 and it goes on as a new writer', async () => {
  const prefix = 'wh-takeover';
  const schema = 'objlog_takeover';
  const a = await openAsHost('host-a', prefix, schema);
  const t = await kvTable(a, 'kv');
  await upsertRows(a, t, [{ id: 1, v: 'one' }]);

  // A's next commit is durable in its log, then A "dies" before the catalog has it: the
  // apply fails once, as if the process had stopped between the put and the apply.
  const admin = new PostgresCatalog({ url: pgServer.url, schema });
  cleanups.push(() => admin.close());
  const writerA = admin.listLogWriters().map((w) => w.id);
  assert.equal(writerA.length, 1);
  const apply = SqlCatalog.prototype.applyLoggedCommits;
  SqlCatalog.prototype.applyLoggedCommits = function (this: SqlCatalog, writerId, ...rest) {
    if (writerId === writerA[0]) {
      SqlCatalog.prototype.applyLoggedCommits = apply;
      throw new Error('the process stopped before the catalog apply');
    }
    return apply.call(this, writerId, ...rest);
  };
  try {
    await assert.rejects(upsertRows(a, t, [{ id: 2, v: 'two' }]), /stopped before the catalog apply/);
  } finally {
    SqlCatalog.prototype.applyLoggedCommits = apply;
  }
  assert.deepEqual(await ids(a, t), [1]);

  // Another host starts once A's heartbeat is older than its stale timeout, and replays A's
  // log from the bucket: the durable commit lands, once. (A heartbeats every 15 s, a quarter
  // of its own 60 s timeout; C and D judge by 2 s and heartbeat every 0.5 s, which a busy
  // machine still keeps within their 2 s.)
  await new Promise((r) => setTimeout(r, 2_500));
  const c = await openAsHost('host-c', prefix, schema, 2_000);
  const tc = c.getTable('public', 'kv')!;
  assert.deepEqual(await ids(c, tc), [1, 2]);
  assert.ok(!admin.listLogWriters().some((w) => w.id === writerA[0]), 'the replayed writer\'s row is gone');
  // A second replay of the same log (another host starting at the same moment) applies nothing.
  const d = await openAsHost('host-d', prefix, schema, 2_000);
  assert.deepEqual(await ids(d, d.getTable('public', 'kv')!), [1, 2]);

  // A is still running: its next commit must not be applied from a log another process
  // took over (its outcome is unknown to A: the replay could have applied it); then A goes
  // on as a new writer with a log of its own.
  await assert.rejects(upsertRows(a, t, [{ id: 3, v: 'three' }]), { sqlstate: '40003' });
  assert.deepEqual(await ids(c, tc), [1, 2]);
  const writersCD = admin.listLogWriters().map((w) => w.id);
  await upsertRows(a, t, [{ id: 4, v: 'four' }]);
  const writersNow = admin.listLogWriters().map((w) => w.id);
  assert.equal(writersNow.length, 3, 'C, D and A\'s new writer');
  assert.ok(!writersNow.includes(writerA[0]!));
  const writerANew = writersNow.find((id) => !writersCD.includes(id))!;
  // The others go on committing, and everyone reads everyone.
  await upsertRows(c, tc, [{ id: 5, v: 'five' }]);
  assert.deepEqual(await ids(d, d.getTable('public', 'kv')!), [1, 2, 4, 5]);
  assert.deepEqual(await ids(a, t), [1, 2, 4, 5]);

  // A's log has no owner left to release it: once no file row points into its objects
  // (folded into Parquet here), a live gateway deletes them; its own log stays.
  const bucket = new S3Storage({ kind: 's3', bucket: 'lake', prefix, endpoint: s3.endpoint, pathStyle: true });
  const logOf = async (writer: string) => (await bucket.list(`log/${writer}/`)).length;
  assert.ok(await logOf(writerA[0]!) > 0);
  await c.releaseLogSegments();
  assert.ok(await logOf(writerA[0]!) > 0, 'objects file rows point into stay');
  await c.optimize(tc, { kind: 'full' });
  assert.ok(c.listFiles(tc).every((f) => !isLogPath(f.path)));
  assert.equal(await c.releaseLogSegments(), 0, 'older snapshots still read them');
  await c.expireSnapshots(tc, { olderThanMicros: BigInt(Date.now() + 60_000) * 1000n });
  assert.ok(await c.releaseLogSegments() > 0);
  assert.equal(await logOf(writerA[0]!), 0);
  assert.deepEqual(await ids(d, d.getTable('public', 'kv')!), [1, 2, 4, 5]);
  // A writer still listed keeps its log whole, though nothing points into it any more.
  assert.ok(await logOf(writerANew) > 0, 'A\'s new writer\'s log is kept');
  assert.deepEqual(await ids(a, t), [1, 2, 4, 5]);
});
