/**
 * Materialized views against their own queries (issue 31): random histories of writes to
 * three keyed tables (upserts, inserts, updates of values and of keys, deletes, some in
 * transactions that commit or roll back; each table's changelog producer input or lookup,
 * and switched now and then, so refreshes read ΔR from change rows, by key, and across a
 * switch) interleaved with REFRESH MATERIALIZED VIEW of
 * views of every shape. After each refresh the view's rows must be exactly its query's rows
 * run fresh against the base tables (as multisets, values as wire text), and the catalog
 * must say the refresh was incremental for the shapes that allow it (so the test exercises
 * incremental maintenance, not a full recomputation that would pass anyway).
 *
 * Then one fixed history checks that an incremental refresh writes only the view rows that
 * change: the view's table_changes between the snapshots before and after the refresh are
 * exactly the rows that left and the rows that came.
 *
 * FLOE_MV_RUNS (default 8), FLOE_MV_STEPS (default 30) and FLOE_MV_SEED replay or widen the random part; FLOE_MV_NO_SHRINK=1
 * reports the first failing history as it is (shrinking one takes minutes).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type pg from 'pg';
import { startMvGateway, tempDataDir } from './mv-gateway.js';
import type { MvGateway } from './mv-gateway.js';
import {
  VIEWS, anyChangelogSwitch, anyChangelogs, anyWrite, assertViewMatches, createTablesSql, createViewSql, errorCode, initialRows, relationIds, rowsOf,
  viewRecords,
} from './mv-model.js';
import type { ViewDef } from './mv-model.js';

const RUNS = Number(process.env.FLOE_MV_RUNS ?? 8);
const SEED = process.env.FLOE_MV_SEED === undefined ? undefined : Number(process.env.FLOE_MV_SEED);
/** FLOE_MV_STEPS: the most steps a history has (longer ones reach states short ones do not). */
const MAX_STEPS = Number(process.env.FLOE_MV_STEPS ?? 30);

const data = tempDataDir('floe-mv-diff-');
let g: MvGateway;
let c: pg.Client;
before(async () => {
  g = await startMvGateway(data.dir);
  c = await g.connect();
});
after(async () => {
  await c?.end().catch(() => undefined);
  await g?.gateway.stop();
  data.remove();
});

type Step =
  | { readonly kind: 'write'; readonly sql: string }
  | { readonly kind: 'txn'; readonly sqls: readonly string[]; readonly commit: boolean }
  | { readonly kind: 'refresh'; readonly views: readonly number[] }
  | { readonly kind: 'noData'; readonly view: number }
  | { readonly kind: 'changelog'; readonly sql: string };

const viewIndex = fc.integer({ min: 0, max: VIEWS.length - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 12, arbitrary: anyWrite.map((sql): Step => ({ kind: 'write', sql })) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('txn' as const), sqls: fc.array(anyWrite, { minLength: 2, maxLength: 4 }), commit: fc.boolean() }) },
  { weight: 5, arbitrary: fc.uniqueArray(viewIndex, { minLength: 1, maxLength: VIEWS.length }).map((views): Step => ({ kind: 'refresh', views })) },
  { weight: 1, arbitrary: viewIndex.map((view): Step => ({ kind: 'noData', view })) },
  { weight: 1, arbitrary: anyChangelogSwitch.map((sql): Step => ({ kind: 'changelog', sql })) },
);

