import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { S3Storage } from '../../src/lake/storage/s3-storage.js';
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
        '--s3-request-timeout', '1000', '--optimizer-threads', '0', '--scan-threads', '1'],
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

  test('tables, commits, reads and optimize work, with every data file in the bucket', async () => {
    await client.query('CREATE TABLE orders (id int PRIMARY KEY, customer text, amount numeric(10,2))');
    await client.query(`INSERT INTO orders SELECT g, 'c' || (g % 7), g * 1.5 FROM generate_series(1, 2000) g`);
    await client.query(`UPDATE orders SET amount = amount + 1 WHERE id <= 100`);
    await client.query(`DELETE FROM orders WHERE id > 1990`);
    const agg = async () => (await client.query('SELECT count(*)::int AS n, sum(amount)::text AS s FROM orders')).rows[0];
    const expected = { n: 1990, s: ((1990 * 1991 / 2) * 1.5 + 100).toFixed(2) };
    assert.deepEqual(await agg(), expected);
    const point = await client.query('SELECT customer, amount::text FROM orders WHERE id = 42');
    assert.deepEqual(point.rows, [{ customer: 'c0', amount: '64.00' }]);
    await client.query('CALL optimize(\'orders\')');
    assert.deepEqual(await agg(), expected);

    const files = await client.query(`SELECT file_path FROM "orders$files"`);
    assert.ok(files.rows.length > 0);
    const inBucket = new Set(await dataFiles());
    for (const r of files.rows as { file_path: string }[]) assert.ok(inBucket.has(r.file_path), `${r.file_path} is not in the bucket`);
    // The state directory holds the catalog, not data.
    assert.ok(existsSync(join(stateDir, 'catalog.db')));
    assert.ok(!existsSync(join(stateDir, 'data')), `local data files: ${existsSync(join(stateDir, 'data')) ? readdirSync(join(stateDir, 'data')) : ''}`);
  });

  test('under injected faults, statements succeed or fail with 58030, and what was acknowledged is exactly what is read', async () => {
    await client.query('CREATE TABLE events (id int PRIMARY KEY, v text)');
    const acknowledged = new Set<number>();
    const failed: string[] = [];
    proxy.setRandomFaults({ rate: 0.25, kinds: ['server-error', 'reset-before', 'reset-after', 'truncate', 'slow', 'corrupt-request'] });
    try {
      for (let id = 1; id <= 40; id++) {
        try {
          await client.query('INSERT INTO events VALUES ($1, $2)', [id, `v${id}`]);
          acknowledged.add(id);
        } catch (e) {
          assert.equal((e as { code?: string }).code, '58030', String(e));
          failed.push(String(e));
        }
        if (id % 10 === 0) {
          try {
            const r = await client.query('SELECT id FROM events ORDER BY id');
            assert.deepEqual(r.rows.map((x: { id: number }) => x.id), [...acknowledged].sort((a, b) => a - b));
          } catch (e) {
            if (e instanceof assert.AssertionError) throw e;
            assert.equal((e as { code?: string }).code, '58030', String(e));
          }
        }
      }
    } finally {
      proxy.setRandomFaults(undefined);
    }
    assert.ok(proxy.faultsMet.size >= 3, `faults met: ${[...proxy.faultsMet]}`);
    assert.ok(acknowledged.size >= 30, `only ${acknowledged.size} of 40 commits passed: ${failed.join('\n')}`);
    const r = await client.query('SELECT id, v FROM events ORDER BY id');
    assert.deepEqual(r.rows, [...acknowledged].sort((a, b) => a - b).map((id) => ({ id, v: `v${id}` })));
    const inBucket = new Set(await dataFiles());
    for (const f of (await client.query(`SELECT file_path FROM "events$files"`)).rows as { file_path: string }[]) {
      assert.ok(inBucket.has(f.file_path), `acknowledged file ${f.file_path} is not in the bucket`);
    }
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
