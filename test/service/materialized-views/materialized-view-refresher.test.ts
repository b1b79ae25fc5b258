import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse, type Warehouse } from '../../../src/lake/index.js';
import { MaterializedViewRefresher } from '../../../src/service/index.js';
import { createFloeSession } from '../../../src/session/index.js';
import { loadSqlParser } from '../../../src/sql/index.js';
import { createSystemCatalog, registerCatalogFunctions } from '../../../src/sql/system-catalog/index.js';
import type { SessionHandler } from '../../../src/wire/session-handler.js';

/*
 * The refresh service's choice of mode over its first refreshes of a view, on a real
 * warehouse with a fake clock and a runner that only records what it was asked (so the
 * view's lag never falls and every tick finds it due).
 */
let warehouse: Warehouse;
let s: SessionHandler;

async function run(sql: string): Promise<void> {
  for await (const r of s.simpleQuery(sql, new AbortController().signal)) {
    if (r.kind === 'rows') for await (const _ of r.batches) { /* drained */ }
  }
}

before(async () => {
  await loadSqlParser();
  registerCatalogFunctions();
  warehouse = await openWarehouse({ path: mkdtempSync(join(tmpdir(), 'floe-mv-refresher-')) });
  s = createFloeSession({
    warehouse, catalog: createSystemCatalog(),
    startup: { user: 'floe', database: 'floe', parameters: {}, remoteAddress: '127.0.0.1', processId: 9 },
  });
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  await run('CREATE TABLE t (id int PRIMARY KEY, g text, v int)');
  await run("INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2)");
});

/**
 * A refresher on the fake clock that records the modes it asks for of `view`. Each refresh is
 * reported as done in the mode asked: a full one in 1,000 ms, an incremental one (auto) in
 * none, so the measured costs never favour a full refresh. Started, its timer never fires:
 * the ticks `modes` runs are the only ones.
 */
function recordingRefresher(view: string): { refresher: MaterializedViewRefresher; modes: (ticks: number) => Promise<string[]> } {
  const asked: string[] = [];
  const far = BigInt(Date.now() + 3_600_000) * 1000n;
  const refresher = new MaterializedViewRefresher({
    warehouse,
    clock: { nowMicros: () => far, setTimer: () => () => undefined },
    run: async (v, mode) => {
      if (v.name === view) asked.push(mode);
      return mode === 'full' ? { mode: 'full', durationMs: 1000 } : { mode: 'incremental', durationMs: 0 };
    },
  });
  refresher.start();
  return {
    refresher,
    modes: async (ticks) => {
      for (let i = 0; i < ticks; i++) await refresher.tick();
      await refresher.stop();
      return asked;
    },
  };
}

describe('materialized view refresher', () => {
  test('a view populated by CREATE is refreshed incrementally: its creation measured a full refresh', async () => {
    await run("CREATE MATERIALIZED VIEW per_g WITH (freshness = '1 second') AS SELECT g, sum(v) AS total FROM t GROUP BY g");
    assert.equal(warehouse.getMaterializedView(warehouse.getTable('public', 'per_g')!.id)?.lastRefresh?.mode, 'full');
    await run("INSERT INTO t VALUES (3, 'a', 3)");
    assert.deepEqual(await recordingRefresher('per_g').modes(3), ['auto', 'auto', 'auto']);
  });

  test('a view the refresher saw before its population still starts from the population\'s cost', async () => {
    await run("CREATE MATERIALIZED VIEW per_g3 WITH (freshness = '1 second') AS SELECT g, max(v) AS top FROM t GROUP BY g WITH NO DATA");
    const { refresher, modes } = recordingRefresher('per_g3');
    // A tick while the view is created: nothing is due (no lag before it is populated), nothing is learnt.
    assert.equal(refresher.states().find((v) => v.tableId === warehouse.getTable('public', 'per_g3')!.id)?.lagMs, undefined);
    await run('REFRESH MATERIALIZED VIEW per_g3');
    await run("INSERT INTO t VALUES (6, 'a', 6)");
    assert.deepEqual(await modes(3), ['auto', 'auto', 'auto']);
  });

  test('a view last refreshed incrementally pays one full refresh to learn its cost, then takes the cheaper', async () => {
    await run("CREATE MATERIALIZED VIEW per_g2 WITH (freshness = '1 second') AS SELECT g, count(*) AS n FROM t GROUP BY g");
    await run("INSERT INTO t VALUES (4, 'b', 4)");
    await run('REFRESH MATERIALIZED VIEW per_g2');
    assert.equal(warehouse.getMaterializedView(warehouse.getTable('public', 'per_g2')!.id)?.lastRefresh?.mode, 'incremental');
    await run("INSERT INTO t VALUES (5, 'b', 5)");
    // Incremental known and full not: one full refresh to measure it; then the cheaper, incremental.
    assert.deepEqual(await recordingRefresher('per_g2').modes(3), ['full', 'auto', 'auto']);
  });
});
