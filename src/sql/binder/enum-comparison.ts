import { enumTypeOf, type SqlType } from '../../common/sql-type.js';
import { ENUM_ORDERING_FUNCTIONS, type Expr, Exprs, resolveFunction, resolveOperator } from '../../exec/index.js';
import type { BindContext } from './bind-context.js';
import { coerceTo } from './coerce.js';

const EQUALITY = new Set(['=', '<>', '!=']);

/**
 * A comparison with an enum operand: the other side takes the enum type (a literal is
 * checked against its labels, 22P02), then `=`/`<>` compare labels as text (which the
 * lake can prune on) and the ordering operators compare sort positions (enum_lt …).
 * Undefined when neither operand is an enum or the operator is not a comparison.
 */
export function bindEnumComparison(ctx: BindContext, op: string, left: Expr, right: Expr): Expr | undefined {
  const ordering = ENUM_ORDERING_FUNCTIONS[op];
  if (ordering === undefined && !EQUALITY.has(op)) return undefined;
  const type: SqlType | undefined = enumTypeOf(left.type) !== undefined ? left.type : enumTypeOf(right.type) !== undefined ? right.type : undefined;
  if (type === undefined) return undefined;
  const other = type === left.type ? right.type : left.type;
  if (other.kind !== 'text' && other.kind !== 'unknown') return undefined;
  const args = [coerceTo(ctx, left, type, 'implicit'), coerceTo(ctx, right, type, 'implicit')];
  const fn = ordering === undefined ? resolveOperator(op, { kind: 'text' }, { kind: 'text' }) : resolveFunction(ordering, [type, type]);
  if (fn === undefined) return undefined;
  return Exprs.call(fn.id, args, { kind: 'bool' });
}
