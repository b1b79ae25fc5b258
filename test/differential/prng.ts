import { RandomStream } from '../../src/tools/tpch/random-stream.js';

/**
 * The TPC-H generator's seeded stream (mulberry32), so that a seed replays the same
 * schema and history on every machine, with what the generator needs beside it.
 */
export class Prng extends RandomStream {
  chance(p: number): boolean {
    return this.next() < p;
  }

  override pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return super.pick(items);
  }

  /** A seed for a child generator, so that sub-histories do not shift when one of them changes. */
  fork(): number {
    return Math.floor(this.next() * 4294967296) >>> 0;
  }
}
