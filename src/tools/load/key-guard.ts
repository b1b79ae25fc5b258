import { FloeError, isFloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { TableMetadata } from '../../lake/index.js';

/**
 * INSERT semantics for a keyed table loaded without --upsert: the lake's checked insert
 * refuses a key already in the table or repeated in the batch (23505). This names the
 * input line of the refused row, which the lake cannot know: it keeps, for the batch
 * being collected only, each row's key and position.
 */
export class KeyGuard {
  #keys: unknown[][] = [];
  #where: (() => string)[] = [];

  private constructor(private readonly table: TableMetadata, private readonly indexes: number[]) {}

  static create(table: TableMetadata): KeyGuard | undefined {
    if (table.primaryKey.length === 0) return undefined;
    return new KeyGuard(table, table.primaryKey.map((k) => table.columns.findIndex((c) => c.name === k)));
  }

  /** Notes a row of the batch being collected. */
  record(row: readonly unknown[], where: () => string): void {
    this.#keys.push(this.indexes.map((i) => row[i]));
    this.#where.push(where);
  }

  /** The batch was committed (or dropped): forget its rows. */
  reset(): void {
    this.#keys = [];
    this.#where = [];
  }

  /**
   * The lake's 23505 with the refused row's line: the second row of the batch with the
   * key when it repeats in the batch, else the row whose key is already in the table.
   */
  explain(e: unknown): unknown {
    if (!isFloeError(e) || e.sqlstate !== SqlState.uniqueViolation || e.detail === undefined) return e;
    const at: number[] = [];
    for (let r = 0; r < this.#keys.length; r++) {
      if (e.detail === `Key (${this.table.primaryKey.join(', ')})=(${this.#keys[r]!.map((v) => String(v)).join(', ')}) already exists.`) at.push(r);
    }
    const row = at.length >= 2 ? at[1] : at[0];
    const detail = row === undefined ? e.detail : `${e.detail.replace(/\.$/, '')}; ${this.#where[row]!()}`;
    return new FloeError(e.sqlstate, e.message, { detail, hint: 'Use --upsert to replace existing rows.', cause: e });
  }
}
