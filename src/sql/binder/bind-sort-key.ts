import type { SortKey } from '../../exec/index.js';
import type { Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindExpr } from './bind-expr.js';
import { resolveUnknown } from './coerce.js';
import type { ExprScope } from './expr-scope.js';

export function bindSortKey(ctx: BindContext, s: Raw, es: ExprScope): SortKey {
  const expr = resolveUnknown(ctx, bindExpr(ctx, s.node, es));
  const descending = s.sortby_dir === 'SORTBY_DESC';
  const nullsFirst = s.sortby_nulls === 'SORTBY_NULLS_FIRST' ? true : s.sortby_nulls === 'SORTBY_NULLS_LAST' ? false : descending;
  return { expr, descending, nullsFirst };
}
