import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { Catalog, SequenceRecord } from '../catalog/catalog.js';

/** Values reserved in the catalog and not yet handed out, for one sequence in this process. */
interface Block {
  readonly values: readonly bigint[];
  next: number;
  readonly generation: number;
}

/**
 * nextval for one process: values come from blocks reserved in the catalog (one database
 * transaction each), handed out from memory. A block holds max(CACHE, blockSize) values;
 * the values of a block nobody used are lost if the process dies (a gap, never a repeat)
 * and given back on a clean close when nobody reserved after them.
 */
export class SequenceValues {
  readonly #catalog: () => Catalog;
  readonly #blockSize: number;
  readonly #blocks = new Map<number, Block>();

  constructor(catalog: () => Catalog, blockSize: number) {
    this.#catalog = catalog;
    this.#blockSize = Math.max(1, blockSize);
  }

  #sequence(id: number): SequenceRecord {
    const s = this.#catalog().getSequenceById(id);
    if (s === undefined) throw new FloeError(SqlState.undefinedTable, `could not open relation with OID ${id}`);
    return s;
  }

  next(id: number): bigint {
    const s = this.#sequence(id);
    let b = this.#blocks.get(id);
    // setval, RESTART or new options elsewhere (generation moved) make the block's values stale.
    if (b !== undefined && (b.generation !== s.generation || b.next >= b.values.length)) {
      this.#blocks.delete(id);
      b = undefined;
    }
    if (b === undefined) {
      const size = Math.max(Number(s.cache > 1_000_000n ? 1_000_000n : s.cache), this.#blockSize);
      const r = this.#catalog().reserveSequenceValues(id, size);
      b = { values: r.values, next: 0, generation: r.generation };
      this.#blocks.set(id, b);
    }
    return b.values[b.next++]!;
  }

  set(id: number, value: bigint, isCalled: boolean): void {
    this.#blocks.delete(id);
    this.#catalog().setSequenceValue(id, value, isCalled);
  }

  /**
   * A change of the sequence's options or a RESTART from this process: give back the block's
   * unused values first, so new options continue from the last value handed out (as in PostgreSQL).
   */
  forget(id: number): void {
    this.#release(id);
  }

  #release(id: number): void {
    const b = this.#blocks.get(id);
    this.#blocks.delete(id);
    if (b === undefined || b.next >= b.values.length) return;
    const back = b.next === 0 ? { lastValue: b.values[0]!, isCalled: false } : { lastValue: b.values[b.next - 1]!, isCalled: true };
    this.#catalog().releaseSequenceValues(id, b.generation, b.values[b.values.length - 1]!, back.lastValue, back.isCalled);
  }

  /** last_value / is_called as `SELECT * FROM s` shows them: this process's last handed-out value while it holds a block. */
  state(s: SequenceRecord): { lastValue: bigint; isCalled: boolean } {
    const b = this.#blocks.get(s.id);
    if (b === undefined || b.generation !== s.generation) {
      return { lastValue: s.lastValue, isCalled: s.isCalled };
    }
    return b.next === 0 ? this.#before(s, b) : { lastValue: b.values[b.next - 1]!, isCalled: true };
  }

  /** The state the catalog had before this block was reserved: its first value not yet used. */
  #before(_s: SequenceRecord, b: Block): { lastValue: bigint; isCalled: boolean } {
    return { lastValue: b.values[0]!, isCalled: false };
  }

  /** Gives back what this process reserved and did not use, where nobody reserved or reset after it. */
  releaseAll(): void {
    for (const id of [...this.#blocks.keys()]) this.#release(id);
  }
}
