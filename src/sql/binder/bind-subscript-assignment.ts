import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { formatType, type SqlType } from '../../common/sql-type.js';
import { ARRAY_SUBSCRIPT_ASSIGN, type Expr, Exprs, JSONB_SUBSCRIPT_ASSIGN } from '../../exec/index.js';
import { positionOf, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindExpr } from './bind-expr.js';
import { coerceTo } from './coerce.js';
import type { Scope } from './scope.js';

const INT4: SqlType = { kind: 'int4' };
const INT_KINDS = new Set(['int2', 'int4', 'int8']);

/**
 * `SET col[s1][s2]… = value` (UPDATE, ON CONFLICT DO UPDATE): the column's new value,
 * computed from `current` (the column, or an earlier subscripted assignment to it in the
 * same SET list). jsonb takes text keys and integer indexes, any depth; arrays one
 * integer subscript. Field selection and slices are refused (0A000).
 */
export function bindSubscriptAssignment(ctx: BindContext, rt: Raw, column: { name: string; type: SqlType }, current: Expr, scope: Scope): Expr {
  const subscripts = (rt.indirection as Raw[]).map((ind) => {
    const [tag, s] = unwrap(ind);
    if (tag !== 'A_Indices') throw new FloeError(SqlState.featureNotSupported, 'assignment to a field of a composite column is not supported', { position: positionOf(rt) });
    if (s.is_slice || s.lidx) throw new FloeError(SqlState.featureNotSupported, 'assignment to an array slice is not supported', { position: positionOf(rt) });
    return s.uidx as Raw;
  });
  const es = { scope, clause: 'UPDATE' };
  if (column.type.kind === 'jsonb') {
    const keys = subscripts.map((s) => {
      const e = bindExpr(ctx, s, es);
      // PostgreSQL's jsonb subscripts are integer or text (an unknown literal is text).
      return INT_KINDS.has(e.type.kind) ? e : coerceTo(ctx, e, { kind: 'text' }, 'implicit', positionOf(s));
    });
    const value = coerceTo(ctx, bindExpr(ctx, rt.val, es), column.type, 'assignment', positionOf(rt.val));
    return Exprs.call(JSONB_SUBSCRIPT_ASSIGN, [current, value, ...keys], column.type);
  }
  if (column.type.kind === 'array' && column.type.catalogType === undefined) {
    if (subscripts.length > 1 || column.type.element.kind === 'array') {
      throw new FloeError(SqlState.featureNotSupported, 'assignment to an element of a multidimensional array is not supported', { position: positionOf(rt) });
    }
    const index = coerceTo(ctx, bindExpr(ctx, subscripts[0], es), INT4, 'assignment', positionOf(subscripts[0]));
    const value = coerceTo(ctx, bindExpr(ctx, rt.val, es), column.type.element, 'assignment', positionOf(rt.val));
    return Exprs.call(ARRAY_SUBSCRIPT_ASSIGN, [current, value, index], column.type);
  }
  throw new FloeError(SqlState.datatypeMismatch, `cannot subscript type ${formatType({ kind: column.type.kind } as SqlType)} because it does not support subscripting`, { position: positionOf(rt) });
}
