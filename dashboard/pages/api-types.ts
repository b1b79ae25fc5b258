/**
 * The shapes of the management API's answers that the pages read (README.md, "Management").
 * Where src/http declares a shape in a file that imports nothing, it is imported from there.
 */
export type { ConnectedSession, StatementTotals } from '../../src/http/management-sources.js';
export type { StoreTotals, TableSummaryShape as TableSummary } from '../../src/http/table-summary-shape.js';

export interface OptimizingRun {
  readonly id: number;
  readonly schema?: string | null;
  readonly table?: string | null;
  readonly kind: string;
  readonly status: string;
  readonly trigger: string;
  readonly started: string | null;
  readonly durationMs: number;
  readonly nodes: number;
  readonly splits: number;
  readonly filesIn: number;
  readonly bytesIn: number;
  readonly rowsIn: number;
  readonly filesOut: number;
  readonly bytesOut: number;
  readonly rowsOut: number;
  readonly error: string | null;
}

export interface OptimizingOverview {
  readonly groups: readonly {
    readonly name: string; readonly threads: number; readonly schedulingPolicy: string; readonly tables: number;
    readonly tasksRunning: number; readonly tasksQueued: number; readonly occupation: number;
  }[];
  readonly tables: readonly {
    readonly schema: string; readonly table: string; readonly group: string; readonly enabled: boolean; readonly status: string;
    readonly quota: number; readonly occupation: number; readonly healthScore: number; readonly freshnessLagSeconds: number;
    readonly readAmplification: { readonly target: number; readonly actual: number };
  }[];
  readonly processes: readonly { readonly schema: string; readonly table: string; readonly group: string; readonly status: string }[];
  readonly optimizers: readonly {
    readonly id: string; readonly host: string; readonly pid: number; readonly groups: readonly string[] | null; readonly threads: number;
    readonly startedAt: string | null; readonly lastHeartbeat: string | null; readonly state: string;
  }[];
  readonly history: readonly OptimizingRun[];
}

export interface RatePoint {
  readonly at: number;
  readonly commitsPerSecond: number;
  readonly ingestRowsPerSecond: number;
  readonly queriesPerSecond: number;
  readonly errorsPerSecond: number;
}
