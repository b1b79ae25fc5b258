import type {
  OptimizeKind, OptimizerGroup, OptimizerRecord, OptimizingRun, OptimizingTableRow, SchedulingPolicy, TableMetadata,
} from '../../lake/index.js';

/** One row of floe_optimizing. */
export type { OptimizingTableRow } from '../../lake/index.js';

/** One row of floe_optimizer_groups. */
export interface OptimizerGroupRow extends OptimizerGroup {
  readonly tasksRunning: number;
  readonly tasksQueued: number;
  readonly tables: number;
}

/** One row of floe_optimizers: a registered optimizer, live or lost. */
export interface OptimizerRow extends OptimizerRecord {
  /** 'running' while it heartbeats within the lease; 'lost' after (killed, or its host gone). */
  readonly state: 'running' | 'lost';
}

/** The finished process of CALL optimize, with the table's names for the result row. */
export interface OptimizeReport extends OptimizingRun {
  readonly nodesMerged: number;
}

/**
 * What the session and the HTTP layer ask of the self-optimizing service. `floe serve`
 * passes its scheduler; a session created without one gets an inline service (no
 * background work) so CALL optimize and the views still work.
 */
export interface OptimizingService {
  /** A commit landed: look at the tables soon rather than at the next tick (a fast stream outruns a 1 s tick). */
  nudge?(): void;
  /** CALL optimize: runs one process now on the table's group threads, records it, returns it. Throws what it failed with. */
  optimizeNow(table: TableMetadata, kind?: OptimizeKind): Promise<OptimizeReport>;
  tables(): OptimizingTableRow[];
  history(): OptimizingRun[];
  groups(): OptimizerGroupRow[];
  /** Every optimizer registered in the catalog (this process's scheduler, other gateways', `floe optimizer`s). */
  optimizers(): OptimizerRow[];
  createGroup(group: OptimizerGroup, opts?: { ifNotExists?: boolean }): void;
  alterGroup(name: string, change: { threads?: number; schedulingPolicy?: SchedulingPolicy }): void;
  dropGroup(name: string, opts?: { ifExists?: boolean }): void;
}
