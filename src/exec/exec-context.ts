import type { RecordBatch } from 'apache-arrow';
import type { VirtualTableRegistry } from '../sql/binder/virtual-table.js';
import type { PhysicalPlan } from './plan/physical-plan.js';
import type { ScanPool } from './pool/scan-pool.js';

/**
 * The slice of src/lake's Warehouse the executor calls. Declared structurally so
 * src/exec compiles against the lake contract (briefs/lake-api.md) without
 * reaching into lake internals; src/lake's Warehouse satisfies it.
 */
export interface ExecWarehouse {
  getTableById(id: number): ExecTableMetadata | undefined;
  planScan(req: {
    table: ExecTableMetadata;
    at?: unknown;
    txn?: ExecLakeTransaction;
    projection?: string[];
    filters?: { column: string; op: string; value?: unknown; values?: unknown[] }[];
    limit?: number;
  }): Promise<{ snapshotId?: unknown; tasks: readonly unknown[]; pushdown: readonly string[]; stats?: unknown }>;
}

export interface ExecTableMetadata {
  readonly id: number;
  readonly namespace: string;
  readonly name: string;
  readonly columns: readonly { readonly name: string; readonly type: import('../common/sql-type.js').SqlType; readonly nullable: boolean }[];
  readonly primaryKey: readonly string[];
}

/** The slice of src/lake's LakeTransaction the DML sinks call. */
export interface ExecLakeTransaction {
  insert(table: ExecTableMetadata, ref: string, columns: readonly (readonly unknown[])[]): Promise<unknown>;
  upsert(table: ExecTableMetadata, ref: string, columns: readonly (readonly unknown[])[]): Promise<unknown>;
  deleteKeys(table: ExecTableMetadata, ref: string, keyColumns: readonly (readonly unknown[])[]): Promise<unknown>;
  update(table: ExecTableMetadata, ref: string, before: readonly (readonly unknown[])[], after: readonly (readonly unknown[])[]): Promise<unknown>;
  deleteRows?(table: ExecTableMetadata, ref: string, rowIds: readonly unknown[]): Promise<unknown>;
  markReadModifyWrite(table: ExecTableMetadata, ref: string): void | Promise<void>;
}

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
  readonly user?: string;
  readonly database?: string;
  readonly searchPath?: readonly string[];
  readonly virtualTables?: VirtualTableRegistry;
  /** Working-set limit for sort/aggregate/join state; default 1 GiB. Past it: FloeError 53200. */
  readonly memoryLimitBytes?: number;
  /** Where scan tasks run; default: the shared worker pool when the lake runner is available, else same thread. */
  readonly scanRunner?: ScanTaskRunner;
  readonly pool?: ScanPool;
  /** Filled with per-node metrics when present (EXPLAIN ANALYZE). */
  readonly metrics?: Map<PhysicalPlan, OperatorMetrics>;
  /** Called by DML sinks with the number of rows inserted/updated/deleted. */
  readonly onRowsAffected?: (count: number) => void;
  /** now()/current_timestamp: transaction start (µs since epoch); default: statement start. */
  readonly transactionStartMicros?: bigint;
}
