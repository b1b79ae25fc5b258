import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { S3Storage, isLogPath } from '../../src/lake/index.js';
import { startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';
import { startFaultyHttpProxy } from '../harness/faulty-http-proxy.js';
import type { FaultyHttpProxy } from '../harness/faulty-http-proxy.js';
import { S3RVER_ENV, startS3Server } from '../harness/s3-server.js';
import type { S3Server } from '../harness/s3-server.js';

/**
 * `floe serve --data s3://…` against a real S3 API (s3rver) reached through a proxy that
 * injects faults: data files land in the bucket and nowhere else, statements succeed or
 * fail with 58030 while requests fail, and no commit is acknowledged without its files.
 */
describe('floe serve with data on S3', () => {
  let s3: S3Server;
  let proxy: FaultyHttpProxy;
  let server: FloeServer;
  let client: pg.Client;
  const stateDir = mkdtempSync(join(tmpdir(), 'floe-s3-state-'));
  const bucket = () => new S3Storage({ kind: 's3', bucket: 'lake', prefix: 'wh', endpoint: s3.endpoint, pathStyle: true });

  before(async () => {
    Object.assign(process.env, S3RVER_ENV);
    s3 = await startS3Server(['lake']);
    proxy = await startFaultyHttpProxy(s3.port);
    server = await startFloe({
      dataDir: stateDir,
      args: ['--data', 's3://lake/wh', '--state-dir', stateDir, '--s3-endpoint', proxy.endpoint, '--s3-path-style',
        '--s3-request-timeout', '3000', '--optimizer-threads', '0', '--scan-threads', '1'],
      env: S3RVER_ENV,
    });
    client = new pg.Client({ host: server.host, port: server.port, user: server.user, database: server.database });
    await client.connect();
  });
  after(async () => {
    await client?.end().catch(() => undefined);
    await server?.stop();
    await proxy?.stop();
    await s3?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  const dataFiles = async (): Promise<string[]> => (await bucket().list('data/')).map((f) => f.key).sort();

  /** Each file the table's catalog names is where it must be: log files in the state directory's log, data files in the bucket. */
  async function checkFilesInPlace(table: string): Promise<{ log: number; bucket: number }> {
    const inBucket = new Set(await dataFiles());
    const counts = { log: 0, bucket: 0 };
    for (const { file_path: path } of (await client.query(`SELECT file_path FROM "${table}$files"`)).rows as { file_path: string }[]) {
      if (isLogPath(path)) {
        assert.ok(existsSync(join(stateDir, path.slice(0, path.indexOf('#')))), `log segment of ${path} is not in the state directory`);
        counts.log++;
      } else {
        assert.ok(inBucket.has(path), `acknowledged file ${path} is not in the bucket`);
        counts.bucket++;
      }
    }
    return counts;
  }

  const poll = async <T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> => {
    for (const until = Date.now() + 60_000; ;) {
      const v = await read();
      if (ok(v)) return v;
      if (Date.now() > until) assert.fail(`${what}: still ${JSON.stringify(v)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  test('tables, commits, reads and optimize work; small commits land in the local log and are tiered into the bucket', async () => {
    await client.query("CREATE TABLE orders (id int PRIMARY KEY, customer text, amount numeric(10,2)) WITH ('log.tier-interval' = '100ms')");
    await client.query(`INSERT INTO orders SELECT g, 'c' || (g % 7), g * 1.5 FROM generate_series(1, 2000) g`);
    await client.query(`UPDATE orders SET amount = amount + 1 WHERE id <= 100`);
    await client.query(`DELETE FROM orders WHERE id > 1990`);
    const agg = async () => (await client.query('SELECT count(*)::int AS n, sum(amount)::text AS s FROM orders')).rows[0];
    const expected = { n: 1990, s: ((1990 * 1991 / 2) * 1.5 + 100).toFixed(2) };
    assert.deepEqual(await agg(), expected);
    const point = await client.query('SELECT customer, amount::text FROM orders WHERE id = 42');
    assert.deepEqual(point.rows, [{ customer: 'c0', amount: '64.00' }]);
    await checkFilesInPlace('orders');
    // Tiering moves the logged commits into change files in the bucket.
    await poll('log files tiered', () => checkFilesInPlace('orders'), (c) => c.log === 0 && c.bucket > 0);
    assert.deepEqual(await agg(), expected);
    await client.query('CALL optimize(\'orders\')');
    assert.deepEqual(await agg(), expected);
    assert.deepEqual(await client.query(`SELECT DISTINCT store FROM "orders$files"`).then((r) => r.rows), [{ store: 'base' }]);
    await checkFilesInPlace('orders');
    // The state directory holds the catalog and the log, not data files.
    assert.ok(existsSync(join(stateDir, 'catalog.db')));
    assert.ok(existsSync(join(stateDir, 'log')));
    assert.ok(!existsSync(join(stateDir, 'data')), `local data files: ${existsSync(join(stateDir, 'data')) ? readdirSync(join(stateDir, 'data')) : ''}`);
  });

  test('under injected faults, statements succeed or fail with 58030, and what was acknowledged is exactly what is read', async () => {
    await client.query("CREATE TABLE events (id int PRIMARY KEY, v text) WITH ('log.tier-interval' = '100ms')");
    const acknowledged = new Set<number>();
    const failed: string[] = [];
    const attempt = async (what: () => Promise<unknown>, ids: readonly number[]) => {
      try {
        await what();
        for (const id of ids) acknowledged.add(id);
      } catch (e) {
        assert.equal((e as { code?: string }).code, '58030', String(e));
        failed.push(String(e));
      }
    };
    const readBack = async () => {
      try {
        const r = await client.query('SELECT count(*)::int AS n, coalesce(sum(id), 0)::bigint AS s FROM events');
        assert.deepEqual([r.rows[0].n, Number(r.rows[0].s)], [acknowledged.size, [...acknowledged].reduce((a, b) => a + b, 0)]);
      } catch (e) {
        if (e instanceof assert.AssertionError) throw e;
        assert.equal((e as { code?: string }).code, '58030', String(e));
      }
    };
    proxy.setRandomFaults({ rate: 0.25, kinds: ['server-error', 'reset-before', 'reset-after', 'truncate', 'slow', 'corrupt-request'] });
    try {
      // Four rounds, and more while fewer than three kinds of fault were met: how many requests
      // a round makes depends on how often tiering ran meanwhile (one run under load met one fault in four rounds).
      for (let round = 0; round < 4 || (proxy.faultsMet.size < 3 && round < 16); round++) {
        // Small commits go to the local log; background tiering meets the faults.
        for (let i = 1; i <= 10; i++) {
          const id = round * 100_000 + i;
          await attempt(() => client.query('INSERT INTO events VALUES ($1, $2)', [id, `v${id}`]), [id]);
        }
        // A commit past the log's 4 MB limit writes its change file to the bucket itself.
        const from = round * 100_000 + 1000;
        const to = from + 39_999;
        await attempt(() => client.query(`INSERT INTO events SELECT g, repeat('x', 120) FROM generate_series(${from}, ${to}) g`),
          Array.from({ length: to - from + 1 }, (_, k) => from + k));
        await readBack();
      }
    } finally {
      proxy.setRandomFaults(undefined);
    }
    assert.ok(proxy.faultsMet.size >= 3, `faults met: ${[...proxy.faultsMet]}`);
    assert.ok(acknowledged.size >= 2 * 40_000, `too few commits passed: ${failed.join('\n')}`);
    await readBack();
    await poll('log files tiered after the faults', () => checkFilesInPlace('events'), (c) => c.log === 0);
    await readBack();
  });

  test('a bucket that cannot be reached stops the start with 58030', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'floe-s3-nobucket-'));
    try {
      await assert.rejects(
        startFloe({ dataDir: dir, args: ['--data', 's3://no-such-bucket/x', '--state-dir', dir, '--s3-endpoint', s3.endpoint, '--s3-path-style'], env: S3RVER_ENV }),
        (e: Error) => /could not reach bucket "no-such-bucket": NotFound \(HTTP 404\)/.test(e.message),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
