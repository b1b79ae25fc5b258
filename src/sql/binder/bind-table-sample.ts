import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import { Exprs, resolveFunction, TABLE_SAMPLE_FUNCTION } from '../../exec/index.js';
import { LogicalFilter } from '../../planner/index.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindExpr } from './bind-expr.js';
import type { ExprScope } from './expr-scope.js';
import type { BoundFrom } from './bind-from.js';
import { coerceTo } from './coerce.js';
import type { Scope } from './scope.js';

const float8: SqlType = { kind: 'float8' };

/**
 * `rel TABLESAMPLE BERNOULLI|SYSTEM (percent) [REPEATABLE (seed)]`: the relation,
 * filtered by a per-row test (table-sample-function.ts). SYSTEM samples rows as
 * BERNOULLI does: Floe has no pages whose sampling would be cheaper.
 */
export function bindTableSample(ctx: BindContext, n: Raw, parent: Scope | undefined, bindRelation: (item: Raw) => BoundFrom): BoundFrom {
  const method = strList(n.method).pop()!.toLowerCase();
  if (method !== 'system' && method !== 'bernoulli') {
    throw new FloeError(SqlState.undefinedObject, `tablesample method ${method} does not exist`, { position: positionOf(n) });
  }
  const args = (n.args as Raw[] | undefined) ?? [];
  if (args.length !== 1) {
    throw new FloeError('2202H', `tablesample method ${method} requires 1 argument, not ${args.length}`, { position: positionOf(n) });
  }
  const from = bindRelation(n.relation);
  // The arguments may not read the sampled relation (only outer queries' columns and parameters).
  const es: ExprScope = { scope: { columns: [], ...(parent ? { parent } : {}) }, clause: 'TABLESAMPLE' };
  const percent = coerceTo(ctx, bindExpr(ctx, args[0], es), float8, 'implicit', positionOf(args[0]));
  const seed = n.repeatable ? coerceTo(ctx, bindExpr(ctx, n.repeatable, es), float8, 'implicit', positionOf(n.repeatable)) : Exprs.literal(null, float8);
  if (n.repeatable && unwrap(n.repeatable)[0] === 'A_Const' && unwrap(n.repeatable)[1].isnull) {
    throw new FloeError('2202G', 'TABLESAMPLE REPEATABLE parameter cannot be null');
  }
  const columns = from.plan.columns.map((c, i) => Exprs.column(i, c.type, c.name));
  const resolved = resolveFunction(TABLE_SAMPLE_FUNCTION, [float8, float8, ...columns.map((c) => c.type)]);
  if (!resolved) throw new FloeError(SqlState.internalError, `${TABLE_SAMPLE_FUNCTION} is not registered`);
  const predicate = Exprs.call(resolved.id, [percent, seed, ...columns], { kind: 'bool' });
  return { plan: LogicalFilter.create({ input: from.plan, predicate, columns: from.plan.columns }), scope: from.scope };
}
