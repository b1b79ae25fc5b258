import { dueOptimizingKind, optimizingSettings } from '../../lake/index.js';
import type { OptimizingMetrics, OptimizingStatus, OptimizingTableState, TableMetadata } from '../../lake/index.js';
import { healthScore } from './health-score.js';
import { idleState, isAbandoned } from './optimizing-claim.js';
import type { OptimizingTableRow } from './optimizing-service.js';

export interface TableRowInputs {
  readonly table: TableMetadata;
  readonly metrics: OptimizingMetrics;
  readonly state: OptimizingTableState | undefined;
  readonly occupation: number;
  readonly nowMicros: bigint;
  readonly leaseMicros: bigint;
  /** The status this process knows first-hand (it is optimizing the table, or holds it pending). */
  readonly localStatus?: OptimizingStatus;
}

/**
 * What floe_optimizing shows for one table. The status is the first that holds of: what
 * this process is doing with it; what a live owner saved; pending when it is due (and
 * enabled); idle. A status whose owner stopped heartbeating reads as idle: never stuck.
 */
export function optimizingTableRow(i: TableRowInputs): OptimizingTableRow {
  const s = optimizingSettings(i.table);
  const state = i.state ?? idleState(i.table.id);
  const m = i.metrics;
  const last = { minorMicros: state.lastMinorMicros, majorMicros: state.lastMajorMicros, fullMicros: state.lastFullMicros };
  let status: OptimizingStatus = 'idle';
  if (i.localStatus !== undefined) status = i.localStatus;
  else if (state.status !== 'idle' && !isAbandoned(state, i.nowMicros, i.leaseMicros)) status = state.status;
  else if (s.enabled && dueOptimizingKind(m, s, last, i.nowMicros) !== undefined) status = 'pending';
  const lagMs = m.oldestPendingChangeMicros === undefined ? 0 : Math.max(0, Number(i.nowMicros - m.oldestPendingChangeMicros) / 1000);
  return {
    tableId: i.table.id,
    namespace: i.table.namespace,
    table: i.table.name,
    enabled: s.enabled,
    group: s.group,
    status,
    pendingChangeFiles: m.pendingChangeFiles,
    pendingChangeRows: m.pendingChangeRows,
    pendingChangeBytes: m.pendingChangeBytes,
    baseFiles: m.baseFiles,
    smallFiles: m.smallFiles,
    lastMinorMicros: state.lastMinorMicros,
    lastMajorMicros: state.lastMajorMicros,
    lastFullMicros: state.lastFullMicros,
    optimizingLagMs: Math.round(lagMs),
    readAmplification: m.readAmplification,
    readAmplificationMax: s.readAmplificationMax,
    healthScore: healthScore({
      readAmplification: m.readAmplification,
      readAmplificationMax: s.readAmplificationMax,
      smallFiles: m.smallFiles,
      baseFiles: m.baseFiles,
      optimizingLagMs: lagMs,
      minorIntervalMs: s.minorIntervalMs,
      consecutiveFailures: state.consecutiveFailures,
    }),
    quota: s.quota,
    occupation: i.occupation,
  };
}
