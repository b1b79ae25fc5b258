import type { CheckConstraintPlan } from './check-constraint-plan.js';
import type { SqlType } from '../../common/sql-type.js';
import type { Expr } from '../expr/expr.js';

/**
 * The physical plan: immutable data, one node kind per operator in
 * src/exec/operators/. Every node lists its output columns. Expressions inside a
 * node refer to its input's columns by index (joins: left columns, then right).
 * Plans hold no closures and no run state, so they can be printed by EXPLAIN,
 * cached with prepared statements, and shipped to workers.
 */
export type PhysicalPlan =
  | LakeScanPlan
  | VirtualScanPlan
  | ValuesPlan
  | CteScanPlan
  | FilterPlan
  | ProjectPlan
  | ProjectSetPlan
  | HashAggregatePlan
  | HashJoinPlan
  | NestedLoopJoinPlan
  | SortPlan
  | TopNPlan
  | LimitPlan
  | WindowPlan
  | SetOpPlan
  | DistinctPlan
  | InsertPlan
  | UpdatePlan
  | DeletePlan
  | MergePlan
  | LateralJoinPlan
  | RecursiveUnionPlan
  | WorkTableScanPlan
  | DataModifyingCtesPlan;

export type PhysicalPlanKind = PhysicalPlan['kind'];

export interface OutputColumn {
  readonly name: string;
  readonly type: SqlType;
}

/** Mirrors src/lake's SnapshotSelector (plain data). */
export type ScanSnapshotSelector =
  | { readonly kind: 'ref'; readonly name: string }
  | { readonly kind: 'snapshot'; readonly id: bigint }
  | { readonly kind: 'timestamp'; readonly micros: bigint }
  | { readonly kind: 'version'; readonly value: string }
  /** `FOR SYSTEM_TIME AS OF <expr>` that is not a constant: a timestamptz evaluated when the scan starts. */
  | { readonly kind: 'timestampExpr'; readonly expr: Expr }
  /** `FOR SYSTEM_VERSION AS OF $n`: a snapshot id, tag or branch name (text) evaluated when the scan starts. */
  | { readonly kind: 'versionExpr'; readonly expr: Expr };

/** Mirrors src/lake's ScanFilter: a pushed predicate on a table column, canonical values. */
export interface ScanFilterSpec {
  readonly column: string;
  readonly op: '=' | '<' | '<=' | '>' | '>=' | '<>' | 'isNull' | 'isNotNull' | 'in';
  readonly value?: unknown;
  readonly values?: readonly unknown[];
  /**
   * `column op $n` in a prepared statement: the value is the run's parameter `index`
   * (as `type`), bound when the scan is planned at execution, so a cached plan prunes
   * by the value of each execution. The conjunct stays in the residual too (a NULL
   * parameter pushes nothing).
   */
  readonly param?: { readonly index: number; readonly type: SqlType };
}

/** Identifies a lake table; the executor fetches its current metadata from the warehouse at run time. */
export interface LakeTableRef {
  readonly id: number;
  readonly namespace: string;
  readonly name: string;
}

/** What a scan of a lake table reads, in the logical plan and the physical one alike. */
export interface ScanSelection {
  /** Time travel (FOR SYSTEM_TIME / SYSTEM_VERSION AS OF) or a branch read through `t$branch_b`. */
  readonly at?: ScanSnapshotSelector;
  /** Table column names to read, in output order. */
  readonly projection: readonly string[];
  /** Predicates offered to the lake for pruning; `residual` always re-checks them. */
  readonly filters: readonly ScanFilterSpec[];
  /** Predicate over the output columns, applied after the lake's scan. */
  readonly residual?: Expr;
  readonly limit?: number;
  readonly columns: readonly OutputColumn[];
}

/**
 * A scan of a lake table. Output columns are `projection` in order (table column
 * names). `filters` are offered to the lake's planScan for pruning/pushdown; the
 * executor re-applies `residual` (which must imply every filter the lake did not
 * report 'exact') over the output columns.
 */
