import type { SqlType } from '../../common/sql-type.js';
import type { LakeTableRef } from '../../exec/index.js';

/** What the planner knows about a scanned lake table: enough to prune and to print. */
export interface ScanTable extends LakeTableRef {
  readonly columns: readonly { readonly name: string; readonly type: SqlType }[];
  readonly primaryKey: readonly string[];
  /** Source columns of the partition spec (pruning is worth offering filters on them). */
  readonly partitionColumns: readonly string[];
  /** Live rows when the statement was bound (base plus change rows, so an overestimate while changes are pending). */
  readonly rowEstimate?: number;
  /** [min, max] of ordered numeric columns over the live files' statistics (see BindEnv.columnRanges). */
  readonly columnRanges?: Readonly<Record<string, readonly [number, number]>>;
  /** The table's `merge-engine` when it is not deduplicate: a key's rows are combined, not replaced (src/lake/merge/merge-engine.ts). */
  readonly mergeEngine?: string;
}
