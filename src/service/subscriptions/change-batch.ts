import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { LakeTransaction, SubscriptionProgress, TableMetadata, Warehouse } from '../../lake/index.js';
import { KeylessChanges } from './keyless-changes.js';
import { keyString } from './value-identity.js';

/** A row in the Floe table's column order when it was decoded (a column added since reads NULL). */
export type FloeRow = readonly unknown[];

interface KeyedChange {
  readonly key: readonly unknown[];
  /** undefined: the key was deleted. */
  readonly row: FloeRow | undefined;
}

/** A batch's removals that found no equal row when written: the table and how many. */
export type MissingRows = (table: TableMetadata, rows: number) => void;

/**
 * The changes of whole source transactions that one Floe commit will hold. Within a
 * commit only each key's last change can be seen, so a key's changes fold into one: an
 * upsert of its last row, or a delete. Both are blind writes (DESIGN.md, "Conflict rules"),
 * so the apply never fails on a concurrent writer. A table without a key takes appends
 * and removals of whole rows instead (keyless-changes.ts).
 */
export class ChangeBatch {
  readonly #tables = new Map<number, Map<string, KeyedChange>>();
  readonly #keyless = new Map<number, KeylessChanges>();
  readonly #onMissing: MissingRows;
  #txn: LakeTransaction | undefined;
  #changes = 0;
  #sinceFlush = 0;
  /** The end LSN and commit time of the last whole source transaction taken in. */
  endLsn: bigint | undefined;
  endSourceMicros: bigint | undefined;
  /** When the first transaction was taken in (Date.now()), for the commit-every rule. */
  startedMs: number | undefined;

  constructor(onMissing: MissingRows = () => undefined) {
    this.#onMissing = onMissing;
  }

  /** Changes taken in (before folding), to bound a batch. */
  get changes(): number {
    return this.#changes;
  }

  /** Changes taken in since they were last written into the lake transaction (memory held by the batch). */
  get unflushed(): number {
    return this.#sinceFlush;
  }

  get isEmpty(): boolean {
    return this.endLsn === undefined;
  }

  upsert(tableId: number, key: readonly unknown[], row: FloeRow): void {
    this.#table(tableId).set(keyString(key), { key, row });
    this.#changes++;
    this.#sinceFlush++;
  }

  delete(tableId: number, key: readonly unknown[]): void {
    this.#table(tableId).set(keyString(key), { key, row: undefined });
    this.#changes++;
    this.#sinceFlush++;
  }

  /** A row appended to a table without a key; `columns`: the Floe columns the source sends. */
  append(tableId: number, row: FloeRow, columns: readonly number[]): void {
    this.#keylessOf(tableId).append(row, columns);
    this.#changes++;
    this.#sinceFlush++;
  }

  /** One row equal to `row` in `columns` leaves a table without a key (when there is one). */
  removeRow(tableId: number, row: FloeRow, columns: readonly number[]): void {
    this.#keylessOf(tableId).remove(row, columns);
    this.#changes++;
    this.#sinceFlush++;
  }

  /** Whether the batch holds unwritten changes to a table without a key. */
  holdsKeyless(tableId: number): boolean {
    return this.#keyless.get(tableId)?.isEmpty === false;
  }

  #keylessOf(tableId: number): KeylessChanges {
    let k = this.#keyless.get(tableId);
    if (k === undefined) this.#keyless.set(tableId, (k = new KeylessChanges()));
    return k;
  }

  /** The row a key has in the batch: a row, null when the batch deletes it, undefined when the batch has not touched it. */
  pending(tableId: number, key: readonly unknown[]): FloeRow | null | undefined {
    const c = this.#tables.get(tableId)?.get(keyString(key));
    return c === undefined ? undefined : (c.row ?? null);
  }

  #table(tableId: number): Map<string, KeyedChange> {
    let m = this.#tables.get(tableId);
    if (m === undefined) this.#tables.set(tableId, (m = new Map()));
    return m;
  }

  /** Marks a whole source transaction taken in. */
  endTransaction(endLsn: bigint, sourceMicros: bigint): void {
    this.endLsn = endLsn;
    this.endSourceMicros = sourceMicros;
    this.startedMs ??= Date.now();
  }

  /** The batch's lake transaction, begun on first need (a read of what the batch wrote, a TRUNCATE, the commit). */
  async transaction(warehouse: Warehouse): Promise<LakeTransaction> {
    return (this.#txn ??= await warehouse.begin());
  }

  /** Writes the folded changes so far into the lake transaction (reads through it then see them). */
  async flush(warehouse: Warehouse): Promise<LakeTransaction> {
    const txn = await this.transaction(warehouse);
    for (const [tableId, changes] of this.#tables) {
      if (changes.size === 0) continue;
      const table = warehouse.getTableById(tableId);
      if (table === undefined) throw new FloeError(SqlState.undefinedTable, `logical replication target relation ${tableId} was dropped`);
      await writeChanges(txn, table, [...changes.values()]);
    }
    this.#tables.clear();
    for (const [tableId, changes] of this.#keyless) {
      if (changes.isEmpty) continue;
      const table = warehouse.getTableById(tableId);
      if (table === undefined) throw new FloeError(SqlState.undefinedTable, `logical replication target relation ${tableId} was dropped`);
      const missing = await changes.write(warehouse, txn, table);
      if (missing > 0) this.#onMissing(table, missing);
    }
    this.#keyless.clear();
    this.#sinceFlush = 0;
    return txn;
  }

  /** Commits everything with the subscription's position in the same catalog transaction. */
  async commit(warehouse: Warehouse, subscriptionId: number): Promise<void> {
    if (this.endLsn === undefined) return;
    const progress: SubscriptionProgress = {
      subscriptionId, appliedLsn: this.endLsn, ...(this.endSourceMicros === undefined ? {} : { appliedSourceMicros: this.endSourceMicros }),
    };
    if (this.#txn === undefined && this.#tables.size === 0 && this.#keyless.size === 0) {
      // Source transactions that wrote nothing Floe keeps: the position alone.
      warehouse.recordSubscriptionProgress(progress);
      return;
    }
    const txn = await this.flush(warehouse);
    txn.recordSubscriptionProgress(progress);
    try {
      await txn.commit();
    } finally {
      this.#txn = undefined;
    }
  }

  async abort(): Promise<void> {
    const txn = this.#txn;
    this.#txn = undefined;
    this.#tables.clear();
    this.#keyless.clear();
    if (txn !== undefined && txn.state === 'open') await txn.abort().catch(() => undefined);
  }
}

async function writeChanges(txn: LakeTransaction, table: TableMetadata, changes: readonly KeyedChange[]): Promise<void> {
  const deletes = changes.filter((c) => c.row === undefined);
  const upserts = changes.filter((c) => c.row !== undefined);
  if (deletes.length > 0) await txn.deleteKeys(table, 'main', table.primaryKey.map((_, k) => deletes.map((d) => d.key[k])));
  if (upserts.length > 0) await txn.upsert(table, 'main', table.columns.map((_, c) => upserts.map((u) => u.row![c] ?? null)));
}
