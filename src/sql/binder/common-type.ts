import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { formatType, type SqlType } from '../../common/sql-type.js';
import { commonSupertype, type Expr } from '../../exec/index.js';
import { positionOf, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { coerceTo } from './coerce.js';

/** PostgreSQL's select_common_type plus coercion of every expression to it. */
export function unify(ctx: BindContext, exprs: readonly Expr[], what: string, n: Raw): Expr[] {
  const known = exprs.filter((e) => e.type.kind !== 'unknown').map((e) => e.type);
  let target: SqlType | undefined;
  if (known.length === 0) target = { kind: 'text' };
  else target = commonSupertype(known);
  if (!target) {
    const a = known[0]!;
    const b = known.find((t) => commonSupertype([a, t]) === undefined) ?? known[1]!;
    throw new FloeError(SqlState.datatypeMismatch, `${what} types ${formatType(a)} and ${formatType(b)} cannot be matched`, { position: positionOf(n) });
  }
  return exprs.map((e) => coerceTo(ctx, e, target, 'implicit'));
}
