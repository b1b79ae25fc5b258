import type { MaterializedViewProgress } from '../lake/index.js';
import type { ConstraintModes, LakeTransaction, SubscriptionProgress, TableMetadata, TxnSavepoint } from '../lake/index.js';

/** How a session transaction reaches its temporary tables (session-warehouse.ts). */
export interface TempTableSide {
  isTemp(table: TableMetadata): boolean;
  /** ON COMMIT DELETE ROWS: the table's rows last until the transaction ends. */
  discardsRowsAtEnd(table: TableMetadata): boolean;
  /** A transaction on the session's private warehouse. */
  begin(): Promise<LakeTransaction>;
}

/** A savepoint over every part a session transaction has begun by then. */
interface SessionSavepoint extends TxnSavepoint {
  readonly shared: TxnSavepoint;
  readonly kept: TxnSavepoint | undefined;
  readonly discarded: TxnSavepoint | undefined;
}

/**
 * One session transaction over the shared warehouse and the session's temporary tables.
 * Writes to temporary tables go to a second transaction on the session's private warehouse,
 * begun when first needed; those to ON COMMIT DELETE ROWS tables go to a third one, which is
 * always aborted at the end, so the table is empty after every transaction, as in PostgreSQL.
 * COMMIT commits the shared part first: a conflict there (40001) must undo the temporary
 * rows too, while the temporary parts have no concurrent writers to fail on.
 */
export class SessionTransaction implements LakeTransaction {
  readonly shared: LakeTransaction;
  readonly #temp: TempTableSide;
  #kept: LakeTransaction | undefined;
  #discarded: LakeTransaction | undefined;
  /** SET CONSTRAINTS since the transaction began: a temporary part begun later takes them too. */
  #modes: ConstraintModes | undefined;

  constructor(shared: LakeTransaction, temp: TempTableSide) {
    this.shared = shared;
    this.#temp = temp;
  }

  get id(): string { return this.shared.id; }
  get seq(): bigint { return this.shared.seq; }
  get state(): 'open' | 'committed' | 'aborted' { return this.shared.state; }

  /** The part a scan of `table` reads through (undefined: a temporary table this transaction has not written). */
  partFor(table: TableMetadata): LakeTransaction | undefined {
    if (!this.#temp.isTemp(table)) return this.shared;
    return this.#temp.discardsRowsAtEnd(table) ? this.#discarded : this.#kept;
  }

  async #writePart(table: TableMetadata): Promise<LakeTransaction> {
    if (!this.#temp.isTemp(table)) return this.shared;
    if (this.#temp.discardsRowsAtEnd(table)) return (this.#discarded ??= await this.#beginTemp());
    return (this.#kept ??= await this.#beginTemp());
  }

  async #beginTemp(): Promise<LakeTransaction> {
    const part = await this.#temp.begin();
    if (this.#modes !== undefined) await part.setConstraintModes(this.#modes);
    return part;
  }

  async setConstraintModes(modes: ConstraintModes): Promise<void> {
    this.#modes = modes;
    for (const part of this.#parts()) await part.setConstraintModes(modes);
  }

  recordSubscriptionProgress(p: SubscriptionProgress): void {
    this.shared.recordSubscriptionProgress(p);
  }

  recordViewRefresh(p: MaterializedViewProgress): void {
    this.shared.recordViewRefresh(p);
  }

  async insert(table: TableMetadata, ref: string, columns: readonly (readonly unknown[])[]): Promise<void> {
    await (await this.#writePart(table)).insert(table, ref, columns);
  }

  async upsert(table: TableMetadata, ref: string, columns: readonly (readonly unknown[])[]): Promise<void> {
    await (await this.#writePart(table)).upsert(table, ref, columns);
  }

  async deleteKeys(table: TableMetadata, ref: string, keyColumns: readonly (readonly unknown[])[]): Promise<void> {
    await (await this.#writePart(table)).deleteKeys(table, ref, keyColumns);
  }

  async update(table: TableMetadata, ref: string, before: readonly (readonly unknown[])[], after: readonly (readonly unknown[])[]): Promise<void> {
    await (await this.#writePart(table)).update(table, ref, before, after);
  }

  async deleteRows(table: TableMetadata, ref: string, rowIds: readonly bigint[]): Promise<void> {
    await (await this.#writePart(table)).deleteRows(table, ref, rowIds);
  }

  markReadModifyWrite(table: TableMetadata, ref: string): void {
    // No other session writes a temporary table, so only shared tables can conflict.
    if (!this.#temp.isTemp(table)) this.shared.markReadModifyWrite(table, ref);
  }

  readAtOrBefore(snapshotId: bigint): void {
    // Snapshot ids are the shared catalog's; a temporary table has no commits to stream.
    this.shared.readAtOrBefore(snapshotId);
  }

  releaseReadSnapshots(): void {
    for (const part of this.#parts()) part.releaseReadSnapshots();
  }

  savepoint(): TxnSavepoint {
    const shared = this.shared.savepoint();
    const mark: SessionSavepoint = { ...shared, shared, kept: this.#kept?.savepoint(), discarded: this.#discarded?.savepoint() };
    return mark;
  }

  async rollbackTo(mark: TxnSavepoint | undefined): Promise<void> {
    const m = mark as SessionSavepoint | undefined;
    await this.shared.rollbackTo(m?.shared);
    // A part begun after the mark has nothing to keep: no mark rolls it back entirely.
    await this.#kept?.rollbackTo(m?.kept);
    await this.#discarded?.rollbackTo(m?.discarded);
  }

  async commit() {
    try {
      const snapshot = await this.shared.commit();
      await this.#kept?.commit();
      return snapshot;
    } catch (e) {
      await this.#abortTemp();
      throw e;
    } finally {
      await this.#discarded?.abort().catch(() => undefined);
    }
  }

  async abort(): Promise<void> {
    try {
      await this.shared.abort();
    } finally {
      await this.#abortTemp();
    }
  }

  async #abortTemp(): Promise<void> {
    for (const part of [this.#kept, this.#discarded]) {
      if (part?.state === 'open') await part.abort().catch(() => undefined);
    }
  }

  #parts(): LakeTransaction[] {
    return [this.shared, ...(this.#kept ? [this.#kept] : []), ...(this.#discarded ? [this.#discarded] : [])];
  }
}
