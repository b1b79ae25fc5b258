import type { OptimizingService } from '../service/index.js';
import { isoOfMicros } from './json-values.js';
import { runJson } from './table-detail.js';

/** Ended processes the optimizing page lists, newest first. */
const HISTORY_LIMIT = 200;

/**
 * The optimizing page: floe_optimizer_groups (with the group's share of thread time used),
 * floe_optimizing (each table's status, quota and occupation), the processes running or
 * queued now, floe_optimizers (the optimizer processes and their heartbeats) and
 * floe_optimizing_history.
 */
export function optimizingOverview(optimizing: OptimizingService) {
  const tables = optimizing.tables();
  const names = new Map(tables.map((t) => [t.tableId, { schema: t.namespace, table: t.table }]));
  return {
    groups: optimizing.groups().map((g) => ({
      name: g.name, threads: g.threads, schedulingPolicy: g.schedulingPolicy, tables: g.tables,
      tasksRunning: g.tasksRunning, tasksQueued: g.tasksQueued,
      // Occupation is each table's share of its group's thread time over the last hour; the group's is their sum.
      occupation: tables.filter((t) => t.group === g.name).reduce((n, t) => n + t.occupation, 0),
    })),
    tables: tables.map((t) => ({
      schema: t.namespace, table: t.table, group: t.group, enabled: t.enabled, status: t.status, quota: t.quota, occupation: t.occupation,
      healthScore: t.healthScore, freshnessLagSeconds: t.optimizingLagMs / 1000,
      readAmplification: { target: t.readAmplificationMax, actual: t.readAmplification },
      lastMinor: isoOfMicros(t.lastMinorMicros), lastMajor: isoOfMicros(t.lastMajorMicros), lastFull: isoOfMicros(t.lastFullMicros),
    })),
    // pending: due and waiting for a thread; planning, executing, committing: running.
    processes: tables.filter((t) => t.status !== 'idle').map((t) => ({ schema: t.namespace, table: t.table, group: t.group, status: t.status })),
    optimizers: optimizing.optimizers().map((o) => ({
      id: o.id, host: o.host, pid: o.pid, groups: o.groups ?? null, threads: o.threads,
      startedAt: isoOfMicros(o.startedMicros), lastHeartbeat: isoOfMicros(o.heartbeatMicros), state: o.state,
    })),
    history: optimizing.history().slice(0, HISTORY_LIMIT).map((r) => ({ ...(names.get(r.tableId) ?? { schema: null, table: null }), ...runJson(r) })),
  };
}