export interface LakeScanPlan extends ScanSelection {
  readonly kind: 'lakeScan';
  readonly table: LakeTableRef;
  /**
   * [min, max] of projected integer columns over the table's file statistics when
   * planned: a runtime filter whose keys are every integer of a range holding the
   * column's is not applied (it could not remove a row). A hint only: skipping a
   * runtime filter never changes a result.
   */
  readonly columnRanges?: Readonly<Record<string, readonly [number, number]>>;
  /**
   * Equality on every primary-key column (constants or parameters): the lake prunes
   * the read to one bucket node per partition and the row groups whose key-hash range
   * holds the key, so the scan runs on the calling thread; a round trip through the
   * scan worker pool would cost more than the read (see docs/design-notes.md, "Point reads").
   */
  readonly pointRead?: true;
  /**
   * The scan's columns (indexes into `columns`) that hold the table's primary key, in key
   * order, when it reads every one: what a hash join above needs to look rows up by key
   * (KeyLookupSpec). Absent for append tables.
   */
  readonly primaryKey?: readonly number[];
  /**
   * The row groups the scan decodes are kept in the row-group cache of the thread that
   * reads them, for the statement's next run (planner/physical/rules/keep-scans-decoded.ts).
   */
  readonly keepDecoded?: true;
  /**
   * The table's merge engine when not deduplicate: the lake's merge combines a key's rows
   * by it, in every scan and point read alike, and prunes only by key filters before it
   * (EXPLAIN prints it).
   */
  readonly mergeEngine?: string;
}

/** A relation from the VirtualTableRegistry (pg_catalog, information_schema, system tables). */
export interface VirtualScanPlan {
  readonly kind: 'virtualScan';
  readonly schema: string;
  readonly name: string;
  /** Indexes of the virtual table's columns to output, in order; all when absent. */
  readonly projection?: readonly number[];
  readonly columns: readonly OutputColumn[];
  /** Arguments evaluated when the scan starts (parameters the binder could not know), handed to the table's rows. */
  readonly args?: readonly Expr[];
}

/**
 * A WITH query the statement reads more than once, planned once: every
 * CteScanPlan over it shares this object, and a run computes it once.
 */
export interface MaterializedCte {
  readonly name: string;
  readonly plan: PhysicalPlan;
}

/** Reads a materialized WITH query's rows (computed at the first read of the run, kept for the others). */
export interface CteScanPlan {
  readonly kind: 'cteScan';
  readonly cte: MaterializedCte;
  readonly columns: readonly OutputColumn[];
}

/** VALUES (…), (…): each row's expressions are evaluated with no input columns (params/outer refs allowed). */
export interface ValuesPlan {
  readonly kind: 'values';
  readonly rows: readonly (readonly Expr[])[];
  readonly columns: readonly OutputColumn[];
}

export interface FilterPlan {
  readonly kind: 'filter';
  readonly input: PhysicalPlan;
  /** Boolean; rows where it is NULL or false are dropped. */
  readonly predicate: Expr;
  readonly columns: readonly OutputColumn[];
}

export interface ProjectPlan {
  readonly kind: 'project';
  readonly input: PhysicalPlan;
  readonly exprs: readonly Expr[];
  readonly columns: readonly OutputColumn[];
}

/**
 * A set-returning function call (generate_series, unnest, …): `fn` is a registry
 * id of kind 'set'; each call yields zero or more values per input row.
 */
export interface SetFunctionCall {
  readonly kind: 'setCall';
  readonly fn: string;
  readonly args: readonly Expr[];
  readonly type: SqlType;
  /** Output columns it fills (default 1); a record-returning function (jsonb_each) yields one array per row. */
  readonly width?: number;
}

/**
 * PostgreSQL's ProjectSet: per input row, every set function runs; the row
 * expands to as many output rows as the longest result (shorter ones pad with
 * NULL; plain expressions repeat). A row whose set functions all return nothing
 * produces no output. Also serves FROM f(args), LATERAL f(t.x) and
 * ROWS FROM: put the input's columns in `exprs` and the call after them.
 * With `ordinality`, a final int8 column numbers the rows of each input row from 1.
 */
export interface ProjectSetPlan {
  readonly kind: 'projectSet';
  readonly input: PhysicalPlan;
  readonly exprs: readonly (Expr | SetFunctionCall)[];
  readonly ordinality?: boolean;
  readonly columns: readonly OutputColumn[];
}

export interface SortKey {
  readonly expr: Expr;
  readonly descending: boolean;
  /** PostgreSQL's default: NULLS LAST for ASC, NULLS FIRST for DESC. */
  readonly nullsFirst: boolean;
}

