import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FloeError } from '../../src/common/floe-error.js';
import { openWarehouse } from '../../src/lake/index.js';
import { createFloeSession } from '../../src/session/index.js';
import { loadSqlParser } from '../../src/sql/index.js';
import { createSystemCatalog, registerCatalogFunctions } from '../../src/sql/system-catalog/index.js';
import type { SessionHandler, StatementResult } from '../../src/wire/session-handler.js';

let s: SessionHandler;

before(async () => {
  await loadSqlParser();
  registerCatalogFunctions();
  const warehouse = await openWarehouse({ path: mkdtempSync(join(tmpdir(), 'floe-rules-')) });
  s = createFloeSession({
    warehouse, catalog: createSystemCatalog(),
    startup: { user: 'floe', database: 'floe', parameters: {}, remoteAddress: '127.0.0.1', processId: 9 },
  });
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  await run('CREATE TABLE t (id integer PRIMARY KEY, v integer)');
  await run('INSERT INTO t SELECT g, g * 10 FROM generate_series(1, 50) g');
});

async function lines(r: StatementResult): Promise<string[]> {
  const out: string[] = [];
  if (r.kind === 'rows') for await (const b of r.batches) for (let i = 0; i < b.numRows; i++) out.push(String(b.columns[0]!.get(i)));
  return out;
}

async function run(sql: string): Promise<string[]> {
  const out: string[] = [];
  for await (const r of s.simpleQuery(sql, new AbortController().signal)) out.push(...await lines(r));
  return out;
}

const query = 'SELECT v FROM t WHERE id = 3';

test('SET floe.disabled_optimizer_rules reaches the planner: EXPLAIN and the rows follow it, RESET restores the rule', async () => {
  assert.match((await run(`EXPLAIN ${query}`)).join('\n'), /Pushed Filters: id = 3/);
  await run("SET floe.disabled_optimizer_rules = 'push-filter-into-scan, prune-columns'");
  const kept = (await run(`EXPLAIN ${query}`)).join('\n');
  assert.doesNotMatch(kept, /Pushed Filters/);
  assert.match(kept, /->  Filter/);
  assert.deepEqual(await run(query), ['30']);
  await run('RESET floe.disabled_optimizer_rules');
  assert.match((await run(`EXPLAIN ${query}`)).join('\n'), /Pushed Filters: id = 3/);
});

test('a prepared statement is planned again when the disabled rules change', async () => {
  const prepared = await s.prepare(`EXPLAIN ${query}`, []);
  const explain = async (): Promise<string> => (await lines(await (await s.bind(prepared, [])).execute(new AbortController().signal))).join('\n');
  assert.match(await explain(), /Pushed Filters/);
  await run("SET floe.disabled_optimizer_rules = 'push-filter-into-scan'");
  assert.doesNotMatch(await explain(), /Pushed Filters/);
  await run("SET floe.disabled_optimizer_rules = ''");
  assert.match(await explain(), /Pushed Filters/);
});

test('a name that is no rule is refused with 22023, as PostgreSQL refuses a bad parameter value', async () => {
  await assert.rejects(run("SET floe.disabled_optimizer_rules = 'push-filter-into-scan, no-such-rule'"), (e: unknown) =>
    e instanceof FloeError && e.sqlstate === '22023' && /no-such-rule/.test(e.detail ?? ''));
});

test('the physical rules are named too: disabling them leaves the planned shape (right input builds, no runtime filters, aggregates here), same rows', async () => {
  await run('CREATE TABLE u (id integer PRIMARY KEY, w integer)');
  await run('INSERT INTO u SELECT g, g FROM generate_series(1, 20) g');
  const join = 'SELECT t.v, u.w FROM t JOIN u ON u.id = t.id ORDER BY 1';
  const agg = 'SELECT v % 3, count(*) FROM t GROUP BY v % 3 ORDER BY 1';
  const planned = (await run(`EXPLAIN ${join}; EXPLAIN ${agg}`)).join('\n');
  assert.match(planned, /^\s+Build Side: /m);
  assert.match(planned, /Runtime Filters: /);
  assert.match(planned, /Aggregate In Workers: a partial aggregate per scan task/);
  const rows = [await run(join), await run(agg)];
  await run("SET floe.disabled_optimizer_rules = 'join-build-side, runtime-filter-targets, key-range-aggregate, aggregate-in-workers'");
  const plain = (await run(`EXPLAIN ${join}; EXPLAIN ${agg}`)).join('\n');
  assert.doesNotMatch(plain, /Build Side|Runtime Filters|Key Lookups|Aggregate In Workers/);
  assert.deepEqual([await run(join), await run(agg)], rows);
  await run('RESET floe.disabled_optimizer_rules');
});
