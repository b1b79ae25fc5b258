/**
 * The commit log on an object store (object-commit-log.ts): each sync stores one object
 * named by its first LSN, concurrent syncs share a put, recovery reads the records back from
 * any LSN, truncation deletes whole objects, and a failed put ends the log. Run on local disk
 * and on a real S3 API server (s3rver), as the storage contract suite is.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Storage } from '../../../src/lake/index.js';
import { LocalStorage } from '../../../src/lake/storage/local-storage.js';
import type { Storage } from '../../../src/lake/storage/storage.js';
import { ObjectCommitLog, recoverObjectCommitLog } from '../../../src/lake/log/object-commit-log.js';
import type { RecoveredRecord } from '../../../src/lake/log/commit-log.js';
import { S3RVER_ENV, startS3Server } from '../../harness/s3-server.js';
import type { S3Server } from '../../harness/s3-server.js';

const WRITER = 'writer-1';

async function recovered(storage: Storage, fromLsn: bigint): Promise<RecoveredRecord[]> {
  const out: RecoveredRecord[] = [];
  for await (const r of recoverObjectCommitLog(storage, WRITER, fromLsn)) out.push(r);
  return out;
}

const text = (b: Uint8Array): string => Buffer.from(b).toString();

let s3: S3Server;
before(async () => {
  Object.assign(process.env, S3RVER_ENV);
  s3 = await startS3Server(['lake']);
});
after(async () => { await s3.stop(); });

const dirs: string[] = [];
after(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

const places: { name: string; open: () => Storage }[] = [
  {
    name: 'local disk',
    open: () => {
      const dir = mkdtempSync(join(tmpdir(), 'floe-objlog-'));
      dirs.push(dir);
      return new LocalStorage(dir);
    },
  },
  {
    name: 's3rver',
    open: () => new S3Storage({ kind: 's3', bucket: 'lake', prefix: `objlog-${Math.random().toString(36).slice(2)}`, endpoint: s3.endpoint, pathStyle: true }),
  },
];

for (const place of places) {
  describe(`the commit log as objects, on ${place.name}`, () => {
    test('every sync is one object starting where the last one ended; recovery reads the records from any LSN', async () => {
      const storage = place.open();
      const log = new ObjectCommitLog(storage, WRITER);
      const appended = [];
      // Ten rounds of one to three records, the records of a round synced together.
      for (let round = 0; round < 10; round++) {
        for (let i = 0; i <= round % 3; i++) {
          const at = log.append(i === 2 ? 'void' : 'commit', [Buffer.from(`r${round}.`), Buffer.from(`${i}`)]);
          appended.push({ ...at, kind: i === 2 ? 'void' : 'commit', text: `r${round}.${i}` });
        }
        await Promise.all([log.sync(), log.sync()]);
      }
      const objects = (await storage.list(`log/${WRITER}/`)).sort((a, b) => a.key.localeCompare(b.key));
      assert.equal(objects.length, 10, 'one object per round');
      let end = 0n;
      for (const o of objects) {
        assert.equal(o.key, `log/${WRITER}/${end.toString().padStart(20, '0')}.wal`);
        end += BigInt(o.size);
      }
      assert.equal(end, log.nextLsn);
      assert.deepEqual(log.segments().map((s) => s.key), objects.map((o) => o.key));

      const all = await recovered(storage, 0n);
      assert.deepEqual(all.map((r) => [r.kind, text(r.payload), r.lsn, r.end, r.segmentKey, r.payloadOffset]),
        appended.map((a) => [a.kind, a.text, a.lsn, a.end, a.segmentKey, a.payloadOffset]));
      // What a reader of a locator reads: the payload at its offset in the object.
      const third = appended[3]!;
      assert.equal(text(await storage.getRange(third.segmentKey, third.payloadOffset, third.text.length)), third.text);
      // From the middle of an object, and from exactly an object's end.
      assert.deepEqual((await recovered(storage, appended[4]!.lsn)).map((r) => r.lsn), appended.slice(4).map((a) => a.lsn));
      assert.deepEqual((await recovered(storage, log.nextLsn)).length, 0);

      // Truncation deletes whole objects that end at or below the LSN, and recovery past it still works.
      await log.truncateBelow(appended[5]!.lsn);
      const left = await storage.list(`log/${WRITER}/`);
      assert.ok(left.length < 10 && left.length > 0);
      assert.deepEqual((await recovered(storage, appended[5]!.lsn)).map((r) => r.lsn), appended.slice(5).map((a) => a.lsn));
      await log.close();
    });

    test('concurrent syncs share puts: at most one in flight, and every caller is covered by a put that began after its append', async () => {
      const storage = place.open();
      let inFlight = 0;
      let most = 0;
      let puts = 0;
      const counting: Storage = {
        ...storage,
        get: (k) => storage.get(k), getRange: (k, o, l) => storage.getRange(k, o, l), list: (p) => storage.list(p), delete: (k) => storage.delete(k),
        async put(key, bytes) {
          inFlight++;
          most = Math.max(most, inFlight);
          puts++;
          try { await storage.put(key, bytes); } finally { inFlight--; }
        },
      };
      const log = new ObjectCommitLog(counting, WRITER);
      const n = 40;
      await Promise.all(Array.from({ length: n }, async (_, i) => {
        await new Promise((r) => setTimeout(r, i % 7));
        log.append('commit', Buffer.from(`c${i}`));
        await log.sync();
      }));
      assert.equal(most, 1);
      assert.ok(puts < n, `${puts} puts for ${n} commits`);
      const back = await recovered(storage, 0n);
      assert.deepEqual(back.map((r) => text(r.payload)).sort(), Array.from({ length: n }, (_, i) => `c${i}`).sort());
    });

    test('a failed put ends the log: that sync and every later append fail with 58030, and recovery stops before the gap', async () => {
      const storage = place.open();
      let fail = false;
      const faulty: Storage = {
        ...storage,
        get: (k) => storage.get(k), getRange: (k, o, l) => storage.getRange(k, o, l), list: (p) => storage.list(p), delete: (k) => storage.delete(k),
        put: (key, bytes) => (fail ? Promise.reject(new Error('connection reset')) : storage.put(key, bytes)),
      };
      const log = new ObjectCommitLog(faulty, WRITER);
      log.append('commit', Buffer.from('kept'));
      await log.sync();
      fail = true;
      log.append('commit', Buffer.from('lost'));
      await assert.rejects(log.sync(), (e: Error & { sqlstate?: string }) => e.sqlstate === '58030' && /could not write to log object/.test(e.message));
      fail = false;
      assert.throws(() => log.append('commit', Buffer.from('after')), { sqlstate: '58030' });
      await assert.rejects(log.sync(), { sqlstate: '58030' });
      assert.deepEqual((await recovered(storage, 0n)).map((r) => text(r.payload)), ['kept']);
    });
  });
}
