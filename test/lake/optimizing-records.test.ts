import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteCatalog } from '../../src/lake/catalog/sqlite/sqlite-catalog.js';
import { SqlOptimizing } from '../../src/lake/catalog/sql-optimizing.js';
import { SqliteDatabase } from '../../src/lake/catalog/sqlite/sqlite-database.js';
import { openWarehouse } from '../../src/lake/index.js';
import type { NewOptimizingRun, OptimizingTableState } from '../../src/lake/index.js';
import { FloeError } from '../../src/common/floe-error.js';
import type { SqlCatalog } from '../../src/lake/catalog/sql-catalog.js';
import { forEachCatalogBackend } from '../harness/catalog-backends.js';

/*
 * The self-optimizing service keeps groups, run history and per-table status in the catalog,
 * so a gateway and a separate `floe optimizer` on one warehouse share them. The claim is a
 * lease: two schedulers never both take a table, and a dead owner's table is taken again.
 */

const sqlstate = (code: string) => (e: unknown) => e instanceof FloeError && e.sqlstate === code;

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'floe-optimizing-records-'));
}

function run(tableId: number, over: Partial<NewOptimizingRun> = {}): NewOptimizingRun {
  return {
    tableId, kind: 'minor', status: 'success', trigger: 'scheduler', startedMicros: 1_000n, durationMs: 12, nodes: 1, splits: 0,
    filesIn: 3, bytesIn: 300, rowsIn: 30, filesOut: 1, bytesOut: 100, rowsOut: 10, snapshotId: 7n, error: undefined, ...over,
  };
}

function createTable(c: SqlCatalog, name: string, properties: Record<string, string> = {}): number {
  return c.createTable({
    namespace: 'public', name, columns: [{ fieldId: 1, name: 'k', type: { kind: 'int4' }, nullable: false }],
    primaryKey: ['k'], partitionBy: [], properties, nextFieldId: 2,
  } as never, 0n, false).table.id;
}