test(`materialized views equal their queries after every refresh: ${RUNS} random histories over ${VIEWS.length} views`, { timeout: 600_000 }, async (t) => {
  let run = 0;
  const modes = { incremental: 0, full: 0 };
  const checkModes = viewRecords(g.dataDir) !== undefined;
  await fc.assert(fc.asyncProperty(anyChangelogs, initialRows, fc.array(step, { minLength: 10, maxLength: MAX_STEPS, size: process.env.FLOE_MV_STEPS === undefined ? undefined : 'max' }), async (changelogs, init, steps) => {
    const schema = `mvd_${++run}`;
    const started = performance.now();
    const transcript: string[] = [];
    const context = () => `statements of this run:\n${transcript.join(';\n')};`;
    const exec = async (sql: string): Promise<string | undefined> => {
      const code = await errorCode(c, sql);
      transcript.push(code === undefined ? sql : `${sql} -- fails ${code}`);
      return code;
    };
    const must = async (sql: string): Promise<void> => {
      const code = await exec(sql);
      assert.equal(code, undefined, `${sql} failed\n${context()}`);
    };
    /** A write may fail only with 23505 (a key that exists); then it wrote nothing. */
    const write = async (sql: string): Promise<boolean> => {
      const code = await exec(sql);
      assert.ok(code === undefined || code === '23505', `${sql} failed with ${code}\n${context()}`);
      return code === undefined;
    };
    await must(`CREATE SCHEMA ${schema}`);
    await must(`SET search_path = ${schema}`);
    try {
      for (const sql of [...createTablesSql(changelogs), ...init]) await must(sql);
      for (const v of VIEWS) await must(createViewSql(v));
      const ids = await relationIds(c, schema);
      const populated = VIEWS.map(() => true);
      for (const v of VIEWS) await assertViewMatches(c, v, context);
      const refresh = async (i: number): Promise<void> => {
        const v = VIEWS[i]!;
        await must(`REFRESH MATERIALIZED VIEW ${v.name}`);
        const expected = populated[i] ? v.refresh : 'full';
        populated[i] = true;
        if (checkModes) {
          const mode = viewRecords(g.dataDir)!.get(ids.get(v.name)!)?.lastMode;
          assert.equal(mode, expected, `REFRESH MATERIALIZED VIEW ${v.name} was ${mode}, expected ${expected}\n${context()}`);
          modes[expected]++;
        }
        await assertViewMatches(c, v, context);
      };
      for (const s of steps) {
        switch (s.kind) {
          case 'write':
            await write(s.sql);
            break;
          case 'changelog':
            await must(s.sql);
            break;
          case 'txn': {
            await must('BEGIN');
            let ok = true;
            for (const sql of s.sqls) if (ok) ok = await write(sql);
            await must(ok && s.commit ? 'COMMIT' : 'ROLLBACK');
            break;
          }
          case 'refresh':
            for (const i of s.views) await refresh(i);
            break;
          case 'noData': {
            const v = VIEWS[s.view]!;
            await must(`REFRESH MATERIALIZED VIEW ${v.name} WITH NO DATA`);
            populated[s.view] = false;
            assert.equal(await errorCode(c, `SELECT * FROM ${v.name}`), '55000', 'an unpopulated view cannot be read');
            break;
          }
        }
      }
      for (let i = 0; i < VIEWS.length; i++) await refresh(i);
    } finally {
      await c.query('RESET search_path');
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      if (process.env.FLOE_MV_VERBOSE === '1') t.diagnostic(`run ${run}: ${steps.length} steps, ${(performance.now() - started).toFixed(0)} ms`);
    }
  }), { numRuns: RUNS, includeErrorInReport: true, endOnFailure: process.env.FLOE_MV_NO_SHRINK === '1', ...(SEED === undefined ? {} : { seed: SEED }) });
  t.diagnostic(`refreshes: ${modes.incremental} incremental, ${modes.full} full`);
  if (checkModes) assert.ok(modes.incremental > RUNS * VIEWS.length, 'most refreshes were incremental');
});

/**
 * The view's rows by its hidden key (floe$key), each as JSON of its visible values and of
 * the hidden `extra` columns; at a snapshot when given.
 */
async function keyedRows(view: string, extra: readonly string[], snapshot?: string): Promise<Map<string, string>> {
  const columns = [...(await c.query(`SELECT * FROM ${view} LIMIT 0`)).fields.map((f) => f.name), ...extra.map((x) => `"${x}"`)];
  const at = snapshot === undefined ? '' : ` FOR SYSTEM_VERSION AS OF ${snapshot}`;
  const rows = await rowsOf(c, `SELECT "floe$key", ${columns.join(', ')} FROM ${view}${at}`);
  return new Map(rows.map((r) => [r[0]!, JSON.stringify(r.slice(1))]));
}

