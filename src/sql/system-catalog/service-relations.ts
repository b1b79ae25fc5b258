import type { OptimizerRecord, OptimizingRun, OptimizingTableRow } from '../../lake/index.js';
import type { CatalogView } from './catalog-view.js';

/**
 * The self-optimizing service's views: floe_optimizing (one row per table), floe_optimizing_history
 * (one row per finished or failed optimize process) and floe_optimizer_groups. They live in
 * pg_catalog, like pg_stat_activity, so they are found unqualified from any search_path, and are
 * listed in pg_class and information_schema as views. src/sql does not import src/service: the
 * session attaches the service to its warehouse (SystemCatalog.attachServices) and these shapes
 * are what the views read of it (src/service's OptimizingService satisfies them).
 */
export interface ServiceRelations {
  tables(): readonly OptimizingTableInfo[];
  history(): readonly OptimizingRunInfo[];
  groups(): readonly OptimizerGroupInfo[];
  optimizers(): readonly OptimizerInfo[];
}

/** One floe_optimizing row: the service's report of a table (the lake's shape, which src/service fills). */
export type OptimizingTableInfo = OptimizingTableRow;

/** One floe_optimizing_history row: the lake's record of a finished or failed process, as the catalog keeps it. */
export type OptimizingRunInfo = OptimizingRun;

export interface OptimizerGroupInfo {
  readonly name: string;
  readonly threads: number;
  readonly schedulingPolicy: string;
  readonly tables: number;
  readonly tasksRunning: number;
  readonly tasksQueued: number;
}

/** One floe_optimizers row: an optimizer registered in the catalog, running or lost. */
export type OptimizerInfo = OptimizerRecord & { readonly state: string };

/** Shapes as catalog-shapes.ts spells them; OIDs from a range PostgreSQL 15 leaves unused below the first user OID. */
export const serviceRelationShapes = [
  {
    schema: 'pg_catalog', name: 'floe_optimizing', oid: 16300, relkind: 'v',
    columns: 'table_schema:name table_name:name group_name:text enabled:bool status:text pending_change_files:int8 '
      + 'pending_change_rows:int8 pending_change_bytes:int8 base_files:int8 small_files:int8 last_minor:timestamptz '
      + 'last_major:timestamptz last_full:timestamptz optimizing_lag:interval read_amplification:int4 '
      + 'read_amplification_max:int4 health_score:int4 quota:float8 occupation:float8',
  },
  {
    schema: 'pg_catalog', name: 'floe_optimizing_history', oid: 16301, relkind: 'v',
    columns: 'table_schema:name table_name:name kind:text status:text trigger:text started:timestamptz duration_ms:int8 '
      + 'nodes:int8 splits:int8 files_in:int8 bytes_in:int8 rows_in:int8 files_out:int8 bytes_out:int8 rows_out:int8 '
      + 'snapshot_id:int8 error:text',
  },
  {
    schema: 'pg_catalog', name: 'floe_optimizer_groups', oid: 16302, relkind: 'v',
    columns: 'group_name:text threads:int4 scheduling_policy:text tables:int8 tasks_running:int8 tasks_queued:int8',
  },
  {
    schema: 'pg_catalog', name: 'floe_optimizers', oid: 16305, relkind: 'v',
    columns: 'optimizer_id:text host:text pid:int4 group_names:text[] threads:int4 started_at:timestamptz last_heartbeat:timestamptz state:text',
  },
] as const;

type Row = Record<string, unknown>;

const interval = (ms: number) => ({ months: 0, days: 0, micros: BigInt(Math.max(0, Math.round(ms))) * 1000n });

function floeOptimizing(v: CatalogView): Row[] {
  return (v.services?.tables() ?? []).map((t) => ({
    table_schema: t.namespace, table_name: t.table, group_name: t.group, enabled: t.enabled, status: t.status,
    pending_change_files: t.pendingChangeFiles, pending_change_rows: t.pendingChangeRows, pending_change_bytes: t.pendingChangeBytes,
    base_files: t.baseFiles, small_files: t.smallFiles, last_minor: t.lastMinorMicros, last_major: t.lastMajorMicros,
    last_full: t.lastFullMicros, optimizing_lag: interval(t.optimizingLagMs), read_amplification: t.readAmplification,
    read_amplification_max: t.readAmplificationMax, health_score: Math.round(t.healthScore), quota: t.quota, occupation: t.occupation,
  }));
}

function floeOptimizingHistory(v: CatalogView): Row[] {
  // Materialized views are lake tables the optimizer serves too.
  const names = new Map<number, { namespace: string; name: string }>([...v.tables, ...v.materializedViews].map((t) => [t.id, t]));
  return (v.services?.history() ?? []).map((r) => ({
    table_schema: names.get(r.tableId)?.namespace, table_name: names.get(r.tableId)?.name, kind: r.kind, status: r.status,
    trigger: r.trigger, started: r.startedMicros, duration_ms: Math.round(r.durationMs), nodes: r.nodes, splits: r.splits,
    files_in: r.filesIn, bytes_in: r.bytesIn, rows_in: r.rowsIn, files_out: r.filesOut, bytes_out: r.bytesOut, rows_out: r.rowsOut,
    snapshot_id: r.snapshotId, error: r.error,
  }));
}

function floeOptimizerGroups(v: CatalogView): Row[] {
  return (v.services?.groups() ?? []).map((g) => ({
    group_name: g.name, threads: g.threads, scheduling_policy: g.schedulingPolicy, tables: g.tables,
    tasks_running: g.tasksRunning, tasks_queued: g.tasksQueued,
  }));
}

/** group_names is NULL for an optimizer that serves every group. */
function floeOptimizers(v: CatalogView): Row[] {
  return (v.services?.optimizers() ?? []).map((o) => ({
    optimizer_id: o.id, host: o.host, pid: o.pid, group_names: o.groups === undefined ? null : [...o.groups], threads: o.threads,
    started_at: o.startedMicros, last_heartbeat: o.heartbeatMicros, state: o.state,
  }));
}

export const serviceRelationRowSources: Readonly<Record<string, (v: CatalogView) => Row[]>> = {
  'pg_catalog.floe_optimizing': floeOptimizing,
  'pg_catalog.floe_optimizing_history': floeOptimizingHistory,
  'pg_catalog.floe_optimizer_groups': floeOptimizerGroups,
  'pg_catalog.floe_optimizers': floeOptimizers,
};

/** information_schema.views rows for these views (the other virtual relations are not listed there). */
export function serviceViewRows(v: CatalogView): Row[] {
  return serviceRelationShapes.map((s) => ({
    table_catalog: v.ctx.database, table_schema: s.schema, table_name: s.name, view_definition: null, check_option: 'NONE',
    is_updatable: 'NO', is_insertable_into: 'NO', is_trigger_updatable: 'NO', is_trigger_deletable: 'NO', is_trigger_insertable_into: 'NO',
  }));
}