forEachCatalogBackend((backend) => {
test('optimizer groups: create/alter/drop with PostgreSQL codes, shared by two connections', () => {
  const place = backend().place();
  const a = place.connect();
  const b = place.connectAsAnotherProcess();
  try {
    assert.deepEqual(a.listOptimizerGroups(), [], 'default is the service\'s until someone alters it');
    assert.equal(a.createOptimizerGroup({ name: 'fast', threads: 2, schedulingPolicy: 'balanced' }, false), true);
    assert.throws(() => b.createOptimizerGroup({ name: 'fast', threads: 1, schedulingPolicy: 'quota' }, false),
      (e) => sqlstate('42710')(e) && (e as Error).message === 'optimizer group "fast" already exists');
    assert.equal(b.createOptimizerGroup({ name: 'fast', threads: 1, schedulingPolicy: 'quota' }, true), false);
    assert.deepEqual(b.listOptimizerGroups().map((g) => g.name), ['fast']);

    assert.deepEqual(b.alterOptimizerGroup('fast', { threads: 3 }), { name: 'fast', threads: 3, schedulingPolicy: 'balanced' });
    assert.deepEqual(a.listOptimizerGroups().find((g) => g.name === 'fast'), { name: 'fast', threads: 3, schedulingPolicy: 'balanced' });
    assert.throws(() => a.alterOptimizerGroup('nope', { threads: 1 }), (e) => sqlstate('42704')(e) && (e as Error).message === 'optimizer group "nope" does not exist');

    assert.throws(() => a.dropOptimizerGroup('nope', false), sqlstate('42704'));
    a.dropOptimizerGroup('nope', true);
    a.createOptimizerGroup({ name: 'default', threads: 2, schedulingPolicy: 'quota' }, false);
    assert.throws(() => a.dropOptimizerGroup('default', true), sqlstate('2BP01'));

    // A table naming the group keeps it alive; the error lists it, as PostgreSQL lists dependents.
    const t = createTable(a, 'orders', { 'self-optimizing.group': 'fast' });
    assert.throws(() => b.dropOptimizerGroup('fast', true), (e) => {
      assert.ok(sqlstate('2BP01')(e));
      assert.equal((e as FloeError).message, 'cannot drop optimizer group "fast" because other objects depend on it');
      assert.equal((e as FloeError).detail, 'table orders depends on optimizer group "fast"');
      return true;
    });
    a.updateTable(t, { properties: {} });
    b.dropOptimizerGroup('fast', false);
    assert.deepEqual(a.listOptimizerGroups().map((g) => g.name), ['default']);
  } finally {
    place.dispose();
  }
});

test('runs are listed newest first, per table or all; dropping a table drops its runs and state', () => {
  const place = backend().place();
  const c = place.connect();
  try {
    const t1 = createTable(c, 't1');
    const t2 = createTable(c, 't2');
    const first = c.recordOptimizingRun(run(t1));
    c.recordOptimizingRun(run(t2, { kind: 'major', trigger: 'call' }));
    const failed = c.recordOptimizingRun(run(t1, { status: 'failed', error: 'boom', snapshotId: undefined }));
    assert.deepEqual(first, { ...run(t1), id: first.id });
    assert.deepEqual(c.listOptimizingRuns({}).map((r) => [r.tableId, r.kind, r.status]), [[t1, 'minor', 'failed'], [t2, 'major', 'success'], [t1, 'minor', 'success']]);
    assert.deepEqual(c.listOptimizingRuns({ tableId: t1 }).map((r) => r.id), [failed.id, first.id]);
    assert.deepEqual(c.listOptimizingRuns({ limit: 1 }).map((r) => r.id), [failed.id]);
    assert.equal(failed.error, 'boom');
    assert.equal(failed.snapshotId, undefined);

    assert.equal(c.tryClaimOptimizing(t1, 'p1', 100n, 10n), true);
    c.dropTable(t1);
    assert.deepEqual(c.listOptimizingRuns({}).map((r) => r.tableId), [t2]);
    assert.deepEqual(c.listOptimizingStates(), []);
    assert.equal(c.tryClaimOptimizing(t1, 'p1', 200n, 10n), false, 'a dropped table cannot be claimed');
  } finally {
    place.dispose();
  }
});

test('a claim is a lease: one of two connections wins, a live owner keeps it, a dead one loses it, at once when named dead', () => {
  const place = backend().place();
  const a = place.connect();
  const b = place.connectAsAnotherProcess();
  try {
    const t = createTable(a, 't');
    const lease = 30_000_000n;
    const claims = [a.tryClaimOptimizing(t, 'gateway:1', 1_000_000n, lease), b.tryClaimOptimizing(t, 'optimizer:2', 1_000_001n, lease)];
    assert.deepEqual(claims, [true, false]);
    const s = b.listOptimizingStates()[0]!;
    assert.equal(s.status, 'planning');
    assert.equal(s.owner, 'gateway:1');
    assert.equal(a.tryClaimOptimizing(t, 'gateway:1', 2_000_000n, lease), false, 'a live claim refuses its own owner too');

    // The owner heartbeats and records what it did; its claim holds past the first lease.
    const working: OptimizingTableState = { ...s, status: 'executing', heartbeatMicros: 20_000_000n };
    a.saveOptimizingState(working);
    assert.equal(b.tryClaimOptimizing(t, 'optimizer:2', 40_000_000n, lease), false);
    // It dies: once its heartbeat is older than the lease, another process takes the table, keeping its history.
    a.saveOptimizingState({ ...working, lastMinorMicros: 15_000_000n, consecutiveFailures: 2 });
    assert.equal(b.tryClaimOptimizing(t, 'optimizer:2', 50_000_001n, lease), true);
    const taken = a.listOptimizingStates()[0]!;
    assert.deepEqual([taken.owner, taken.status, taken.statusSinceMicros, taken.lastMinorMicros, taken.consecutiveFailures],
      ['optimizer:2', 'planning', 50_000_001n, 15_000_000n, 2]);

    // Back to idle: anyone may claim it at once.
    b.saveOptimizingState({ ...taken, status: 'idle' });
    assert.equal(a.tryClaimOptimizing(t, 'gateway:1', 50_000_002n, lease), true);

    // A caller that saw the owner's process die takes a live lease, but only from that owner.
    assert.equal(b.tryClaimOptimizing(t, 'optimizer:2', 50_000_003n, lease, 'gateway:9'), false, 'another owner holds it');
    assert.equal(b.tryClaimOptimizing(t, 'optimizer:2', 50_000_003n, lease, 'gateway:1'), true);
    assert.equal(a.listOptimizingStates()[0]!.owner, 'optimizer:2');
  } finally {
    place.dispose();
  }
});
});