test('an incremental refresh writes only the view rows that change', async () => {
  const schema = 'mvd_fixed';
  await c.query(`CREATE SCHEMA ${schema}`);
  await c.query(`SET search_path = ${schema}`);
  try {
    for (const sql of createTablesSql()) await c.query(sql);
    // 40 groups of 5 rows; d and e give every f row a partner.
    await c.query('INSERT INTO f SELECT i, i % 40, i % 7, i % 10 FROM generate_series(1, 200) AS s(i)');
    await c.query('INSERT INTO d SELECT i, i % 3, i, i % 4 FROM generate_series(0, 9) AS s(i)');
    await c.query('INSERT INTO e SELECT i, i FROM generate_series(0, 3) AS s(i)');
    const views = VIEWS.filter((v) => ['v_proj', 'v_join', 'v_agg', 'v_agg_sums', 'v_join3', 'v_distinct'].includes(v.name));
    for (const v of views) await c.query(createViewSql(v));
    const snapshots = new Map<string, string>();
    for (const v of views) {
      const [[snapshot]] = await rowsOf(c, `SELECT max(snapshot_id) FROM ${v.name}$snapshots`) as [[string]];
      snapshots.set(v.name, snapshot);
    }
    // Touch two groups of f (7 and 8): a value, a moved row, a deleted one, a new one.
    await c.query('UPDATE f SET v = 100 WHERE k = 7');
    await c.query('UPDATE f SET g = 8 WHERE k = 47');
    await c.query('DELETE FROM f WHERE k = 88');
    await c.query('INSERT INTO f VALUES (201, 7, 3, 1)');
    // Not shown by any of these views: a refresh must write nothing for it.
    await c.query('UPDATE d SET g = 2 WHERE k = 9');
    const ids = await relationIds(c, schema);
    for (const v of views) {
      await c.query(`REFRESH MATERIALIZED VIEW ${v.name}`);
      await assertViewMatches(c, v, () => '');
      const record = viewRecords(g.dataDir)?.get(ids.get(v.name)!);
      if (record !== undefined) assert.equal(record.lastMode, 'incremental', v.name);
      const snapshot = snapshots.get(v.name)!;
      // A group's row count (hidden) may change while its visible values do not: its row is written then.
      const extra = ['v_agg', 'v_agg_sums', 'v_distinct'].includes(v.name) ? ['floe$count'] : [];
      const was = await keyedRows(v.name, extra, snapshot);
      const now = await keyedRows(v.name, extra);
      const differ = [...new Set([...was.keys(), ...now.keys()])].filter((k) => was.get(k) !== now.get(k)).sort();
      assert.ok(differ.length > 0, `${v.name}: the writes change the view`);
      // What the refresh committed: a DELETE row carries the key only, an UPDATE its before and after images.
      const changes = await rowsOf(c, `SELECT "floe$key", _change_type FROM table_changes('${v.name}', ${snapshot}, NULL)`);
      assert.deepEqual([...new Set(changes.map((r) => r[0]!))].sort(), differ, `${v.name}: the refresh wrote exactly the view rows that changed`);
      assert.equal(changes.filter((r) => r[1] === 'UPDATE_BEFORE').length, changes.filter((r) => r[1] === 'UPDATE_AFTER').length);
      assert.ok(changes.length <= 2 * differ.length, `${v.name}: each changed row is written once (${changes.length} change rows for ${differ.length} rows)`);
      assert.ok(differ.length < was.size / 4, `${v.name}: ${differ.length} changed rows of ${was.size}`);
    }
  } finally {
    await c.query('RESET search_path');
    await c.query(`DROP SCHEMA ${schema} CASCADE`);
  }
});

