import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { formatType } from '../../common/sql-type.js';
import type { Expr } from '../../exec/index.js';
import { positionOf, str, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindExpr } from './bind-expr.js';
import { coerceTo } from './coerce.js';
import type { ExprScope } from './expr-scope.js';
import { ordinalSubscript, rawSubscript } from './raw-subscript.js';

export function bindIndirection(ctx: BindContext, n: Raw, es: ExprScope): Expr {
  // (composite).field over a hidden `composite.field` column (see bind-pg-expandarray.ts).
  const [atag, a] = unwrap(n.arg);
  const first = (n.indirection as Raw[])[0];
  if (atag === 'ColumnRef' && first?.String && !(a.fields as Raw[]).some((f: Raw) => f.A_Star)) {
    const names = strList(a.fields);
    const fieldNames = [...names.slice(0, -1), `${names[names.length - 1]}.${str(first)}`];
    const ref = { ColumnRef: { fields: fieldNames.map((sval) => ({ String: { sval } })), location: a.location } };
    const rest = (n.indirection as Raw[]).slice(1);
    return rest.length === 0 ? bindExpr(ctx, ref, es) : bindIndirection(ctx, { arg: ref, indirection: rest }, es);
  }
  let e = bindExpr(ctx, n.arg, es);
  const indirection = n.indirection as Raw[];
  for (let k = 0; k < indirection.length; k++) {
    const ind = indirection[k]!;
    const [tag, i] = unwrap(ind);
    if (tag !== 'A_Indices' || i.is_slice) {
      throw new FloeError(SqlState.featureNotSupported, tag === 'String' ? `field selection .${str(ind)} is not supported` : 'array slices are not supported', { position: positionOf(n.arg) });
    }
    const index = coerceTo(ctx, bindExpr(ctx, i.uidx, es), { kind: 'int4' }, 'implicit', positionOf(i.uidx));
    const raw = i[ordinalSubscript] === true ? undefined : rawSubscript(e, index);
    if (raw !== undefined) {
      e = raw;
      continue;
    }
    if (e.type.kind !== 'array') {
      throw new FloeError(SqlState.datatypeMismatch, `cannot subscript type ${formatType(e.type)} because it does not support subscripting`, { position: positionOf(n.arg) });
    }
    // a[i][j]: the subscripts before the last pick a sub-array of a multi-dimensional array.
    const more = k + 1 < indirection.length && unwrap(indirection[k + 1]!)[0] === 'A_Indices';
    e = { kind: 'subscript', arg: e, index, type: more ? e.type : e.type.element };
  }
  return e;
}
