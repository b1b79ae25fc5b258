import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Storage, openWarehouse } from '../../../src/lake/index.js';
import type { S3StorageConfig } from '../../../src/lake/index.js';
import { S3RVER_ENV, startS3Server } from '../../harness/s3-server.js';
import type { S3Server } from '../../harness/s3-server.js';
import { kvTable, upsertRows } from '../helpers/keyed-table.js';
import { readNewestMetadata, snapshotFiles } from './read-iceberg.js';

let s3: S3Server;
before(async () => {
  Object.assign(process.env, S3RVER_ENV);
  s3 = await startS3Server(['lake']);
});
after(async () => { await s3.stop(); });

test('data on S3: the metadata sits beside the data in the bucket, and every file path is an s3:// URI of an object that exists', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-iceberg-s3-'));
  const config: S3StorageConfig = { kind: 's3', bucket: 'lake', prefix: 'wh/one', endpoint: s3.endpoint, pathStyle: true };
  const wh = await openWarehouse({ path: dir, storage: config, log: false });
  try {
    const t = await kvTable(wh, 'kv');
    await upsertRows(wh, t, Array.from({ length: 30 }, (_, i) => ({ id: i, v: `v${i}` })));
    await wh.optimize(t, { kind: 'full' });
    assert.equal((await wh.exportIcebergMetadata(t)).kind, 'written');
    const storage = new S3Storage(config);
    const prefix = 's3://lake/wh/one/';
    const keyOf = (uri: string) => {
      assert.ok(uri.startsWith(prefix), `${uri} is under ${prefix}`);
      return uri.slice(prefix.length);
    };
    const { json } = await readNewestMetadata(storage, t.id);
    assert.equal(json['location'], `${prefix}iceberg/${t.id}`);
    const entries = await snapshotFiles(storage, keyOf, json, json['current-snapshot-id']);
    assert.ok(entries.length > 0);
    let rows = 0;
    for (const e of entries) {
      const key = keyOf(e.dataFile['file_path'] as string);
      assert.match(key, new RegExp(`^data/${t.id}/`));
      const bytes = await storage.get(key);
      assert.equal(bytes.length, Number(e.dataFile['file_size_in_bytes']), 'the object exists with the size the manifest says');
      assert.equal(new TextDecoder().decode(bytes.subarray(0, 4)), 'PAR1');
      rows += Number(e.dataFile['record_count']);
    }
    assert.equal(rows, 30);
  } finally {
    await wh.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
