import type { TierOptions } from '../../lake/index.js';
import { backgroundThread } from '../background-thread.js';

/**
 * The tiering thread's nice value. A pass decodes a table's log files and encodes one
 * Parquet file per node: on the gateway's main thread that held every commit and read
 * behind it (a 118 ms stall in a profile of one client's single-row INSERTs). Queries'
 * threads (0) go first; the optimizer's folds (19) go after, since tiering keeps the log
 * short, which the insert checks and merge-on-read pay for while it grows.
 */
export const TIERING_NICENESS = 10;

/** A tiering group's rewrite, as tierLogFiles takes it. */
export type ChangeGroupRewriter = NonNullable<TierOptions['runTask']>;

/** One background thread that writes tiering's change files. */
export interface TieringPool {
  readonly rewriteChangeGroup: ChangeGroupRewriter;
  close(): Promise<void>;
}

/** A group whose rewrite fails (its thread died) is tiered again by a later round: nothing was swapped. */
export function createTieringPool(opts: { readonly niceness?: number } = {}): TieringPool {
  const thread = backgroundThread<Parameters<ChangeGroupRewriter>[0], Awaited<ReturnType<ChangeGroupRewriter>>>(
    import.meta.url, 'tiering-worker', 'rewriteChangeGroup', opts.niceness ?? TIERING_NICENESS);
  return { rewriteChangeGroup: (task) => thread.run(task), close: () => thread.close() };
}