test('the warehouse refuses bad group settings before anything is written, and stores a paused group', async () => {
  const dir = tempDir();
  const w = await openWarehouse({ path: dir });
  try {
    assert.throws(() => w.createOptimizerGroup({ name: 'g', threads: -1, schedulingPolicy: 'quota' }), sqlstate('22023'));
    assert.throws(() => w.createOptimizerGroup({ name: 'g', threads: 1.5, schedulingPolicy: 'quota' }), sqlstate('22023'));
    assert.throws(() => w.createOptimizerGroup({ name: 'g', threads: 1, schedulingPolicy: 'fifo' as never }), sqlstate('22023'));
    assert.throws(() => w.createOptimizerGroup({ name: 'no space', threads: 1, schedulingPolicy: 'quota' }), sqlstate('42602'));
    assert.throws(() => w.alterOptimizerGroup('default', { threads: -1 }), sqlstate('22023'));
    assert.deepEqual(w.listOptimizerGroups(), []);
    // The service may store a group with no threads (--optimizer-threads 0); SQL asks for at least one.
    w.createOptimizerGroup({ name: 'default', threads: 0, schedulingPolicy: 'quota' });
    assert.deepEqual(w.alterOptimizerGroup('default', { schedulingPolicy: 'balanced' }), { name: 'default', threads: 0, schedulingPolicy: 'balanced' });
  } finally {
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  }
});


test('history is bounded per table: the oldest runs of a table go as new ones arrive', () => {
  const db = new SqliteDatabase(':memory:');
  const store = new SqlOptimizing({
    sql: (q) => db.prepare(q), cached: (_k, read) => read(), immediate: (fn) => db.transaction('write', 'full', fn),
    immediateNormal: (fn) => db.transaction('write', 'normal', fn),
    nextId: () => 0, tableExists: () => true,
  });
  const ids = [1, 2, 3, 4, 5].map((i) => store.recordRun(run(1, { nodes: i }), 3).id);
  store.recordRun(run(2), 3);
  assert.deepEqual(store.listRuns({ tableId: 1 }).map((r) => r.id), ids.slice(2).reverse());
  assert.deepEqual(store.listRuns({ tableId: 2 }).length, 1, 'another table keeps its own runs');
  db.close();
});


test('racing claims from two processes: a held claim is never taken by the other', async () => {
  const dir = tempDir();
  const path = join(dir, 'catalog.db');
  const setup = new SqliteCatalog(path);
  const t = createTable(setup, 't');
  setup.close();
  try {
    // Two child processes hammer the same table; after each round the winner releases it.
    const { spawn } = await import('node:child_process');
    const script = `
      import { SqliteCatalog } from ${JSON.stringify(join(process.cwd(), 'src/lake/catalog/sqlite/sqlite-catalog.ts'))};
      const c = new SqliteCatalog(${JSON.stringify(path)});
      let wins = 0;
      let violations = 0;
      for (let round = 0; round < 40; round++) {
        // Both processes try at the same logical time of each round; the lease is long.
        if (c.tryClaimOptimizing(${t}, process.argv[1], BigInt(round * 1000 + 1), 1_000_000_000n)) {
          wins++;
          // While this process holds the claim nobody else may take it.
          for (let i = 0; i < 20; i++) if (c.listOptimizingStates()[0].owner !== process.argv[1]) violations++;
          const s = c.listOptimizingStates()[0];
          c.saveOptimizingState({ ...s, status: 'idle' });
        }
      }
      c.close();
      console.log(JSON.stringify({ wins, violations }));
    `;
    const runOne = (owner: string) => new Promise<{ wins: number; violations: number }>((resolve, reject) => {
      const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, owner], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      p.stdout.on('data', (d) => { out += String(d); });
      p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim())) : reject(new Error(`exit ${code}`))));
    });
    const results = await Promise.all([runOne('p1'), runOne('p2')]);
    assert.deepEqual(results.map((r) => r.violations), [0, 0]);
    // Whoever asks while the table is free wins (one process may starve the other under load).
    assert.ok(results[0]!.wins + results[1]!.wins > 0, JSON.stringify(results));
    const c = new SqliteCatalog(path);
    assert.equal(c.listOptimizingStates()[0]!.status, 'idle');
    c.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
