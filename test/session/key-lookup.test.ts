import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse } from '../../src/lake/index.js';
import type { Warehouse } from '../../src/lake/index.js';
import { createScanPool, KEY_LOOKUP_MAX_KEYS } from '../../src/exec/index.js';
import type { ScanPool } from '../../src/exec/index.js';
import { createFloeSession } from '../../src/session/index.js';
import { loadSqlParser } from '../../src/sql/index.js';
import { createSystemCatalog, registerCatalogFunctions } from '../../src/sql/system-catalog/index.js';

/**
 * Key lookups (exec/operators/key-lookup.ts): a hash join whose build keys give a probe-side
 * scan's whole primary key hands the scan its build keys, and the lake reads only their
 * rows' nodes and row groups. Every query here must answer as with runtime filters off
 * (no lookup, no filter), on scan workers and in the session's thread, with pending
 * changes, NULL and absent keys, int8 keys against int4 columns, text keys, a join nested
 * under another, and a build too large to look up.
 */

const dir = mkdtempSync(join(tmpdir(), 'floe-key-lookup-'));
let warehouse: Warehouse;
let pool: ScanPool;
type Run = (sql: string) => Promise<string[]>;
let pooled: Run;
let local: Run;

async function session(processId: number, scanPool?: ScanPool): Promise<Run> {
  const s = createFloeSession({
    warehouse, catalog: createSystemCatalog(), ...(scanPool === undefined ? {} : { scanPool }),
    startup: { user: 'floe', database: 'floe', parameters: {}, remoteAddress: '127.0.0.1', processId },
  });
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  return async (sql) => {
    const out: string[] = [];
    for await (const r of s.simpleQuery(sql, new AbortController().signal)) {
      if (r.kind !== 'rows') continue;
      for await (const b of r.batches) {
        for (let i = 0; i < b.numRows; i++) out.push(b.columns.map((c) => String(c.get(i))).join('|'));
      }
    }
    return out;
  };
}

before(async () => {
  await loadSqlParser();
  registerCatalogFunctions();
  warehouse = await openWarehouse({ path: dir });
  pool = createScanPool({ threads: 2 });
  pooled = await session(11, pool);
  local = await session(12);
  // 60,000 customers in two optimized row groups, then pending updates, deletes and inserts.
  await local("CREATE TABLE cust (w integer, d integer, id integer, state text, PRIMARY KEY (w, d, id)) WITH ('self-optimizing.enabled' = 'false')");
  await local('INSERT INTO cust SELECT g % 2, (g / 2) % 10, g / 20, \'s\' || (g % 7) FROM generate_series(0, 59999) g');
  await local("CALL optimize('cust')");
  await local("UPDATE cust SET state = 'moved' WHERE id % 97 = 0");
  await local('DELETE FROM cust WHERE id % 89 = 0');
  await local("INSERT INTO cust VALUES (5, 0, 1, 'new'), (5, 0, 2, 'new')");
  // A changed order's customer keys: duplicates, NULLs, absent and deleted customers, int8 ids.
  await local('CREATE TABLE delta (w integer, d integer, c bigint, amount integer)');
  await local(`INSERT INTO delta VALUES (0, 0, 0, 1), (1, 3, 97, 2), (1, 3, 97, 3), (0, 4, 89, 4), (1, 9, 2999, 5),
    (NULL, 1, 5, 6), (0, NULL, 5, 7), (0, 1, NULL, 8), (7, 7, 7, 9), (5, 0, 2, 10), (0, 2, 1500, 11), (1, 5, 194, 12)`);
  await local('CREATE TABLE orders (ow integer, od integer, oid integer, oc integer, PRIMARY KEY (ow, od, oid))');
  await local('INSERT INTO orders SELECT g % 2, g % 10, g, (g * 7) % 3000 FROM generate_series(0, 5999) g');
  await local('CREATE TABLE items (sku text PRIMARY KEY, price integer)');
  await local("INSERT INTO items SELECT 'sku-' || g, g FROM generate_series(1, 20000) g");
  await local('CREATE TABLE basket (sku varchar(20), qty integer)');
  await local("INSERT INTO basket VALUES ('sku-7', 1), ('sku-19999', 2), ('nope', 3), (NULL, 4), ('sku-7', 5)");
  await local('CREATE TABLE big_delta (w integer, d integer, c integer)');
  await local(`INSERT INTO big_delta SELECT g % 2, (g / 2) % 10, g / 20 FROM generate_series(0, ${KEY_LOOKUP_MAX_KEYS + 500}) g`);
});

