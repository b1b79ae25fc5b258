import type { RecordBatch } from 'apache-arrow';
import type { LakeTransaction, TableMetadata, Warehouse } from '../lake/index.js';
import type { VirtualTableRegistry } from './virtual-table.js';
import type { PhysicalPlan } from './plan/physical-plan.js';
import type { ScanPool } from './pool/scan-pool.js';
import type { SessionSequences } from './session-sequences.js';
import type { ServerFunctions } from './server-functions.js';

/** src/lake's Warehouse and LakeTransaction, under the names the executor's API has used since its first commit. */
export type ExecWarehouse = Warehouse;
export type ExecLakeTransaction = LakeTransaction;
export type ExecTableMetadata = TableMetadata;

/** Runs a lake scan task (src/lake's executeScanTask), in this thread or on a worker. */
export type ScanTaskRunner = (task: unknown, signal: AbortSignal) => AsyncIterable<RecordBatch>;

/** Per-operator run metrics for EXPLAIN ANALYZE, keyed by plan node identity. */
export interface OperatorMetrics {
  rowsOut: number;
  batchesOut: number;
  /** Wall time spent inside the operator's own code and its inputs, in nanoseconds (bigint). */
  elapsedNs: bigint;
  /** Extra counters (files scanned, tasks, spilled bytes, …). */
  readonly extra: Record<string, number | string>;
}

export interface ExecContext {
  /** src/lake's Warehouse. Needed for lakeScan and DML. */
  readonly warehouse?: ExecWarehouse;
  /** The current lake transaction: scans see its writes; DML writes through it. */
  readonly txn?: ExecLakeTransaction;
  /** Bound parameter values ($1 = params[0]), canonical. */
  readonly params?: readonly unknown[];
  readonly signal?: AbortSignal;
  /** Session settings by lower-case name (timezone, datestyle, intervalstyle, search_path, …). */
  readonly settings?: ReadonlyMap<string, string>;
  /** set_config()'s way into the session's settings (see EvalContext.setSetting). */
  readonly setSetting?: (name: string, value: string, isLocal: boolean) => string;
  readonly user?: string;
  readonly database?: string;
  readonly searchPath?: readonly string[];
  readonly virtualTables?: VirtualTableRegistry;
  /** Working-set limit for sort/aggregate/join state; default 1 GiB. Past it: FloeError 53200. */
  readonly memoryLimitBytes?: number;
  /**
   * Where lake scan tasks run. Default: on `pool` when given, else in this thread
   * (src/lake's executeScanTask). A custom runner wins over both.
   */
  readonly scanRunner?: ScanTaskRunner;
  readonly pool?: ScanPool;
  /** Filled with per-node metrics when present (EXPLAIN ANALYZE). */
  readonly metrics?: Map<PhysicalPlan, OperatorMetrics>;
  /** Called by DML sinks with the number of rows inserted/updated/deleted. */
  readonly onRowsAffected?: (count: number) => void;
  /** now()/current_timestamp: transaction start (µs since epoch); default: statement start. */
  readonly transactionStartMicros?: bigint;
  /** The session's sequences, for nextval and friends. */
  readonly sequences?: SessionSequences;
  /** The server's sessions, for the server functions and pg_stat_activity / pg_locks. */
  readonly server?: ServerFunctions;
  /** pg_settings's rows, from the session's settings registry. */
  readonly settingRows?: () => readonly Readonly<Record<string, unknown>>[];
}
