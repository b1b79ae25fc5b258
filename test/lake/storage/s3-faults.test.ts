import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RangeCache } from '../../../src/lake/storage/range-cache.js';
import { S3Storage } from '../../../src/lake/storage/s3-storage.js';
import type { S3StorageConfig } from '../../../src/lake/storage/storage-config.js';
import { startFaultyHttpProxy } from '../../harness/faulty-http-proxy.js';
import type { FaultyHttpProxy, HttpFault } from '../../harness/faulty-http-proxy.js';
import { S3RVER_ENV, startS3Server } from '../../harness/s3-server.js';
import type { S3Server } from '../../harness/s3-server.js';

/** Quick retries, so a test of six attempts takes milliseconds; the waits are still jittered. */
const FAST_RETRY = { attempts: 6, baseMs: 5, capMs: 40 };

describe('S3 storage under injected faults (s3rver behind a faulty proxy)', () => {
  let s3: S3Server;
  let proxy: FaultyHttpProxy;
  const cacheDirs: string[] = [];
  let n = 0;
  before(async () => {
    Object.assign(process.env, S3RVER_ENV);
    s3 = await startS3Server(['faults']);
    proxy = await startFaultyHttpProxy(s3.port);
  });
  after(async () => {
    await proxy.stop();
    await s3.stop();
    for (const d of cacheDirs) rmSync(d, { recursive: true, force: true });
  });

  const storage = (extra: Partial<S3StorageConfig> = {}) => new S3Storage(
    { kind: 's3', bucket: 'faults', prefix: `t${n++}`, endpoint: proxy.endpoint, pathStyle: true, requestTimeoutMs: 1500, ...extra },
    { retry: FAST_RETRY },
  );

  const kinds: HttpFault[] = ['server-error', 'reset-before', 'reset-after', 'truncate', 'stall', 'slow', 'corrupt-request'];
  for (const kind of kinds) {
    test(`one "${kind}" on each request kind is retried, and the bytes are exact`, async () => {
      proxy.setRandomFaults(undefined);
      const s = storage();
      const bytes = randomBytes(50_000);
      const met = proxy.faultsMet.get(kind) ?? 0;
      proxy.failNext(kind);
      await s.put('data/1/f.parquet', bytes);
      proxy.failNext(kind);
      assert.ok(Buffer.from(await s.get('data/1/f.parquet')).equals(bytes));
      proxy.failNext(kind);
      assert.ok(Buffer.from(await s.getRange('data/1/f.parquet', 777, 20_000)).equals(bytes.subarray(777, 20_777)));
      proxy.failNext(kind);
      assert.deepEqual((await s.list('data/1/')).map((f) => [f.key, f.size]), [['data/1/f.parquet', 50_000]]);
      proxy.failNext(kind);
      await s.delete('data/1/f.parquet');
      assert.deepEqual(await s.list('data/1/'), []);
      assert.equal(proxy.faultsMet.get(kind), met + 5);
    });
  }

  test('a failure that does not pass is 58030 after the last attempt, not a hang or a wrong answer', async () => {
    const s = storage();
    proxy.setRandomFaults(undefined);
    await s.put('data/2/g.parquet', randomBytes(1000));
    proxy.setRandomFaults({ rate: 1, kinds: ['server-error', 'reset-before'] });
    try {
      const started = Date.now();
      await assert.rejects(s.getRange('data/2/g.parquet', 0, 100), (e: { sqlstate?: string; message: string }) =>
        e.sqlstate === '58030' && /could not read data file "data\/2\/g\.parquet": .*\(after 6 attempts\)/.test(e.message));
      await assert.rejects(s.put('data/2/h.parquet', randomBytes(1000)), (e: { sqlstate?: string; message: string }) =>
        e.sqlstate === '58030' && /could not write data file "data\/2\/h\.parquet"/.test(e.message));
      assert.ok(Date.now() - started < 10_000);
    } finally {
      proxy.setRandomFaults(undefined);
    }
    // A 404 is not worth retrying: one request, and the missing-file error.
    const before = proxy.requests;
    await assert.rejects(s.get('data/2/none.parquet'), (e: { sqlstate?: string; message: string }) => e.sqlstate === '58030' && /file is missing/.test(e.message));
    assert.equal(proxy.requests - before, 1);
  });

  test('under random faults every read is exact or 58030, and every put that resolved is readable', async () => {
    const s = storage();
    proxy.setRandomFaults({ rate: 0.3, kinds });
    const written = new Map<string, Buffer>();
    let failures = 0;
    try {
      for (let i = 0; i < 30; i++) {
        const key = `data/3/${i}.parquet`;
        const bytes = randomBytes(1000 + i * 997);
        try {
          await s.put(key, bytes);
          written.set(key, bytes);
        } catch (e) {
          assert.equal((e as { sqlstate?: string }).sqlstate, '58030', String(e));
          failures++;
        }
      }
      for (const [key, bytes] of written) {
        try {
          assert.ok(Buffer.from(await s.getRange(key, 100, 500)).equals(bytes.subarray(100, 600)), key);
        } catch (e) {
          if (e instanceof assert.AssertionError) throw e;
          assert.equal((e as { sqlstate?: string }).sqlstate, '58030', String(e));
          failures++;
        }
      }
    } finally {
      proxy.setRandomFaults(undefined);
    }
    assert.ok(written.size >= 25, `only ${written.size} of 30 puts passed (${failures} failures)`);
    for (const [key, bytes] of written) assert.ok(Buffer.from(await s.get(key)).equals(bytes), key);
  });

  test('the range cache answers a range read before without a request, and keeps to its bound', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'floe-s3-cache-'));
    cacheDirs.push(cacheDir);
    const s = storage({ cacheDir, cacheBytes: 400_000 });
    const bytes = randomBytes(200_000);
    await s.put('data/4/c.parquet', bytes);
    const first = await s.getRange('data/4/c.parquet', 1000, 40_000);
    const before = proxy.requests;
    const again = await s.getRange('data/4/c.parquet', 1000, 40_000);
    assert.equal(proxy.requests, before, 'a cached range costs no request');
    assert.ok(Buffer.from(again).equals(Buffer.from(first)));
    assert.ok(Buffer.from(again).equals(bytes.subarray(1000, 41_000)));
    // Forty more ranges of 40 kB (1.6 MB) through a 400 kB cache.
    for (let i = 0; i < 40; i++) await s.getRange('data/4/c.parquet', i * 4000, 40_000);
    const sizes = () => readdirSync(cacheDir).flatMap((d) => readdirSync(join(cacheDir, d)).map((f) => statSync(join(cacheDir, d, f)).size));
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    // Sweeps run in the background as writes pass an eighth of the bound: far less than the
    // 1.6 MB written stays (the bound holds up to what was written since the last sweep began).
    assert.ok(sum(sizes()) < 1_000_000, `cache holds ${sum(sizes())} bytes: no sweep ran`);
    // A sweep by any user of the directory (another thread's cache) brings it under the bound.
    await new RangeCache(cacheDir, 400_000).sweep();
    assert.ok(sum(sizes()) <= 400_000, `cache holds ${sum(sizes())} bytes after a sweep`);
    assert.ok(sizes().length >= 5, `cache holds only ${sizes().length} ranges`);
  });
});
