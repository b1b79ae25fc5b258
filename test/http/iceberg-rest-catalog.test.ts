import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { DuckDBInstance } from '@duckdb/node-api';
import { IcebergError, IcebergRestCatalog } from 'iceberg-js';
import { addLoginRoles } from '../harness/login-roles.js';
import { LocalStorage } from '../../src/lake/storage/local-storage.js';
import { startFloe, type FloeServer } from '../harness/floe-server.js';
import { readNewestMetadata, snapshotFiles, type Json } from '../lake/iceberg/read-iceberg.js';

/**
 * The read-only Iceberg REST catalog under /iceberg on `floe serve`'s HTTP port, through an
 * independent client (iceberg-js): namespaces and tables as the wire shows them, loadTable
 * answering the metadata file the gateway wrote (its Avro files checked against the spec,
 * its data files read by DuckDB as Floe reads the table), the spec's error bodies, the wire's
 * users, and writes refused.
 */
describe('Iceberg REST catalog', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'floe-iceberg-rest-'));
  let server: FloeServer;
  let client: pg.Client;
  let base: string;
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const catalogAs = (user: string, password: string) => new IcebergRestCatalog({
    baseUrl: `${base}/iceberg`, auth: { type: 'header', name: 'Authorization', value: basic(user, password) },
  });
  // The test reads the warehouse's files as any file-system Iceberg reader would.
  const files = new LocalStorage(dataDir);
  const keyOf = (uri: string) => relative(dataDir, fileURLToPath(uri)).split('\\').join('/');

  before(async () => {
    server = await startFloe({ dataDir, args: ['--optimizer-threads', '0', '--http-auth', 'always'] });
    await addLoginRoles(server, [{ name: 'alice', password: 'alice-pw' }, { name: 'bob', password: 'bob-pw' }]);
    base = `http://127.0.0.1:${server.httpPort}`;
    client = new pg.Client({ connectionString: server.url });
    await client.connect();
    // alice reads everything, as a reporting role would; bob is granted one table and nothing else.
    await client.query('GRANT pg_read_all_data TO alice');
    await client.query('CREATE SCHEMA sales');
    await client.query('CREATE TABLE sales.orders (id int PRIMARY KEY, item text, qty int)');
    await client.query(`INSERT INTO sales.orders SELECT g, 'item ' || g, g % 7 FROM generate_series(1, 40) g`);
    await client.query(`CALL optimize('sales.orders')`);
    await client.query('CREATE TABLE public.events (at timestamptz, kind text)');
  });
  after(async () => {
    await client?.end().catch(() => undefined);
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** loadTable until the gateway's metadata service (a poll a second) has written what `ready` wants. */
  async function loadWhen(catalog: IcebergRestCatalog, namespace: string, name: string, ready: (m: Json) => boolean): Promise<Json> {
    const until = Date.now() + 30_000;
    for (;;) {
      try {
        const m = await catalog.loadTable({ namespace: [namespace], name }) as unknown as Json;
        if (ready(m)) return m;
      } catch (e) {
        // 404 until the first version is written.
        if (!(e instanceof IcebergError && e.status === 404) || Date.now() > until) throw e;
      }
      if (Date.now() > until) assert.fail(`the metadata of ${namespace}.${name} did not become ready`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const currentSnapshot = (m: Json): Json | undefined => (m['snapshots'] as Json[]).find((s) => s['snapshot-id'] === m['current-snapshot-id']);

  /**
   * loadTable until its current snapshot is the table's head on main. The metadata service may
   * have written a version for an earlier commit (the insert before its optimize: the same row
   * count, but change files and equality deletes) and not yet one for the head.
   */
  async function loadHead(catalog: IcebergRestCatalog): Promise<Json> {
    const head = String((await client.query(`SELECT snapshot_id FROM sales.orders$branches WHERE branch_name = 'main'`)).rows[0].snapshot_id);
    return loadWhen(catalog, 'sales', 'orders', (m) => currentSnapshot(m)?.['summary']['floe.snapshot-id'] === head);
  }

  test('namespaces and tables are the schemas and tables the wire shows', async () => {
    const catalog = catalogAs('alice', 'alice-pw');
    const namespaces = (await catalog.listNamespaces()).namespaces.map((n) => n.namespace);
    const schemas = (await client.query(`SELECT nspname FROM pg_namespace WHERE nspname IN ('public', 'sales') ORDER BY 1`)).rows.map((r) => [r.nspname]);
    for (const s of schemas) assert.ok(namespaces.some((n) => JSON.stringify(n) === JSON.stringify(s)), `namespace ${s} listed`);
    assert.deepEqual((await catalog.listTables({ namespace: ['sales'] })).identifiers, [{ namespace: ['sales'], name: 'orders' }]);
    assert.ok((await catalog.listTables({ namespace: ['public'] })).identifiers.some((t) => t.name === 'events'));
    assert.equal(await catalog.namespaceExists({ namespace: ['sales'] }), true);
    assert.equal(await catalog.namespaceExists({ namespace: ['nosuch'] }), false);
    assert.equal(await catalog.tableExists({ namespace: ['sales'], name: 'orders' }), true);
    assert.equal(await catalog.tableExists({ namespace: ['sales'], name: 'nosuch' }), false);
    const config = await fetch(`${base}/iceberg/v1/config`, { headers: { authorization: basic('alice', 'alice-pw') } });
    assert.equal(config.status, 200);
    assert.deepEqual(await config.json(), { defaults: {}, overrides: {} });
  });

  test('loadTable answers the newest metadata file; its files, read by DuckDB, are the rows Floe returns', async () => {
    const catalog = catalogAs('alice', 'alice-pw');
    const metadata = await loadHead(catalog);
    assert.equal(currentSnapshot(metadata)!['summary']['total-records'], '40');
    assert.equal(currentSnapshot(metadata)!['summary']['total-equality-deletes'], '0', 'the optimize left no change files');
    const oid = Number((await client.query(`SELECT 'sales.orders'::regclass::oid AS oid`)).rows[0].oid);
    // The same document and location the metadata directory holds (its required v2 fields checked there).
    const newest = await readNewestMetadata(files, oid);
    const result = await catalog.loadTableResult({ namespace: ['sales'], name: 'orders' });
    assert.ok(result !== null && result.etag !== null);
    const raw = result as unknown as Json;
    assert.deepEqual(raw['metadata'], newest.json);
    assert.deepEqual(metadata, newest.json);
    assert.equal(keyOf(raw['metadata-location'] as string), `iceberg/${oid}/metadata/v${newest.version}.metadata.json`);
    // A conditional GET of the unchanged table: 304, which the client answers as null.
    assert.equal(await catalog.loadTable({ namespace: ['sales'], name: 'orders' }, { ifNoneMatch: result.etag }), null);
    assert.deepEqual(raw['config'], {});
    const schema = (metadata['schemas'] as Json[]).find((s) => s['schema-id'] === metadata['current-schema-id'])!;
    // Every field optional, the key too (iceberg-schema.ts says why).
    assert.deepEqual((schema['fields'] as Json[]).map((f) => [f['name'], f['type'], f['required']]), [['id', 'int', false], ['item', 'string', false], ['qty', 'int', false]]);

    const entries = await snapshotFiles(files, keyOf, metadata, metadata['current-snapshot-id'] as number);
    assert.ok(entries.length > 0);
    const mapping = JSON.parse(metadata['properties']['schema.name-mapping.default'] as string) as { 'field-id': number; names: string[] }[];
    const column = (name: string) => mapping.find((m) => m['field-id'] === (schema['fields'] as Json[]).find((f) => f['name'] === name)!['id'])!.names[0];
    const list = entries.map((e) => `'${fileURLToPath(e.dataFile['file_path'] as string).replace(/'/g, "''")}'`).join(', ');
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      const read = await duck.runAndReadAll(`SELECT "${column('id')}" AS id, "${column('item')}" AS item, "${column('qty')}" AS qty FROM read_parquet([${list}]) ORDER BY 1`);
      const floe = (await client.query('SELECT id, item, qty FROM sales.orders ORDER BY id')).rows;
      assert.equal(floe.length, 40);
      assert.deepEqual(read.getRowObjectsJS(), floe);
    } finally {
      duck.closeSync();
    }
  });

  test('a later optimize shows in the next loadTable as a new current snapshot', async () => {
    const catalog = catalogAs('alice', 'alice-pw');
    const before = await loadHead(catalog);
    await client.query(`INSERT INTO sales.orders VALUES (41, 'item 41', 1) ON CONFLICT (id) DO UPDATE SET item = EXCLUDED.item, qty = EXCLUDED.qty`);
    await client.query(`DELETE FROM sales.orders WHERE id = 1`);
    await client.query(`CALL optimize('sales.orders')`);
    const later = await loadHead(catalog);
    assert.notEqual(later['current-snapshot-id'], before['current-snapshot-id']);
    assert.ok((later['last-sequence-number'] as number) > (before['last-sequence-number'] as number));
    assert.equal(currentSnapshot(later)!['summary']['total-records'], '40');
  });

  test('privileges and row security: a caller lists and loads only what it may read whole', async () => {
    const bob = catalogAs('bob', 'bob-pw');
    const forbidden = async (p: Promise<unknown>) => {
      await assert.rejects(p, (e: unknown) => e instanceof IcebergError && e.status === 403 && e.icebergType === 'ForbiddenException');
    };
    // No USAGE on sales, no SELECT on orders: the table is neither listed nor loadable.
    assert.deepEqual((await bob.listTables({ namespace: ['sales'] })).identifiers, []);
    await forbidden(bob.loadTable({ namespace: ['sales'], name: 'orders' }));
    await client.query('GRANT USAGE ON SCHEMA sales TO bob');
    await client.query('GRANT SELECT ON sales.orders TO bob');
    assert.deepEqual((await bob.listTables({ namespace: ['sales'] })).identifiers.map((t) => t.name), ['orders']);
    await loadWhen(bob, 'sales', 'orders', () => true);
    // Row security that applies to bob: files cannot be filtered, so the table is refused, not handed over whole.
    await client.query('ALTER TABLE sales.orders ENABLE ROW LEVEL SECURITY');
    await client.query('CREATE POLICY small ON sales.orders USING (qty < 3)');
    await forbidden(bob.loadTable({ namespace: ['sales'], name: 'orders' }));
    await client.query('ALTER TABLE sales.orders DISABLE ROW LEVEL SECURITY');
  });

  test('errors follow the spec: 404 NoSuchTable/NoSuchNamespace, 401 NotAuthorized, 406 for writes', async () => {
    const alice = catalogAs('alice', 'alice-pw');
    const rejects = async (p: Promise<unknown>, status: number, type: string) => {
      await assert.rejects(p, (e: unknown) => {
        assert.ok(e instanceof IcebergError, String(e));
        assert.equal(e.status, status);
        assert.equal(e.icebergType, type);
        return true;
      });
    };
    await rejects(alice.loadTable({ namespace: ['sales'], name: 'nosuch' }), 404, 'NoSuchTableException');
    await rejects(alice.listTables({ namespace: ['nosuch'] }), 404, 'NoSuchNamespaceException');
    await rejects(alice.loadTable({ namespace: ['nosuch'], name: 'orders' }), 404, 'NoSuchNamespaceException');
    await rejects(catalogAs('alice', 'wrong').listNamespaces(), 401, 'NotAuthorizedException');
    await rejects(catalogAs('alice', 'wrong').loadTable({ namespace: ['sales'], name: 'orders' }), 401, 'NotAuthorizedException');
    await rejects(catalogAs('mallory', 'alice-pw').listNamespaces(), 401, 'NotAuthorizedException');
    const anonymous = await fetch(`${base}/iceberg/v1/namespaces`);
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Basic /);
    assert.deepEqual(((await anonymous.json()) as Json)['error']['code'], 401);
    await rejects(alice.createNamespace({ namespace: ['made'] }), 406, 'UnsupportedOperationException');
    await rejects(alice.dropTable({ namespace: ['sales'], name: 'orders' }), 406, 'UnsupportedOperationException');
    await rejects(alice.createTable({ namespace: ['sales'] }, {
      name: 'made', schema: { type: 'struct', fields: [{ id: 1, name: 'a', type: 'int', required: false }], 'schema-id': 0 },
    } as never), 406, 'UnsupportedOperationException');
    // Nothing was made or dropped.
    assert.equal((await client.query(`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'made'`)).rows[0].n, 0);
    assert.equal((await client.query('SELECT count(*)::int AS n FROM sales.orders')).rows[0].n, 40);
    const unknown = await fetch(`${base}/iceberg/v1/views`, { headers: { authorization: basic('alice', 'alice-pw') } });
    assert.equal(unknown.status, 400);
    assert.equal(((await unknown.json()) as Json)['error']['type'], 'BadRequestException');
  });
});
