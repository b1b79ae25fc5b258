import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import { Exprs, type Expr } from '../../exec/expr/expr.js';
import { registerScalarFunction, resolveFunction, resolveOperator } from '../../exec/functions/function-registry.js';
import { LogicalFilter } from '../../planner/logical/logical-filter.js';
import type { LogicalPlan } from '../../planner/logical/logical-plan.js';
import { LogicalProject } from '../../planner/logical/logical-project.js';
import { LogicalValues } from '../../planner/logical/logical-values.js';

/*
 * generate_series / unnest over non-constant arguments (psql's \d+ and pgjdbc's
 * getTypeInfo expand catalog arrays and search_path this way). EXEC has no
 * table-function operator yet, so the rows come from a bounded counter
 * 0..limit-1, filtered to the series; a guard raises 54000 instead of
 * silently truncating a longer series.
 */
export const seriesLimit = 10_000;
const guardId = 'floe_series_guard(int8,int8)';

registerScalarFunction({
  name: 'floe_series_guard', id: guardId, args: [{ kind: 'int8' }, { kind: 'int8' }], returns: { kind: 'bool' }, strict: false,
  impl: ([count, limit]) => {
    if (count !== null && (count as bigint) > (limit as bigint)) {
      throw new FloeError(SqlState.programLimitExceeded, `set-returning function over non-constant arguments is limited to ${limit} rows`);
    }
    return true;
  },
});

const int8: SqlType = { kind: 'int8' };
const bool: SqlType = { kind: 'bool' };

function op(name: string, l: SqlType, r: SqlType): string {
  const f = resolveOperator(name, l, r);
  if (!f) throw new FloeError(SqlState.undefinedFunction, `operator does not exist: ${l.kind} ${name} ${r.kind}`);
  return f.id;
}

function counter(): LogicalPlan {
  return LogicalValues.create({ rows: Array.from({ length: seriesLimit }, (_v, i) => [Exprs.literal(BigInt(i), int8)]), columns: [{ name: 'i', type: int8 }] });
}

const asInt8 = (e: Expr): Expr => (e.type.kind === 'int8' ? e : Exprs.cast(e, int8));

/** generate_series(start, stop[, step]) over integer expressions; step must be a non-zero constant. */
export function boundedGenerateSeries(start: Expr, stop: Expr, step: Expr | undefined, type: SqlType, name: string): LogicalPlan {
  const by = step === undefined ? 1n : step.kind === 'literal' && step.value !== null ? BigInt(step.value as number | bigint) : undefined;
  if (by === undefined || by === 0n) {
    throw new FloeError(SqlState.featureNotSupported, 'generate_series over non-constant arguments needs a constant, non-zero step');
  }
  const i = Exprs.column(0, int8, 'i');
  const value = Exprs.call(op('+', int8, int8), [asInt8(start), Exprs.call(op('*', int8, int8), [i, Exprs.literal(by, int8)], int8)], int8);
  const within = Exprs.call(op(by > 0n ? '<=' : '>=', int8, int8), [value, asInt8(stop)], bool);
  // Number of values = (stop - start) / step + 1.
  const count = Exprs.call(op('+', int8, int8), [
    Exprs.call(op('/', int8, int8), [Exprs.call(op('-', int8, int8), [asInt8(stop), asInt8(start)], int8), Exprs.literal(by, int8)], int8),
    Exprs.literal(1n, int8),
  ], int8);
  const guard = Exprs.call(guardId, [count, Exprs.literal(BigInt(seriesLimit), int8)], bool);
  const filtered = LogicalFilter.create({ input: counter(), predicate: { kind: 'and', args: [guard, within], type: bool }, columns: [{ name: 'i', type: int8 }] });
  const out = type.kind === 'int8' ? value : Exprs.cast(value, type);
  return LogicalProject.create({ input: filtered, exprs: [out], columns: [{ name, type }] });
}

/** unnest(array) [WITH ORDINALITY] over an array expression. */
export function boundedUnnest(array: Expr, name: string, ordinality: boolean): LogicalPlan {
  if (array.type.kind !== 'array') throw new FloeError(SqlState.datatypeMismatch, 'unnest needs an array argument');
  const element = array.type.element;
  const card = resolveFunction('cardinality', [array.type]);
  if (!card) throw new FloeError(SqlState.undefinedFunction, 'function cardinality(anyarray) does not exist');
  const size = asInt8(Exprs.call(card.id, [array], card.returnType));
  const i = Exprs.column(0, int8, 'i');
  const n = Exprs.call(op('+', int8, int8), [i, Exprs.literal(1n, int8)], int8);
  const within = Exprs.call(op('<=', int8, int8), [n, size], bool);
  const guard = Exprs.call(guardId, [size, Exprs.literal(BigInt(seriesLimit), int8)], bool);
  const filtered = LogicalFilter.create({ input: counter(), predicate: { kind: 'and', args: [guard, within], type: bool }, columns: [{ name: 'i', type: int8 }] });
  const exprs: Expr[] = [{ kind: 'subscript', arg: array, index: Exprs.cast(n, { kind: 'int4' }), type: element }];
  const columns = [{ name, type: element }];
  if (ordinality) {
    exprs.push(n);
    columns.push({ name: 'ordinality', type: int8 });
  }
  return LogicalProject.create({ input: filtered, exprs, columns });
}
