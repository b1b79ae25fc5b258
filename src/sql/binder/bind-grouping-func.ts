import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import { type Expr, Exprs, resolveOperator } from '../../exec/index.js';
import { positionOf, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindExpr } from './bind-expr.js';
import { exprKey, type ExprScope } from './expr-scope.js';

const boolType: SqlType = { kind: 'bool' };

/** The aggregate's grouping-id column is numbered from here until the aggregate's width is known. */
export const groupingIdPlaceholder = 2_000_000;

/**
 * GROUPING(a, b, …): bit i (from the left) is set when argument i is not grouped in the row's
 * grouping set. EXEC's aggregate appends the grouping id over all keys (last key = bit 0).
 */
export function bindGroupingFunc(ctx: BindContext, n: Raw, es: ExprScope): Expr {
  const g = es.grouping;
  if (!g) throw new FloeError(SqlState.groupingError, `grouping operations are not allowed in ${es.clause}`, { position: positionOf(n) });
  const args = (n.args as Raw[]).map((a) => {
    const e = bindExpr(ctx, a, { scope: es.scope, clause: es.clause });
    const k = g.keyStrings.indexOf(exprKey(e));
    if (k < 0) {
      throw new FloeError(SqlState.groupingError, 'arguments to GROUPING must be grouping expressions of the associated query level', { position: positionOf(a) });
    }
    return k;
  });
  const int4: SqlType = { kind: 'int4' };
  if (!g.sets) return Exprs.literal(0, int4);
  const gid = Exprs.column(groupingIdPlaceholder, int4, 'grouping');
  const and = resolveOperator('&', int4, int4);
  const eq = resolveOperator('=', int4, int4);
  const plus = resolveOperator('+', int4, int4);
  if (!and || !eq || !plus) throw new FloeError(SqlState.undefinedFunction, 'operator does not exist: integer & integer');
  const parts = args.map((k, j): Expr => {
    const mask = Exprs.literal(2 ** (g.keys.length - 1 - k), int4);
    const notGrouped = Exprs.not(Exprs.call(eq.id, [Exprs.call(and.id, [gid, mask], int4), Exprs.literal(0, int4)], boolType));
    return { kind: 'case', whens: [{ when: notGrouped, then: Exprs.literal(2 ** (args.length - 1 - j), int4) }], else: Exprs.literal(0, int4), type: int4 };
  });
  return parts.reduce((acc, p) => Exprs.call(plus.id, [acc, p], int4));
}