/** One aggregate call; `fn` is a registry id from resolveFunction (kind 'aggregate'). */
export interface AggregateCall {
  readonly fn: string;
  /** Empty for count(*). */
  readonly args: readonly Expr[];
  readonly distinct: boolean;
  readonly filter?: Expr;
  /** ORDER BY inside the call (string_agg, array_agg). */
  readonly orderBy?: readonly SortKey[];
  readonly type: SqlType;
}

/**
 * GROUP BY. Output: the group keys, then the aggregates (then, with grouping
 * sets, an int4 grouping id: PostgreSQL's GROUPING(k1, …, kn) over all keys —
 * the last key is bit 0, a bit is set when that key is not grouped in the row's set). No keys and no
 * grouping sets = one row even for empty input.
 */
export interface HashAggregatePlan {
  readonly kind: 'hashAggregate';
  readonly input: PhysicalPlan;
  readonly groupBy: readonly Expr[];
  /** Each set lists indexes into groupBy; absent = one set with all keys. */
  readonly groupingSets?: readonly (readonly number[])[];
  /**
   * Indexes into groupBy of keys the other keys determine (a table's columns
   * where its primary key is grouped): kept per group from its first row, not hashed.
   */
  readonly dependentKeys?: readonly number[];
  /**
   * Over a lake scan that runs in the workers: split the groups by ranges of this
   * key, one range per worker, each reading the whole scan for its range's rows and
   * finishing its groups there (operators/key-range-aggregate.ts).
   */
  readonly keyRangeSplit?: KeyRangeSplit;
  /**
   * With keyRangeSplit: a filter on the aggregate's own output (its HAVING) that the
   * aggregate applies, in each key range's worker when the split runs (the groups are
   * final there, so only those kept cross back: 58 of 1.5M for a selective HAVING), here otherwise.
   */
  readonly having?: Expr;
  /**
   * Where the planner decided the groups are built (planner/physical/rules/aggregate-in-workers.ts):
   * `partialPerTask`, a partial aggregate per scan task in the scan workers, merged here;
   * `keyRanges`, one key range per worker, each finishing its groups (needs keyRangeSplit).
   * Absent: here, from the input's batches. Either needs the input to ship (aggregateShipment),
   * and falls back to this thread when the run has no scan worker pool.
   */
  readonly strategy?: AggregateStrategy;
  readonly aggregates: readonly AggregateCall[];
  readonly columns: readonly OutputColumn[];
}

/**
 * GROUP BY key `key` is the scan's NOT NULL int2/int4/int8/date column `column`,
 * whose values the table's statistics put in [min, max] (values outside still
 * fall in the first or last range).
 */
export interface KeyRangeSplit {
  readonly key: number;
  readonly column: string;
  readonly min: number;
  readonly max: number;
}

export type AggregateStrategy = 'partialPerTask' | 'keyRanges';

/**
 * Which input a hash join's table holds, decided by the planner
 * (planner/physical/rules/join-build-side.ts) and run by operators/joins/build-side.ts:
 * `right`, the planned right input; `smallLeft` (inner joins), the left input when it
 * ends within a few rows; `smallLeftProbeFirst` (left, semi, anti joins), the same
 * read-ahead with the left's keys filtering the right input's scans.
 */
export type BuildSidePolicy = 'right' | 'smallLeft' | 'smallLeftProbeFirst';

/**
 * A lake scan under one input of a hash join that a join key can filter at run time:
 * `path` leads from that input to the scan (indexes into planInputs at each step),
 * `column` is the scan's output column and `key` the index of the join key.
 */
export interface RuntimeFilterTargetSpec {
  readonly path: readonly number[];
  readonly column: number;
  readonly key: number;
}

/**
 * A keyed lake scan under a hash join's probe input whose every primary-key column a join
 * key filters (targets of `probe`): once built, the join's distinct build keys, if few,
 * are handed to the lake as the full keys the scan needs (ScanRequest.keyLookup).
 * `keys[i]` is the join key that gives the scan's i-th primary-key column.
 */
export interface KeyLookupSpec {
  readonly path: readonly number[];
  readonly keys: readonly number[];
}

export type JoinType = 'inner' | 'left' | 'right' | 'full' | 'semi' | 'anti' | 'mark';

/**
 * Equi-join; the right input is the build side. Output: left columns then right
 * columns (inner/left/right/full), left columns only (semi/anti), or left columns
 * plus one bool `mark` column (mark: true when matched, NULL when unmatched but
 * a NULL key or NULL residual could have matched — IN's semantics — else false).
 * Keys compare with `=` (NULL never matches) unless `nullEquals[i]` (IS NOT DISTINCT FROM).
 * `residual` is evaluated over left ++ right columns.
 */