test('a refresh after a base table gains or loses a column reads it as it is now, not as the last refresh bound it', async () => {
  // A session keeps each view's last refresh statement, bound and planned, for the next refresh
  // of the same terms (kept-refresh-statements.ts). With f's changelog complete the MERGE reads
  // f only through table_changes, whose columns are f's own: a kept statement bound before
  // ALTER TABLE would read the wrong columns of the new change rows.
  const schema = 'mvd_altered';
  // No min or max: nothing is recomputed from f itself, so f is read through its changes alone.
  const v = VIEWS.find((x) => x.name === 'v_agg_sums')!;
  await c.query(`CREATE SCHEMA ${schema}`);
  await c.query(`SET search_path = ${schema}`);
  try {
    for (const sql of createTablesSql({ f: 'lookup', d: 'lookup', e: 'lookup' })) await c.query(sql);
    await c.query('INSERT INTO f SELECT i, i % 5, i, i % 3 FROM generate_series(1, 40) AS s(i)');
    await c.query(createViewSql(v));
    const ids = await relationIds(c, schema);
    const steps = [
      'INSERT INTO f VALUES (41, 1, 100, 0)',
      'UPDATE f SET v = v + 7 WHERE k % 4 = 0',
      'ALTER TABLE f ADD COLUMN z int',
      'INSERT INTO f VALUES (42, 2, 1000, 1, 9)',
      "UPDATE f SET v = -v, z = 3 WHERE k % 6 = 0",
      'ALTER TABLE f DROP COLUMN z',
      'DELETE FROM f WHERE k % 5 = 1',
      'ALTER TABLE f ADD COLUMN y text',
      "INSERT INTO f VALUES (43, 4, 5, 2, 'y')",
    ];
    for (const [i, sql] of steps.entries()) {
      await c.query(sql);
      await c.query(`REFRESH MATERIALIZED VIEW ${v.name}`);
      await assertViewMatches(c, v, () => steps.slice(0, i + 1).join(';\n'));
      const record = viewRecords(g.dataDir)?.get(ids.get(v.name)!);
      if (record !== undefined) assert.equal(record.lastMode, 'incremental', `after ${sql}`);
    }
  } finally {
    await c.query('RESET search_path');
    await c.query(`DROP SCHEMA ${schema} CASCADE`);
  }
});

/**
 * Histories the random test found wrong once, kept as fixed cases: each view is created
 * after `setup` and refreshed after `writes`, then compared with its query.
 */
const REGRESSIONS: readonly { readonly name: string; readonly view: string; readonly setup: readonly string[]; readonly writes: readonly string[] }[] = [
  {
    // The group's min/max were retracted and the recomputation found no group: the row stayed.
    name: 'a group whose min and max go away with its last row is deleted',
    view: 'v_agg', setup: ['INSERT INTO f VALUES (1, NULL, 0, NULL)'], writes: ['DELETE FROM f'],
  },
  {
    // f's new row joined d's old row (w = 0) in one term, cancelled in the next: max kept 0 for a new group.
    name: 'a value one telescoping term adds and a later one takes away is not the max of a new group',
    view: 'v_join_ext', setup: ['INSERT INTO d VALUES (3, NULL, 0, NULL)'],
    writes: ['UPDATE d SET w = NULL', 'INSERT INTO f VALUES (1, NULL, 0, 3)'],
  },
  {
    // The same, into a group whose max is NULL (only NULL values): 7 >= NULL did not retract it.
    name: 'a value one telescoping term adds and a later one takes away is not the max of a group of NULLs',
    view: 'v_join_ext', setup: ['INSERT INTO d VALUES (3, 1, 7, NULL), (4, 1, NULL, NULL)', 'INSERT INTO f VALUES (1, 0, 1, 4)'],
    writes: ['INSERT INTO f VALUES (2, 0, 2, 3)', 'UPDATE d SET g = 2 WHERE k = 3'],
  },
];

for (const r of REGRESSIONS) {
  test(`regression: ${r.name}`, async () => {
    const schema = `mvd_regression_${REGRESSIONS.indexOf(r)}`;
    const v = VIEWS.find((x) => x.name === r.view)!;
    await c.query(`CREATE SCHEMA ${schema}`);
    await c.query(`SET search_path = ${schema}`);
    try {
      for (const sql of [...createTablesSql(), ...r.setup, createViewSql(v), ...r.writes, `REFRESH MATERIALIZED VIEW ${v.name}`]) await c.query(sql);
      await assertViewMatches(c, v, () => [...r.setup, ...r.writes].join(';\n'));
    } finally {
      await c.query('RESET search_path');
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
    }
  });
}
