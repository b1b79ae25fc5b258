import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { TableMetadata, Warehouse } from '../../lake/index.js';
import type { KeyGuard } from './key-guard.js';

export interface BatchWriterOptions {
  readonly batchRows: number;
  readonly upsert: boolean;
  /** Names the input line of a key the lake refuses (a keyed table loaded without --upsert). */
  readonly keyGuard?: KeyGuard;
  /** Called after each committed batch with the rows it held. */
  readonly onCommit?: (rows: number) => void;
}

/**
 * Collects canonical rows in table column order and commits them in transactions
 * of `batchRows` rows. Each batch is its own transaction, so a failure leaves the
 * earlier batches loaded and nothing of the batch being collected.
 */
export class BatchWriter {
  private columns: unknown[][];
  private count = 0;
  committedRows = 0;
  committedBatches = 0;

  constructor(
    private readonly warehouse: Warehouse,
    private readonly table: TableMetadata,
    private readonly opts: BatchWriterOptions,
  ) {
    this.columns = table.columns.map(() => []);
  }

  /** `where` names the input position (e.g. "line 12") for a NOT NULL violation. */
  async push(row: readonly unknown[], where: () => string): Promise<void> {
    const cols = this.table.columns;
    for (let i = 0; i < cols.length; i++) {
      const v = row[i] ?? null;
      // The check is made here so the error can name the input line, not just the column.
      if (v === null && !cols[i]!.nullable) {
        throw new FloeError(SqlState.notNullViolation, `null value in column "${cols[i]!.name}" of relation "${this.table.name}" violates not-null constraint`, {
          detail: where(),
        });
      }
    }
    this.opts.keyGuard?.record(row, where);
    for (let i = 0; i < cols.length; i++) this.columns[i]!.push(row[i] ?? null);
    if (++this.count >= this.opts.batchRows) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.count === 0) return;
    const columns = this.columns;
    const rows = this.count;
    const txn = await this.warehouse.begin();
    try {
      // without --upsert the lake checks the keys (23505), against the table and the batch
      if (this.opts.upsert) await txn.upsert(this.table, 'main', columns);
      else await txn.insert(this.table, 'main', columns);
      await txn.commit();
    } catch (e) {
      if (txn.state === 'open') await txn.abort().catch(() => undefined);
      throw this.opts.keyGuard?.explain(e) ?? e;
    }
    this.columns = this.table.columns.map(() => []);
    this.count = 0;
    this.opts.keyGuard?.reset();
    this.committedRows += rows;
    this.committedBatches++;
    this.opts.onCommit?.(rows);
  }

  /** Rows collected and not yet committed. */
  get pending(): number {
    return this.count;
  }
}