export interface HashJoinPlan {
  readonly kind: 'hashJoin';
  readonly joinType: JoinType;
  readonly left: PhysicalPlan;
  readonly right: PhysicalPlan;
  readonly leftKeys: readonly Expr[];
  readonly rightKeys: readonly Expr[];
  readonly nullEquals?: readonly boolean[];
  readonly residual?: Expr;
  /**
   * The planner estimates the left input smaller than the right. A left, semi or
   * anti join (whose sides are fixed) then reads its left input first even when
   * the right one could filter it: if it ends soon, the table is built on it and
   * its keys filter the right input's scans from their start.
   */
  readonly leftLooksSmaller?: boolean;
  /** Which input holds the table (absent: the right one, as planned). */
  readonly buildSide?: BuildSidePolicy;
  /**
   * Scans the build keys filter (`probe`: under the left input, filled after the build)
   * and scans a small probe side's keys filter (`build`: under the right input, when the
   * left input holds the table). Decided by planner/physical/rules/runtime-filter-targets.ts.
   */
  readonly runtimeFilters?: {
    readonly probe: readonly RuntimeFilterTargetSpec[];
    readonly build: readonly RuntimeFilterTargetSpec[];
    /** Probe-side scans whose full primary key the build keys give: looked up by key when the build is small. */
    readonly lookups?: readonly KeyLookupSpec[];
  };
  readonly columns: readonly OutputColumn[];
}

/** Any join condition (or none: cross join); same output shapes as HashJoinPlan. */
export interface NestedLoopJoinPlan {
  readonly kind: 'nestedLoopJoin';
  readonly joinType: JoinType;
  readonly left: PhysicalPlan;
  readonly right: PhysicalPlan;
  readonly condition?: Expr;
  readonly columns: readonly OutputColumn[];
}

export interface SortPlan {
  readonly kind: 'sort';
  readonly input: PhysicalPlan;
  readonly keys: readonly SortKey[];
  readonly columns: readonly OutputColumn[];
}

/** ORDER BY … LIMIT n [OFFSET m], keeping only the best limit+offset rows. */
export interface TopNPlan {
  readonly kind: 'topN';
  readonly input: PhysicalPlan;
  readonly keys: readonly SortKey[];
  /** Constant or param expressions (int8), evaluated once. */
  readonly limit: Expr;
  readonly offset?: Expr;
  readonly columns: readonly OutputColumn[];
}

/** LIMIT/OFFSET; a NULL limit means no limit (PostgreSQL's LIMIT NULL/ALL). */
export interface LimitPlan {
  readonly kind: 'limit';
  readonly input: PhysicalPlan;
  readonly limit?: Expr;
  readonly offset?: Expr;
  /** FETCH … WITH TIES: the input's sort keys; rows equal on them to the last row within the limit are returned too. */
  readonly withTies?: readonly SortKey[];
  readonly columns: readonly OutputColumn[];
}

export interface WindowFrameBound {
  readonly kind: 'unboundedPreceding' | 'preceding' | 'currentRow' | 'following' | 'unboundedFollowing';
  /** For preceding/following: a constant offset (rows mode: a row count). */
  readonly offset?: Expr;
}

export interface WindowFrame {
  readonly mode: 'rows' | 'range' | 'groups';
  readonly start: WindowFrameBound;
  readonly end: WindowFrameBound;
}

/**
 * A window function call; `fn` is a registry id of kind 'window' (row_number,
 * rank, dense_rank, lag, lead, first_value, …) or 'aggregate' (sum, avg, count, …
 * evaluated over the frame). Default frame: RANGE UNBOUNDED PRECEDING to CURRENT ROW
 * (whole partition when there is no ORDER BY), as in PostgreSQL.
 */
export interface WindowCall {
  readonly fn: string;
  readonly args: readonly Expr[];
  readonly partitionBy: readonly Expr[];
  readonly orderBy: readonly SortKey[];
  readonly frame?: WindowFrame;
  readonly filter?: Expr;
  readonly type: SqlType;
}

/** Output: the input columns, then one column per window call. Row order follows the last call's partition/order. */
export interface WindowPlan {
  readonly kind: 'window';
  readonly input: PhysicalPlan;
  readonly functions: readonly WindowCall[];
  readonly columns: readonly OutputColumn[];
}

