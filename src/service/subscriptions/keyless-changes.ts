import type { LakeTransaction, TableMetadata, Warehouse } from '../../lake/index.js';
import type { FloeRow } from './change-batch.js';
import { keyString } from './value-identity.js';
import { readRowsWithIds } from './table-reader.js';

/** Equal rows, any one of which will do (a table without a key may hold several). */
interface EqualRows {
  readonly row: FloeRow;
  /** The Floe columns compared: those the source sends. */
  readonly columns: readonly number[];
  count: number;
}

/**
 * A batch's changes to one table without a key, from a REPLICA IDENTITY FULL source.
 * As PostgreSQL's apply worker does, an UPDATE or DELETE removes one row equal to the old
 * row in every column the source sends (NULLs equal), whichever one; an UPDATE then
 * appends the new row. Removals that a row appended in this batch can take, take it;
 * the others are matched against the table as the lake transaction sees it when the batch
 * is written, with one scan for all of them. Equal rows are interchangeable, so the
 * table ends as the source's multiset whichever rows are picked.
 */
export class KeylessChanges {
  /** Rows appended and not yet written, by identity. */
  readonly #appended = new Map<string, EqualRows>();
  /** Rows to remove from the table as written so far, by identity. */
  readonly #removals = new Map<string, EqualRows>();

  get isEmpty(): boolean {
    return this.#appended.size === 0 && this.#removals.size === 0;
  }

  append(row: FloeRow, columns: readonly number[]): void {
    add(this.#appended, row, columns);
  }

  remove(row: FloeRow, columns: readonly number[]): void {
    const id = identity(row, columns);
    const pending = this.#appended.get(id);
    if (pending !== undefined) {
      if (--pending.count === 0) this.#appended.delete(id);
      return;
    }
    add(this.#removals, row, columns);
  }

  /**
   * Writes the changes into the lake transaction: the removals as deletion vectors on the
   * rows found (before the appended rows are there to be found), then the appended rows.
   * Returns how many removals found no row (PostgreSQL logs those and goes on).
   */
  async write(warehouse: Warehouse, txn: LakeTransaction, table: TableMetadata): Promise<number> {
    let missing = 0;
    if (this.#removals.size > 0) {
      const columnSets = new Map<string, readonly number[]>();
      for (const r of this.#removals.values()) {
        missing += r.count;
        columnSets.set(r.columns.join(','), r.columns);
      }
      const rowIds: bigint[] = [];
      for await (const { rowId, row } of readRowsWithIds(warehouse, txn, table)) {
        for (const columns of columnSets.values()) {
          const wanted = this.#removals.get(identity(row, columns));
          if (wanted === undefined || wanted.count === 0) continue;
          wanted.count--;
          missing--;
          rowIds.push(rowId);
          break;
        }
        if (missing === 0) break;
      }
      if (rowIds.length > 0) await txn.deleteRows(table, 'main', rowIds);
      this.#removals.clear();
    }
    if (this.#appended.size > 0) {
      const rows: FloeRow[] = [];
      for (const a of this.#appended.values()) for (let i = 0; i < a.count; i++) rows.push(a.row);
      // A column added since a row was decoded reads NULL.
      await txn.insert(table, 'main', table.columns.map((_, c) => rows.map((r) => r[c] ?? null)));
      this.#appended.clear();
    }
    return missing;
  }
}

function add(to: Map<string, EqualRows>, row: FloeRow, columns: readonly number[]): void {
  const id = identity(row, columns);
  const seen = to.get(id);
  if (seen === undefined) to.set(id, { row, columns, count: 1 });
  else seen.count++;
}

/** Which columns are compared is part of the identity: a source that sends more columns compares more. */
function identity(row: FloeRow, columns: readonly number[]): string {
  return keyString([columns, columns.map((c) => row[c] ?? null)]);
}
