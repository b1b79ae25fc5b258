import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';

/**
 * Accounts the working set of one query (sort buffers, hash tables). Estimates
 * are coarse but monotone; past the limit the query fails with 53200 instead of
 * taking the server down.
 */
export class MemoryTracker {
  readonly limitBytes: number;
  #used = 0;

  constructor(limitBytes: number) {
    this.limitBytes = limitBytes;
  }

  get usedBytes(): number {
    return this.#used;
  }

  reserve(bytes: number, what: string): void {
    this.#used += bytes;
    if (this.#used > this.limitBytes) {
      throw new FloeError(SqlState.outOfMemory, `out of memory`, {
        detail: `${what} needs more than the query memory limit of ${this.limitBytes} bytes.`,
        hint: 'Raise floe.query_memory_limit (for example SET floe.query_memory_limit = \'2GB\') or reduce the data the query keeps in memory.',
      });
    }
  }

  /** Whether `bytes` more would still fit: operators that can spill ask before they reserve. */
  fits(bytes: number): boolean {
    return this.#used + bytes <= this.limitBytes;
  }

  release(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}
