import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FloeError } from '../../src/common/floe-error.js';
import { openWarehouse } from '../../src/lake/index.js';
import type { Warehouse } from '../../src/lake/index.js';
import { createFloeSession, parseMemorySetting } from '../../src/session/index.js';
import { loadSqlParser } from '../../src/sql/index.js';
import { createSystemCatalog, registerCatalogFunctions } from '../../src/sql/system-catalog/index.js';
import type { SessionHandler } from '../../src/wire/session-handler.js';

let warehouse: Warehouse;

before(async () => {
  await loadSqlParser();
  registerCatalogFunctions();
  warehouse = await openWarehouse({ path: mkdtempSync(join(tmpdir(), 'floe-memlimit-')) });
});

async function open(queryMemoryLimit?: string): Promise<SessionHandler> {
  const s = createFloeSession({
    warehouse, catalog: createSystemCatalog(), queryMemoryLimit,
    startup: { user: 'floe', database: 'floe', parameters: {}, remoteAddress: '127.0.0.1', processId: 7 },
  });
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  return s;
}

async function rows(s: SessionHandler, sql: string): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const r of s.simpleQuery(sql, new AbortController().signal)) {
    if (r.kind === 'rows') for await (const b of r.batches) for (let i = 0; i < b.numRows; i++) out.push(b.columns.map((c) => c.get(i)));
  }
  return out;
}

const sqlstate = (code: string) => (e: unknown) => e instanceof FloeError && e.sqlstate === code;
// A hash aggregate over 200k distinct text keys: several MB of working set.
const BIG_AGG = `SELECT count(*) FROM (SELECT md5(g::text) AS h FROM generate_series(1, 200000) g GROUP BY 1) s`;

test('parseMemorySetting reads PostgreSQL memory units, kB when none is given', () => {
  assert.equal(parseMemorySetting('x', '1GB'), 1024 ** 3);
  assert.equal(parseMemorySetting('x', '64MB'), 64 * 1024 ** 2);
  assert.equal(parseMemorySetting('x', '2048'), 2048 * 1024);
  assert.equal(parseMemorySetting('x', ' 1.5 GB '), 1.5 * 1024 ** 3);
  assert.throws(() => parseMemorySetting('x', '1gb'), sqlstate('22023'));
  assert.throws(() => parseMemorySetting('x', 'lots'), sqlstate('22023'));
  assert.throws(() => parseMemorySetting('x', '10kB'), sqlstate('22023'));
});

test('SET floe.query_memory_limit bounds the next query: 53200, then the session goes on', async () => {
  const s = await open();
  assert.deepEqual(await rows(s, 'SHOW floe.query_memory_limit'), [['1GB']]);
  await rows(s, `SET floe.query_memory_limit = '1MB'`);
  await assert.rejects(rows(s, BIG_AGG), sqlstate('53200'));
  await rows(s, 'RESET floe.query_memory_limit');
  assert.deepEqual(await rows(s, BIG_AGG), [[200000n]]);
  await assert.rejects(rows(s, `SET floe.query_memory_limit = 'plenty'`), sqlstate('22023'));
  assert.deepEqual(await rows(s, 'SHOW floe.query_memory_limit'), [['1GB']]);
});

test('the server default (floe serve --query-memory-limit) is the session default', async () => {
  const s = await open('1MB');
  assert.deepEqual(await rows(s, 'SHOW floe.query_memory_limit'), [['1MB']]);
  await assert.rejects(rows(s, BIG_AGG), sqlstate('53200'));
});

test('runtime filter settings are checked when SET: a Boolean and a key count (22023 otherwise)', async () => {
  const s = await open();
  await rows(s, 'SET floe.runtime_filters = off');
  assert.deepEqual(await rows(s, 'SHOW floe.runtime_filters'), [['off']]);
  await rows(s, "SET floe.runtime_filters = 'on'");
  await rows(s, 'SET floe.runtime_filter_max_keys = 5000');
  await assert.rejects(async () => rows(s, "SET floe.runtime_filters = 'sometimes'"), sqlstate('22023'));
  await assert.rejects(async () => rows(s, "SET floe.runtime_filter_max_keys = 'many'"), sqlstate('22023'));
  await assert.rejects(async () => rows(s, 'SET floe.runtime_filter_max_keys = -1'), sqlstate('22023'));
  assert.deepEqual(await rows(s, 'SHOW floe.runtime_filter_max_keys'), [['5000']]);
  // Back to the defaults without a value to check.
  await rows(s, 'SET floe.runtime_filters TO DEFAULT');
  await rows(s, 'SET floe.runtime_filter_max_keys TO DEFAULT');
  await rows(s, 'RESET floe.runtime_filters');
});
