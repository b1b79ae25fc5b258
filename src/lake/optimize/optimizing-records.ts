import type { OptimizeKind, RewriteVolume } from './optimize-result.js';

/**
 * What the self-optimizing service keeps in the catalog, so every process on a warehouse
 * (the gateway, a separate `floe optimizer`) sees the same groups, history and status.
 */

export type SchedulingPolicy = 'quota' | 'balanced';

/** `CREATE OPTIMIZER GROUP g WITH (threads = N, scheduling_policy = …)`. */
export interface OptimizerGroup {
  readonly name: string;
  readonly threads: number;
  readonly schedulingPolicy: SchedulingPolicy;
}

/**
 * A running optimizer (a gateway's scheduler or a `floe optimizer` process) as it registers
 * itself in the catalog and heartbeats, so every process can list who optimizes
 * (floe_optimizers) and see one that stopped heartbeating as lost.
 */
export interface OptimizerRecord {
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  /** The groups it serves; undefined: every group. */
  readonly groups: readonly string[] | undefined;
  /** Threads of the `default` group in this process (--optimizer-threads). */
  readonly threads: number;
  readonly startedMicros: bigint;
  readonly heartbeatMicros: bigint;
}

/**
 * One ended optimize process (floe_optimizing_history): it succeeded, failed, or was
 * canceled because the service running it stopped (not the table's fault, so no back-off).
 */
export interface OptimizingRun extends RewriteVolume {
  readonly id: number;
  readonly tableId: number;
  readonly kind: OptimizeKind;
  readonly status: 'success' | 'failed' | 'canceled';
  /** 'scheduler' or 'call' (CALL optimize). */
  readonly trigger: string;
  readonly startedMicros: bigint;
  readonly durationMs: number;
  readonly nodes: number;
  readonly splits: number;
  readonly snapshotId: bigint | undefined;
  readonly error: string | undefined;
}

export type NewOptimizingRun = Omit<OptimizingRun, 'id'>;

export type OptimizingStatus = 'idle' | 'pending' | 'planning' | 'executing' | 'committing';

/** A table's optimizing status as the process optimizing it last wrote it. */
export interface OptimizingTableState {
  readonly tableId: number;
  readonly status: OptimizingStatus;
  readonly statusSinceMicros: bigint;
  /** The process that set the status (pid; with a host prefix once processes span machines). */
  readonly owner: string;
  /**
   * Refreshed by the owner while it works. A non-idle status whose heartbeat is older than
   * the lease is abandoned (its process died): it reads as idle and may be claimed.
   */
  readonly heartbeatMicros: bigint;
  readonly lastMinorMicros: bigint | undefined;
  readonly lastMajorMicros: bigint | undefined;
  readonly lastFullMicros: bigint | undefined;
  /** Failures in a row; the scheduler backs off by them. */
  readonly consecutiveFailures: number;
  /** No scheduled attempt before this (back-off after failures). */
  readonly nextAttemptMicros: bigint | undefined;
}

/**
 * One row of floe_optimizing: a table's optimizing status and metrics as the
 * self-optimizing service reports them (src/service builds it; src/sql's view reads it).
 */
export interface OptimizingTableRow {
  readonly tableId: number;
  readonly namespace: string;
  readonly table: string;
  readonly enabled: boolean;
  readonly group: string;
  readonly status: OptimizingStatus;
  readonly pendingChangeFiles: number;
  readonly pendingChangeRows: number;
  readonly pendingChangeBytes: number;
  readonly baseFiles: number;
  readonly smallFiles: number;
  readonly lastMinorMicros: bigint | undefined;
  readonly lastMajorMicros: bigint | undefined;
  readonly lastFullMicros: bigint | undefined;
  /** How long the oldest unfolded change has waited (0 when none). */
  readonly optimizingLagMs: number;
  readonly readAmplification: number;
  readonly readAmplificationMax: number;
  /** 0–100, higher is healthier (src/service's health-score.ts). */
  readonly healthScore: number;
  readonly quota: number;
  /** Share of the group's thread time the table used over the last hour. */
  readonly occupation: number;
}
