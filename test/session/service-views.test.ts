import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse } from '../../src/lake/index.js';
import type { OptimizeKind, OptimizingRun, TableMetadata, Warehouse } from '../../src/lake/index.js';
import type {
  OptimizeReport, OptimizerGroupRow, OptimizerRow, OptimizingService, OptimizingTableRow,
} from '../../src/service/optimizing/optimizing-service.js';
import { createFloeSession } from '../../src/session/index.js';
import { loadSqlParser } from '../../src/sql/index.js';
import { createSystemCatalog, registerCatalogFunctions } from '../../src/sql/system-catalog/index.js';
import type { SessionHandler } from '../../src/wire/session-handler.js';

/*
 * The service views read whatever OptimizingService the session was given (floe serve's
 * scheduler), through the system catalog, so they join, filter and sort like any relation.
 * A small fake service stands in for the scheduler here; test/lakesql covers the real one.
 */

let warehouse: Warehouse;
let orders: TableMetadata;

before(async () => {
  await loadSqlParser();
  registerCatalogFunctions();
  warehouse = await openWarehouse({ path: mkdtempSync(join(tmpdir(), 'floe-service-views-')) });
  orders = await warehouse.createTable({ namespace: 'public', name: 'orders', columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }], primaryKey: ['id'] });
  await warehouse.createTable({ namespace: 'public', name: 'lines', columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }], primaryKey: ['id'] });
});

const MINUTE = 60_000_000n;

function tableRow(t: TableMetadata, over: Partial<OptimizingTableRow>): OptimizingTableRow {
  return {
    tableId: t.id, namespace: t.namespace, table: t.name, enabled: true, group: 'default', status: 'idle', pendingChangeFiles: 0,
    pendingChangeRows: 0, pendingChangeBytes: 0, baseFiles: 1, smallFiles: 0, lastMinorMicros: undefined, lastMajorMicros: undefined,
    lastFullMicros: undefined, optimizingLagMs: 0, readAmplification: 0, readAmplificationMax: 16, healthScore: 100, quota: 0.5,
    occupation: 0, ...over,
  };
}

class FakeService implements OptimizingService {
  calls: { table: string; kind: OptimizeKind | undefined }[] = [];
  async optimizeNow(table: TableMetadata, kind?: OptimizeKind): Promise<OptimizeReport> {
    this.calls.push({ table: table.name, kind });
    return { ...run(table.id, 'success'), kind: kind ?? 'minor', nodesMerged: 2 };
  }
  tables(): OptimizingTableRow[] {
    const lines = warehouse.getTable('public', 'lines')!;
    return [
      tableRow(orders, { status: 'executing', pendingChangeFiles: 14, pendingChangeRows: 1400, pendingChangeBytes: 140_000, optimizingLagMs: 90_500, readAmplification: 14, healthScore: 61.6, lastMinorMicros: 1_700_000_000_000_000n }),
      tableRow(lines, { group: 'fast', enabled: false }),
    ];
  }
  history(): OptimizingRun[] {
    return [run(orders.id, 'failed'), run(orders.id, 'success')];
  }
  groups(): OptimizerGroupRow[] {
    return [
      { name: 'default', threads: 1, schedulingPolicy: 'quota', tables: 1, tasksRunning: 1, tasksQueued: 3 },
      { name: 'fast', threads: 4, schedulingPolicy: 'balanced', tables: 1, tasksRunning: 0, tasksQueued: 0 },
    ];
  }
  optimizers(): OptimizerRow[] {
    return [
      { id: 'gw:10', host: 'gw', pid: 10, groups: undefined, threads: 1, startedMicros: 1_700_000_000_000_000n, heartbeatMicros: 1_700_000_060_000_000n, state: 'running' },
      { id: 'opt:20', host: 'opt', pid: 20, groups: ['fast'], threads: 0, startedMicros: 1_700_000_001_000_000n, heartbeatMicros: 1_700_000_002_000_000n, state: 'lost' },
    ];
  }
  createGroup(): void {}
  alterGroup(): void {}
  dropGroup(): void {}
}

function run(tableId: number, status: 'success' | 'failed'): OptimizingRun {
  return {
    id: 1, tableId, kind: 'minor', status, trigger: 'scheduler', startedMicros: 1_700_000_000_000_000n + MINUTE, durationMs: 1234.4,
    nodes: 2, splits: 1, filesIn: 14, bytesIn: 140_000, rowsIn: 1400, filesOut: 2, bytesOut: 70_000, rowsOut: 700,
    snapshotId: status === 'success' ? 9n : undefined, error: status === 'failed' ? 'disk full' : undefined,
  };
}

function session(service: OptimizingService): SessionHandler {
  return createFloeSession({
    warehouse, catalog: createSystemCatalog(), optimizing: service,
    startup: { user: 'floe', database: 'floe', parameters: { TimeZone: 'UTC' }, remoteAddress: '127.0.0.1', processId: 42 },
  });
}

