import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { CompiledExpr } from '../expr/compile-expr.js';
import { functionById } from '../functions/function-registry.js';
import type { AggregateImpl } from '../functions/function-registry.js';
import type { HashAggregatePlan, SortKey } from '../plan/physical-plan.js';
import { compileSortKeys } from '../operators/sort-keys.js';
import { DIRECT_KEY_KINDS } from './key-normal-form.js';

export interface CompiledAggregate {
  readonly impl: AggregateImpl;
  readonly strict: boolean;
  readonly args: readonly CompiledExpr[];
  readonly argTypes: readonly SqlType[];
  /** The result's type (a typed column's Arrow form is labelled with it). */
  readonly type: SqlType;
  readonly filter: CompiledExpr | undefined;
  readonly distinct: boolean;
  readonly ordered: ReturnType<typeof compileSortKeys> | undefined;
  readonly orderExprs: readonly CompiledExpr[];
  readonly orderExprCount: number;
  /** DISTINCT or ORDER BY: argument rows are kept per group (ordered) or deduplicated (distinct) instead of stepped in batches. */
  readonly buffered: boolean;
  /** States live in the aggregate's typed columns (ColumnarAggregate) rather than one object per group. */
  readonly columnar: boolean;
  /** DISTINCT over one int2/int4 argument (count(DISTINCT ps_suppkey)): its values are their own keys. */
  readonly distinctInts: boolean;
}

/** The parts of a hash aggregate plan that decide its groups and states (what a worker needs for a partial aggregate). */
export type AggregateSpec = Pick<HashAggregatePlan, 'groupBy' | 'groupingSets' | 'aggregates' | 'dependentKeys'>;

/** A key the hashed keys determine: kept per group as read at the group's first row. */
export interface DependentKey {
  /** Its place in spec.groupBy. */
  readonly index: number;
  readonly expr: CompiledExpr;
  /** The batch column it reads when it is a column as it is (-1 otherwise): its rows are kept as they come, Arrow data undecoded. */
  readonly column: number;
}

/** A hash aggregate's expressions and functions, compiled once per operator (or per worker and query). */
export interface CompiledAggregation {
  readonly spec: AggregateSpec;
  /** Indexes into spec.groupBy of the keys that are hashed; keyExprs, keyTypes and the per-key arrays below follow them. */
  readonly hashedKeys: readonly number[];
  readonly dependentKeys: readonly DependentKey[];
  readonly keyExprs: readonly CompiledExpr[];
  readonly keyTypes: readonly SqlType[];
  readonly sets: readonly (readonly number[])[];
  readonly aggs: readonly CompiledAggregate[];
  /** Single key whose canonical values compare equal exactly when SQL groups them (Map's SameValueZero). */
  readonly directKey: boolean;
  /** Per key, the batch column it reads when it is a text, varchar or bpchar column as it is (-1 otherwise): grouped by its bytes. */
  readonly keyTextColumns: readonly number[];
  /** Per key, the batch column it reads when it is an int4 column as it is (-1 otherwise): read from its Int32Array when NULL-free. */
  readonly keyIntColumns: readonly number[];
}

const BYTE_KEY_KINDS = new Set(['text', 'varchar', 'bpchar']);

/** Aggregates whose result lists their input in order: under DISTINCT they take it sorted, as PostgreSQL's do. */
const LISTS_ITS_INPUT = new Set(['array_agg', 'string_agg', 'json_agg', 'jsonb_agg', 'json_object_agg', 'jsonb_object_agg']);

/**
 * Compiles a hash aggregate's keys and aggregates. `columnar: false` keeps
 * every state an object of the aggregate's own (the reference the typed
 * columns are tested against).
 */
export function compileAggregation(spec: AggregateSpec, { columnar = true }: { columnar?: boolean } = {}): CompiledAggregation {
  const aggs: CompiledAggregate[] = spec.aggregates.map((a) => {
    const f = functionById(a.fn);
    if (!f || f.kind !== 'aggregate' || !f.aggregate) throw new FloeError(SqlState.undefinedFunction, `aggregate ${a.fn} does not exist`);
    const argTypes = a.args.map((x) => x.type);
    // PostgreSQL computes DISTINCT by sorting the arguments, so an aggregate that lists its
    // input (array_agg(DISTINCT x)) gives it in their order: here too.
    const orderBy: readonly SortKey[] | undefined = a.orderBy && a.orderBy.length > 0 ? a.orderBy
      : a.distinct && LISTS_ITS_INPUT.has(a.fn.slice(0, a.fn.indexOf('('))) ? a.args.map((expr) => ({ expr, descending: false, nullsFirst: false }))
        : undefined;
    const ordered = orderBy
      ? compileSortKeys(orderBy.map((k, i) => ({ ...k, expr: { kind: 'column', index: a.args.length + i, type: k.expr.type } })))
      : undefined;
    const impl = f.aggregate(argTypes);
    const buffered = a.distinct || ordered !== undefined;
    return {
      impl,
      strict: f.strict,
      args: a.args.map(compileExpr),
      argTypes,
      type: a.type,
      filter: a.filter ? compileExpr(a.filter) : undefined,
      distinct: a.distinct,
      ordered,
      orderExprs: (orderBy ?? []).map((k) => compileExpr(k.expr)),
      orderExprCount: orderBy?.length ?? 0,
      buffered,
      columnar: columnar && !buffered && impl.columnar !== undefined,
      distinctInts: a.distinct && ordered === undefined && argTypes.length === 1 && (argTypes[0]!.kind === 'int2' || argTypes[0]!.kind === 'int4'),
    };
  });
  const dependent = new Set(spec.dependentKeys ?? []);
  if (dependent.size > 0 && spec.groupingSets !== undefined) throw new FloeError(SqlState.internalError, 'dependent group keys with grouping sets');
  const hashedKeys = spec.groupBy.flatMap((_e, i) => (dependent.has(i) ? [] : [i]));
  const hashed = hashedKeys.map((i) => spec.groupBy[i]!);
  const keyTypes = hashed.map((e) => e.type);
  return {
    spec,
    hashedKeys,
    dependentKeys: [...dependent].sort((a, b) => a - b).map((index) => {
      const e = spec.groupBy[index]!;
      return { index, expr: compileExpr(e), column: e.kind === 'column' ? e.index : -1 };
    }),
    keyExprs: hashed.map(compileExpr),
    keyTypes,
    sets: spec.groupingSets ?? [hashed.map((_, i) => i)],
    aggs,
    directKey: spec.groupingSets === undefined && keyTypes.length === 1 && DIRECT_KEY_KINDS.has(keyTypes[0]!.kind),
    keyTextColumns: hashed.map((e) => (e.kind === 'column' && BYTE_KEY_KINDS.has(e.type.kind) ? e.index : -1)),
    keyIntColumns: hashed.map((e) => (e.kind === 'column' && e.type.kind === 'int4' ? e.index : -1)),
  };
}
