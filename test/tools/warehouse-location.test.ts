import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { warehouseLocation } from '../../src/tools/warehouse-location.js';

test('a local --data holds everything; S3 flags without s3:// are usage errors', () => {
  assert.deepEqual(warehouseLocation({ data: 'wh' }, 'usage'), { dir: resolve('wh'), storage: undefined, data: resolve('wh'), catalog: undefined, catalogShown: undefined });
  assert.deepEqual(warehouseLocation({}, 'usage').dir, resolve('./floe-data'));
  assert.throws(() => warehouseLocation({ data: 'wh', 's3-endpoint': 'http://x' }, 'usage'), /--s3-endpoint applies only to --data s3:\/\//);
  assert.throws(() => warehouseLocation({ data: 'gs://b/p' }, 'usage'), /--data must be a directory or s3:\/\/BUCKET\/PREFIX/);
});

test('--data s3:// names the bucket and prefix, with state, cache and timeout flags', () => {
  const loc = warehouseLocation({
    data: 's3://lake/a/b/', 'state-dir': 'st', 's3-endpoint': 'http://127.0.0.1:9000', 's3-path-style': true,
    's3-request-timeout': '2500', 'cache-size': '64MB',
  }, 'usage');
  assert.equal(loc.dir, resolve('st'));
  assert.deepEqual(loc.storage, {
    kind: 's3', logRoot: resolve('st'), bucket: 'lake', prefix: 'a/b', endpoint: 'http://127.0.0.1:9000', pathStyle: true, requestTimeoutMs: 2500,
    cacheDir: resolve('st/s3-cache'), cacheBytes: 64 * 1024 * 1024,
  });
  assert.deepEqual(warehouseLocation({ data: 's3://lake', 'cache-size': '0' }, 'usage').storage, { kind: 's3', logRoot: resolve('./floe-state'), bucket: 'lake', prefix: '' });
  assert.throws(() => warehouseLocation({ data: 's3://lake/x', 's3-request-timeout': 'soon' }, 'usage'), /--s3-request-timeout must be a whole number of milliseconds/);
  assert.throws(() => warehouseLocation({ data: 's3://lake/x', 'cache-size': 'lots' }, 'usage'), { sqlstate: '22023' });
});

test('--catalog postgres:// is the shared catalog; the start-up line shows it without its password', () => {
  const loc = warehouseLocation({ data: 's3://lake/w', catalog: 'postgres://floe:s3cret@db.example:5432/floe', 'catalog-schema': 'prod' }, 'usage');
  assert.deepEqual(loc.catalog, { kind: 'postgres', url: 'postgres://floe:s3cret@db.example:5432/floe', schema: 'prod' });
  assert.equal(loc.catalogShown, 'postgres://floe:***@db.example:5432/floe (schema prod)');
  assert.ok(!loc.catalogShown!.includes('s3cret'));
  assert.deepEqual(warehouseLocation({ data: 'wh', catalog: 'postgresql://127.0.0.1/floe' }, 'usage').catalog, { kind: 'postgres', url: 'postgresql://127.0.0.1/floe' });
  assert.throws(() => warehouseLocation({ data: 'wh', catalog: 'mysql://x/y' }, 'usage'), /--catalog must be a postgres:\/\/ URL, not "mysql:\/\/x\/y"/);
  assert.throws(() => warehouseLocation({ data: 'wh', catalog: 'not a url' }, 'usage'), /--catalog must be a postgres:\/\/ URL/);
  assert.throws(() => warehouseLocation({ data: 'wh', 'catalog-schema': 'x' }, 'usage'), /--catalog-schema applies only to --catalog postgres:\/\//);
});