after(async () => {
  await pool.close();
  await warehouse.close();
  rmSync(dir, { recursive: true, force: true });
});

const QUERIES = [
  'SELECT c.w, c.d, c.id, c.state, x.amount FROM delta x JOIN cust c ON c.w = x.w AND c.d = x.d AND c.id = x.c',
  'SELECT c.state, count(*) FROM delta x JOIN cust c ON c.w = x.w AND c.d = x.d AND c.id = x.c GROUP BY c.state',
  // The customer's key reached across the orders join's own keys.
  `SELECT o.oid, c.state FROM (SELECT * FROM orders WHERE oid < 40) o
     JOIN cust c ON c.w = o.ow AND c.d = o.od AND c.id = o.oc`,
  'SELECT x.amount, c.state FROM cust c JOIN delta x ON c.w = x.w AND c.d = x.d AND c.id = x.c WHERE c.state <> \'s3\'',
  'SELECT i.sku, i.price, b.qty FROM basket b JOIN items i ON i.sku = b.sku',
  'SELECT count(*), sum(c.id) FROM big_delta x JOIN cust c ON c.w = x.w AND c.d = x.d AND c.id = x.c',
];

test('joins answer as without key lookups, on scan workers and in the session thread', async () => {
  for (const q of QUERIES) {
    const off = (await pooled(`SET floe.runtime_filters = off; ${q}`)).sort();
    await pooled('RESET floe.runtime_filters');
    assert.ok(off.length > 0, q);
    // Twice: the second run reads row groups its thread has cached (found by key index from then on).
    for (let i = 0; i < 3; i++) {
      assert.deepEqual((await pooled(q)).sort(), off, `pooled, run ${i}: ${q}`);
      assert.deepEqual((await local(q)).sort(), off, `local, run ${i}: ${q}`);
    }
  }
});

test('EXPLAIN names the looked-up scan; EXPLAIN ANALYZE shows the keys and the row groups the lookup skipped', async () => {
  const q = QUERIES[0]!;
  const plan = (await pooled(`EXPLAIN ${q}`)).join('\n');
  assert.match(plan, new RegExp(`Key Lookups: cust \\(w, d, id\\), when the build has at most ${KEY_LOOKUP_MAX_KEYS.toLocaleString('en-US')} rows`), plan);
  const analyzed = (await pooled(`EXPLAIN ANALYZE ${q}`)).join('\n');
  // 12 build rows: two with the same key, three with a NULL.
  assert.match(analyzed, /Key Lookup: 8 keys/, analyzed);
  // One key is in one of the base file's two row groups (key-hash ranges).
  const one = (await pooled(`EXPLAIN ANALYZE ${q} WHERE x.amount = 1`)).join('\n');
  assert.match(one, /Key Lookup: 1 key\n/, one);
  assert.match(one, /Row Groups: \d+ read, 1 skipped \(min\/max 0, key hash 1\)/, one);
  const big = (await pooled(`EXPLAIN ANALYZE ${QUERIES[5]}`)).join('\n');
  assert.match(big, new RegExp(`Key Lookup: not applied \\(${(KEY_LOOKUP_MAX_KEYS + 501).toLocaleString('en-US')} build rows > ${KEY_LOOKUP_MAX_KEYS.toLocaleString('en-US')}\\)`), big);
  // Not every key column joined: no lookup.
  const partial = (await pooled('EXPLAIN SELECT c.state FROM delta x JOIN cust c ON c.w = x.w AND c.id = x.c')).join('\n');
  assert.doesNotMatch(partial, /Key Lookups/, partial);
});