export interface SetOpPlan {
  readonly kind: 'setOp';
  readonly op: 'union' | 'intersect' | 'except';
  readonly all: boolean;
  readonly left: PhysicalPlan;
  readonly right: PhysicalPlan;
  readonly columns: readonly OutputColumn[];
  /** UNION ALL only: both inputs run at once, rows in arrival order (run-union-inputs-together.ts). */
  readonly concurrent?: boolean;
}

/** DISTINCT (all columns), or DISTINCT ON (exprs): the first row per key in input order. */
export interface DistinctPlan {
  readonly kind: 'distinct';
  readonly input: PhysicalPlan;
  readonly on?: readonly Expr[];
  readonly columns: readonly OutputColumn[];
}

/**
 * INSERT [ON CONFLICT …] into a lake table. `input` yields full table rows: one
 * column per table column, in table order, defaults already filled in.
 * `returning` expressions are over the written table row; output columns are the
 * RETURNING list (empty without RETURNING).
 *  - no onConflict: lake insert (keyed table: +I, 23505 for a live key; append table: base rows).
 *  - doNothing: rows whose key exists (or repeats) are skipped.
 *  - doUpdate: rows whose key exists become `set` evaluated over
 *    existing-row ++ excluded-row columns (filtered by `where`); blind when every set
 *    expression only reads EXCLUDED, else the statement is read-modify-write.
 */
export interface InsertPlan {
  readonly kind: 'insert';
  readonly table: LakeTableRef;
  /** Branch written; 'main' by default. */
  readonly ref?: string;
  readonly input: PhysicalPlan;
  readonly onConflict?:
    | { readonly action: 'nothing'; readonly arbiter?: ConflictArbiter }
    | {
        readonly action: 'update';
        readonly arbiter?: ConflictArbiter;
        /** For each table column index: the new value expression (unlisted columns keep the existing value). */
        readonly set: readonly { readonly column: number; readonly expr: Expr }[];
        readonly where?: Expr;
        /** Row security's tests of an existing row before it is changed (its USING, as errors). */
        readonly conflictChecks?: readonly CheckConstraintPlan[];
        /** The CHECK constraints and row-security tests of the changed row, an UPDATE's rather than the INSERT's. */
        readonly updateChecks?: readonly CheckConstraintPlan[];
      };
  readonly returning?: readonly Expr[];
  /** The table's CHECK constraints, enforced on every row written (check-constraints.ts). */
  readonly checks?: readonly CheckConstraintPlan[];
  readonly columns: readonly OutputColumn[];
}

/**
 * The unique constraint an ON CONFLICT clause names or infers: `primaryKey` (also when
 * absent), one UNIQUE constraint's column indexes in table order, or `any` (DO NOTHING
 * without a target: a conflict on the primary key or any UNIQUE constraint skips the row).
 */
export type ConflictArbiter =
  | { readonly kind: 'primaryKey' }
  | { readonly kind: 'unique'; readonly name: string; readonly columns: readonly number[] }
  | { readonly kind: 'any' };

/**
 * UPDATE: `input` yields the target's current rows to change (full table row in
 * table order; for append tables followed by the row id column the scan exposes).
 * `set` computes new values over the input row. RETURNING is over the new row.
 */
export interface UpdatePlan {
  readonly kind: 'update';
  readonly table: LakeTableRef;
  readonly ref?: string;
  readonly input: PhysicalPlan;
  readonly set: readonly { readonly column: number; readonly expr: Expr }[];
  readonly returning?: readonly Expr[];
  /** RETURNING reads the input's columns from here on too (UPDATE FROM / DELETE USING items), after the written row. */
  readonly returningExtra?: number;
  readonly checks?: readonly CheckConstraintPlan[];
  readonly columns: readonly OutputColumn[];
}

/** DELETE: `input` yields the rows to delete (full table row, plus row id for append tables). */
export interface DeletePlan {
  readonly kind: 'delete';
  readonly table: LakeTableRef;
  readonly ref?: string;
  readonly input: PhysicalPlan;
  readonly returning?: readonly Expr[];
  /** RETURNING reads the input's columns from here on too (UPDATE FROM / DELETE USING items), after the written row. */
  readonly returningExtra?: number;
  readonly columns: readonly OutputColumn[];
}