async function rows(s: SessionHandler, sql: string): Promise<{ names: string[]; rows: unknown[][]; tag: string }> {
  const out: unknown[][] = [];
  let names: string[] = [];
  let tag = '';
  for await (const r of s.simpleQuery(sql, new AbortController().signal)) {
    if (r.kind === 'rows') {
      names = r.columns.map((c) => c.name);
      for await (const b of r.batches) for (let i = 0; i < b.numRows; i++) out.push(b.columns.map((c) => c.get(i)));
      tag = r.commandTag(out.length);
    } else if (r.kind === 'command') tag = r.tag;
  }
  return { names, rows: out, tag };
}

test('floe_optimizing shows the service\'s rows, unqualified, with WHERE, ORDER BY and a join to pg_class', async () => {
  const s = session(new FakeService());
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  const r = await rows(s, `SELECT o.table_name, o.group_name, o.enabled, o.status, o.pending_change_files, o.optimizing_lag::text, o.health_score,
      o.last_minor, c.relkind FROM floe_optimizing o JOIN pg_class c ON c.relname = o.table_name
    WHERE o.read_amplification_max = 16 ORDER BY o.table_name`);
  assert.deepEqual(r.rows, [
    ['lines', 'fast', false, 'idle', 0n, '00:00:00', 100, null, 'r'],
    ['orders', 'default', true, 'executing', 14n, '00:01:30.5', 62, 1_700_000_000_000_000n, 'r'],
  ]);
  const cols = await rows(s, 'SELECT * FROM pg_catalog.floe_optimizing LIMIT 0');
  assert.deepEqual(cols.names, [
    'table_schema', 'table_name', 'group_name', 'enabled', 'status', 'pending_change_files', 'pending_change_rows', 'pending_change_bytes',
    'base_files', 'small_files', 'last_minor', 'last_major', 'last_full', 'optimizing_lag', 'read_amplification', 'read_amplification_max',
    'health_score', 'quota', 'occupation',
  ]);
});

test('floe_optimizing_history names each run\'s table and carries the error; floe_optimizer_groups the groups', async () => {
  const s = session(new FakeService());
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  const h = await rows(s, "SELECT table_schema, table_name, kind, status, duration_ms, files_in, files_out, snapshot_id, error FROM floe_optimizing_history WHERE status = 'failed'");
  assert.deepEqual(h.rows, [['public', 'orders', 'minor', 'failed', 1234n, 14n, 2n, null, 'disk full']]);
  const g = await rows(s, 'SELECT group_name, threads, scheduling_policy, tables, tasks_running, tasks_queued FROM floe_optimizer_groups ORDER BY threads DESC');
  assert.deepEqual(g.rows, [['fast', 4, 'balanced', 1n, 0n, 0n], ['default', 1, 'quota', 1n, 1n, 3n]]);
  const kinds = await rows(s, "SELECT relname, relkind FROM pg_class WHERE relname LIKE 'floe\\_%' ORDER BY relname");
  assert.deepEqual(kinds.rows, [['floe_materialized_views', 'v'], ['floe_optimizer_groups', 'v'], ['floe_optimizers', 'v'], ['floe_optimizing', 'v'], ['floe_optimizing_history', 'v'], ['floe_stat_statements', 'v'], ['floe_subscriptions', 'v']]);
});

test('floe_optimizers lists the registered optimizers with their groups, last heartbeat and state', async () => {
  const s = session(new FakeService());
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  const o = await rows(s, "SELECT optimizer_id, host, pid, group_names, threads, last_heartbeat::text, state FROM floe_optimizers ORDER BY started_at");
  assert.deepEqual(o.names, ['optimizer_id', 'host', 'pid', 'group_names', 'threads', 'last_heartbeat', 'state']);
  assert.deepEqual(o.rows.map((r) => [...r.slice(0, 3), r[3] === null ? null : [...(r[3] as Iterable<string>)], ...r.slice(4)]), [
    ['gw:10', 'gw', 10, null, 1, '2023-11-14 22:14:20+00', 'running'],
    ['opt:20', 'opt', 20, ['fast'], 0, '2023-11-14 22:13:22+00', 'lost'],
  ]);
});

test('CALL optimize goes through the given service: major by default, the kind as asked, one row tagged CALL', async () => {
  const service = new FakeService();
  const s = session(service);
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  const r = await rows(s, "CALL optimize('orders')");
  assert.equal(r.tag, 'CALL');
  assert.deepEqual(r.names, ['kind', 'nodes', 'splits', 'merges', 'files_in', 'files_out', 'rows_in', 'rows_out', 'bytes_in', 'bytes_out', 'duration_ms', 'snapshot_id']);
  assert.deepEqual(r.rows, [['major', 2n, 1n, 2n, 14n, 2n, 1400n, 700n, 140_000n, 70_000n, 1234n, 9n]]);
  await rows(s, "CALL floe.optimize('public.orders', kind => 'FULL')");
  assert.deepEqual(service.calls, [{ table: 'orders', kind: 'major' }, { table: 'orders', kind: 'full' }]);
});
