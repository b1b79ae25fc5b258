import type { ConstraintModes } from './constraint-modes.js';
import type { Snapshot } from '../refs/snapshot.js';
import type { TableMetadata } from '../table/table-metadata.js';
import type { SubscriptionProgress } from '../subscription/subscription-metadata.js';
import type { MaterializedViewProgress } from '../table/materialized-view-metadata.js';

/** A point in a transaction's staged writes that ROLLBACK TO SAVEPOINT returns to. Opaque. */
export interface TxnSavepoint {
  readonly txnId: string;
  readonly ordinal: number;
}

/** PostgreSQL's isolation levels as Floe runs them; repeatable read and serializable are both snapshot isolation. */
export type TxnIsolation = 'read committed' | 'repeatable read' | 'serializable';

export interface BeginOptions {
  /** Heartbeat period; a transaction silent for `staleAfterMs` may be aborted by others. */
  readonly heartbeatMs?: number;
  /**
   * Read committed (default): a plain write is not checked against commits after its
   * snapshot unless marked read-modify-write. Repeatable read / serializable: every
   * table written is (40001 on a concurrent write of the same key).
   */
  readonly isolation?: TxnIsolation;
  /** SET CONSTRAINTS given before the transaction began in the lake (the session begins it lazily). */
  readonly constraintModes?: ConstraintModes;
}

/**
 * A write transaction. Its seq comes from the catalog at begin, so rows it writes are
 * ordered by when it started (DESIGN.md "Sequence numbers"). `ref` is the branch written.
 * Values are one array per table column, in table column order, canonical values.
 */
export interface LakeTransaction {
  readonly id: string;
  readonly seq: bigint;
  /** Keyed table: +I rows. Append table: base rows. */
  insert(table: TableMetadata, ref: string, columns: readonly (readonly unknown[])[]): Promise<void>;
  /** Same as insert for a keyed table (+I wins by (seq, offset)); append table: plain insert. */
  upsert(table: TableMetadata, ref: string, columns: readonly (readonly unknown[])[]): Promise<void>;
  /** One array per primary-key column, in primaryKey order. */
  deleteKeys(table: TableMetadata, ref: string, keyColumns: readonly (readonly unknown[])[]): Promise<void>;
  /** -U/+U pairs: before[i] row becomes after[i] row (full rows). */
  update(table: TableMetadata, ref: string, before: readonly (readonly unknown[])[], after: readonly (readonly unknown[])[]): Promise<void>;
  /** Append tables: row ids read through ROW_ID_COLUMN. */
  deleteRows(table: TableMetadata, ref: string, rowIds: readonly bigint[]): Promise<void>;
  /** Apply the snapshot-isolation check for this table at commit (FloeError 40001). */
  markReadModifyWrite(table: TableMetadata, ref: string): void;
  /**
   * READ COMMITTED, between statements: tables this transaction has only read are read
   * again at their branch head by the next statement (written tables keep their snapshot).
   */
  releaseReadSnapshots(): void;
  /**
   * Tables touched from now on are read at the newest snapshot of their branch whose id is
   * at most `snapshotId`, not at the head: a replication slot's snapshot (SNAPSHOT 'use'),
   * so the initial copy holds exactly the commits before the slot's consistent point.
   */
  readAtOrBefore(snapshotId: bigint): void;
  /**
   * SET CONSTRAINTS: deferrable constraints follow `modes` from now on, and those that become
   * immediate are checked at once for the rows written while they were deferred (23505).
   */
  setConstraintModes(modes: ConstraintModes): Promise<void>;
  /**
   * The commit stores this subscription position in the same catalog transaction as its
   * data (CDC in's exactly-once rule); with nothing written, it is stored alone. The last
   * call wins.
   */
  recordSubscriptionProgress(p: SubscriptionProgress): void;
  /**
   * A materialized view's refresh: the commit moves the view to these positions in the same
   * catalog transaction as the rows, only from the generation the refresh read (40001
   * otherwise); with nothing written, it is stored alone.
   */
  recordViewRefresh(p: MaterializedViewProgress): void;
  /** Marks what is staged now, for a later rollbackTo. */
  savepoint(): TxnSavepoint;
  /**
   * Drops everything staged after the mark (with no mark: everything staged so far);
   * the transaction stays open and keeps its seq and read snapshots.
   */
  rollbackTo(mark: TxnSavepoint | undefined): Promise<void>;
  /** One snapshot per table written; returns the last one (undefined when nothing was written). */
  commit(): Promise<Snapshot | undefined>;
  abort(): Promise<void>;
  readonly state: 'open' | 'committed' | 'aborted';
}