export interface MergeAction {
  readonly match: 'matched' | 'notMatchedByTarget' | 'notMatchedBySource';
  readonly condition?: Expr;
  readonly action:
    | { readonly kind: 'update'; readonly set: readonly { readonly column: number; readonly expr: Expr }[] }
    | { readonly kind: 'delete' }
    | { readonly kind: 'insert'; readonly values: readonly Expr[] }
    | { readonly kind: 'nothing' };
}

/**
 * MERGE: `input` is a full join of source (first `sourceWidth` columns) and
 * target (full table row next); `sourcePresent`/`targetPresent` are bool columns
 * appended by the planner. Actions' expressions are over that combined row.
 * A target row matched twice fails with 21000.
 */
export interface MergePlan extends MergeTarget {
  readonly kind: 'merge';
  readonly input: PhysicalPlan;
}

/** What MERGE writes and how, in the logical plan and the physical one alike (its input aside). */
export interface MergeTarget {
  readonly table: LakeTableRef;
  readonly ref?: string;
  readonly sourceWidth: number;
  readonly sourcePresent: number;
  readonly targetPresent: number;
  readonly actions: readonly MergeAction[];
  readonly returning?: readonly Expr[];
  readonly checks?: readonly CheckConstraintPlan[];
  readonly columns: readonly OutputColumn[];
}

/**
 * LATERAL: for each input row, `right` runs with that row as its outer row
 * (outerColumn depth 1), and the row is joined to what it returns; `condition`
 * (ON) is over input columns then right columns. A left join keeps an input
 * row whose right side returns nothing (or nothing that passes) with NULLs.
 */
export interface LateralJoinPlan {
  readonly kind: 'lateralJoin';
  readonly joinType: 'inner' | 'left';
  readonly input: PhysicalPlan;
  readonly right: PhysicalPlan;
  readonly condition?: Expr;
  readonly columns: readonly OutputColumn[];
}

/** The rows a WITH RECURSIVE query's recursive term reads in one iteration: shared by the union and its scans. */
export interface WorkTable {
  readonly name: string;
}

/**
 * WITH RECURSIVE's loop (PostgreSQL's Recursive Union): `left` (the
 * non-recursive term) runs once; then `right` runs again and again, each time
 * reading through its WorkTableScan only the rows the previous iteration
 * added, until an iteration adds none. Without `all`, a row equal to one
 * produced before is dropped, which is what ends a walk over a cyclic graph.
 */
export interface RecursiveUnionPlan {
  readonly kind: 'recursiveUnion';
  readonly all: boolean;
  readonly workTable: WorkTable;
  readonly left: PhysicalPlan;
  readonly right: PhysicalPlan;
  readonly columns: readonly OutputColumn[];
}

/** The current iteration's rows of a recursive union's work table. */
export interface WorkTableScanPlan {
  readonly kind: 'workTableScan';
  readonly workTable: WorkTable;
  readonly columns: readonly OutputColumn[];
}

/**
 * A statement with INSERT/UPDATE/DELETE in its WITH: runs each of `ctes` (their
 * plans are the DML plans, yielding RETURNING rows) once before `input`, the main
 * statement, whose CTE scans read their rows. `countRows`: the main statement is a
 * query, so its output rows are the statement's count (SELECT n).
 */
export interface DataModifyingCtesPlan {
  readonly kind: 'dataModifyingCtes';
  readonly ctes: readonly MaterializedCte[];
  readonly input: PhysicalPlan;
  readonly countRows: boolean;
  readonly columns: readonly OutputColumn[];
}

/** The node `path` leads to from `root` (an index into planInputs at each step), or undefined when it leaves the plan. */
export function planAtPath(root: PhysicalPlan, path: readonly number[]): PhysicalPlan | undefined {
  let node: PhysicalPlan | undefined = root;
  for (const i of path) node = node === undefined ? undefined : planInputs(node)[i];
  return node;
}

/** The inputs of a node, for generic walks (EXPLAIN, metrics). */
export function planInputs(p: PhysicalPlan): readonly PhysicalPlan[] {
  switch (p.kind) {
    // A CTE's plan is shared by its scans, not an input of any one of them.
    case 'lakeScan': case 'virtualScan': case 'values': case 'cteScan':
      return [];
    case 'hashJoin': case 'nestedLoopJoin': case 'setOp': case 'recursiveUnion':
      return [p.left, p.right];
    case 'lateralJoin':
      return [p.input, p.right];
    case 'workTableScan':
      return [];
    default:
      return [p.input];
  }
}
