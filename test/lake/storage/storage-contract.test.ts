import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalStorage } from '../../../src/lake/storage/local-storage.js';
import { MULTIPART_THRESHOLD, S3Storage } from '../../../src/lake/storage/s3-storage.js';
import type { Storage } from '../../../src/lake/storage/storage.js';
import { S3RVER_ENV, startS3Server } from '../../harness/s3-server.js';
import type { S3Server } from '../../harness/s3-server.js';

/**
 * The Storage contract, run against every backend: what the lake relies on (durable put,
 * exact ranges, lazy blobs, directory-like listing, idempotent delete, 58030 for a missing
 * object) must hold on local disk and on S3 alike.
 */
function contract(name: string, open: () => Storage) {
  describe(`Storage contract: ${name}`, () => {
    test('put then get, getRange and openBlob return the same bytes', async () => {
      const s = open();
      const bytes = randomBytes(100_000);
      await s.put('data/1/a.parquet', bytes);
      assert.deepEqual(Buffer.from(await s.get('data/1/a.parquet')), bytes);
      assert.deepEqual(Buffer.from(await s.getRange('data/1/a.parquet', 1000, 500)), bytes.subarray(1000, 1500));
      // A range past the end returns what there is.
      assert.deepEqual(Buffer.from(await s.getRange('data/1/a.parquet', 99_990, 100)), bytes.subarray(99_990));
      assert.equal((await s.getRange('data/1/a.parquet', 100_000, 10)).length, 0);
      const blob = await s.openBlob!('data/1/a.parquet');
      assert.equal(blob.size, 100_000);
      const tail = blob.slice(-8);
      assert.equal(tail.size, 8);
      assert.deepEqual(Buffer.from(await tail.arrayBuffer()), bytes.subarray(99_992));
      const mid = blob.slice(10, 20).slice(2, 5);
      const into = new Uint8Array(3);
      await mid.readInto!(into);
      assert.deepEqual(Buffer.from(into), bytes.subarray(12, 15));
    });

    test('a missing object is 58030 naming the key, on every read path', async () => {
      const s = open();
      for (const read of [() => s.get('data/9/none.parquet'), () => s.openBlob!('data/9/none.parquet')]) {
        await assert.rejects(read(), (e: { sqlstate?: string; message: string }) => e.sqlstate === '58030' && /data\/9\/none\.parquet/.test(e.message));
      }
    });

    test('list names a directory: its keys with sizes and times, not a sibling sharing the prefix', async () => {
      const s = open();
      const before = BigInt(Date.now() - 60_000) * 1000n;
      await s.put('data/2/x.parquet', new Uint8Array(10));
      await s.put('data/2/sub/y.parquet', new Uint8Array(20));
      await s.put('data/22/z.parquet', new Uint8Array(30));
      const listed = (await s.list('data/2/')).sort((a, b) => a.key.localeCompare(b.key));
      assert.deepEqual(listed.map((f) => [f.key, f.size]), [['data/2/sub/y.parquet', 20], ['data/2/x.parquet', 10]]);
      for (const f of listed) assert.ok(f.modifiedMicros > before, `${f.key} modified ${f.modifiedMicros}`);
      assert.deepEqual((await s.list('data/2')).map((f) => f.key).sort(), ['data/2/sub/y.parquet', 'data/2/x.parquet']);
      assert.deepEqual(await s.list('data/404/'), []);
    });

    test('delete removes the object, and deleting a missing one is no error', async () => {
      const s = open();
      await s.put('data/3/d.parquet', new Uint8Array([1, 2, 3]));
      await s.delete('data/3/d.parquet');
      await s.delete('data/3/d.parquet');
      await assert.rejects(s.get('data/3/d.parquet'), { sqlstate: '58030' });
      assert.deepEqual(await s.list('data/3/'), []);
    });

    test('keys that climb out of the store are refused', async () => {
      const s = open();
      await assert.rejects(s.put('../escape.parquet', new Uint8Array(1)), { sqlstate: '22023' });
    });

    test('an object past the multipart threshold is stored whole', async () => {
      const s = open();
      const big = randomBytes(MULTIPART_THRESHOLD + 1_234_567);
      await s.put('data/4/big.parquet', big);
      const back = await s.get('data/4/big.parquet');
      assert.equal(back.length, big.length);
      assert.ok(Buffer.from(back).equals(big));
    });
  });
}

const localRoot = mkdtempSync(join(tmpdir(), 'floe-storage-local-'));
after(() => rmSync(localRoot, { recursive: true, force: true }));
contract('local disk', () => new LocalStorage(localRoot));

// Local disk only: s3rver's own file store throws (uncaught) when a LIST reads an object a DELETE
// is removing, which S3 itself lists consistently.
test('local disk: a list while objects are put and deleted beside it fails on nothing and names only objects that were there', async () => {
  const s = new LocalStorage(localRoot);
  const keys = Array.from({ length: 40 }, (_, i) => `data/5/f${i}.parquet`);
  for (const k of keys.slice(0, 20)) await s.put(k, new Uint8Array(8));
  let churning = true;
  const churn = (async () => {
    for (let round = 0; churning; round++) {
      await Promise.all(keys.map((k, i) => ((i + round) % 2 === 0 ? s.put(k, new Uint8Array(8)) : s.delete(k))));
    }
  })();
  try {
    for (let i = 0; i < 30; i++) {
      for (const f of await s.list('data/5/')) {
        assert.ok(keys.includes(f.key) || f.key.startsWith('data/5/.tmp-'), `listed ${f.key}`);
      }
    }
  } finally {
    churning = false;
    await churn;
  }
});

let s3: S3Server;
before(async () => {
  Object.assign(process.env, S3RVER_ENV);
  s3 = await startS3Server(['contract']);
});
after(async () => { await s3.stop(); });
contract('S3 (s3rver)', () => new S3Storage({ kind: 's3', bucket: 'contract', prefix: 'wh/one', endpoint: s3.endpoint, pathStyle: true }));
