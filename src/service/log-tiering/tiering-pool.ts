import { executeRewriteTask, rewriteResultOf } from '../../lake/index.js';
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
type ChangeGroupTask = Parameters<ChangeGroupRewriter>[0];
type ChangeGroupResult = Awaited<ReturnType<ChangeGroupRewriter>>;

/** One background thread that writes tiering's change files. */
export interface TieringPool {
  readonly rewriteChangeGroup: ChangeGroupRewriter;
  /** Starts the thread if it has not started; settles once it has loaded (true) or failed to (false). Until then groups are rewritten on the calling thread. */
  load(): Promise<boolean>;
  /** Groups the thread has rewritten. */
  readonly groupsOnThread: number;
  close(): Promise<void>;
}

/**
 * The thread starts with the first group to tier (a gateway that never tiers does not pay
 * its load) and loads the lake, about a second of CPU, at nice 10 many times that on a busy
 * machine; until it has, each group is rewritten on the calling thread, as without the
 * pool, so no tiering waits for the load (it came 8-9 s after the first commits when the
 * groups waited). A group whose rewrite fails (its thread died) is tiered again by a later
 * round: nothing was swapped.
 */
export function createTieringPool(opts: { readonly niceness?: number } = {}): TieringPool {
  const thread = backgroundThread<ChangeGroupTask | undefined, ChangeGroupResult | undefined>(
    import.meta.url, 'tiering-worker', 'rewriteChangeGroup', opts.niceness ?? TIERING_NICENESS);
  let loaded = false;
  let ready: Promise<boolean> | undefined;
  const load = (): Promise<boolean> => (ready ??= thread.run(undefined).then(() => (loaded = true), () => false));
  const inline: ChangeGroupRewriter = async (task) => rewriteResultOf('change-group', await executeRewriteTask(task));
  return {
    rewriteChangeGroup: async (task) => {
      if (loaded) return (await thread.run(task))!;
      void load();
      return inline(task);
    },
    load,
    // Less the first run, which only loaded the lake.
    get groupsOnThread() { return Math.max(0, thread.completed - 1); },
    close: () => thread.close(),
  };
}
