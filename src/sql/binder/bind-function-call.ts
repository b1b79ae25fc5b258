import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { formatType } from '../../common/sql-type.js';
import { type Expr, Exprs, resolveFunction } from '../../exec/index.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';
import { isAggregateCall } from './aggregate-names.js';
import { bindAggregate } from './bind-aggregate-call.js';
import type { BindContext } from './bind-context.js';
import { bindExpr } from './bind-expr.js';
import { coerceArgs } from './bind-operator.js';
import { bindWindowCall } from './bind-window-call.js';
import type { ExprScope } from './expr-scope.js';
import { bindRowArgument, bindRowToJson } from './row-value.js';

const sqlValueFunctions: Record<string, string[]> = {
  SVFOP_CURRENT_DATE: ['current_date'],
  SVFOP_CURRENT_TIME: ['current_time'],
  SVFOP_CURRENT_TIME_N: ['current_time'],
  SVFOP_CURRENT_TIMESTAMP: ['current_timestamp', 'now'],
  SVFOP_CURRENT_TIMESTAMP_N: ['current_timestamp', 'now'],
  SVFOP_LOCALTIME: ['localtime'],
  SVFOP_LOCALTIME_N: ['localtime'],
  SVFOP_LOCALTIMESTAMP: ['localtimestamp'],
  SVFOP_LOCALTIMESTAMP_N: ['localtimestamp'],
  SVFOP_CURRENT_ROLE: ['current_role', 'current_user'],
  SVFOP_CURRENT_USER: ['current_user'],
  SVFOP_USER: ['current_user'],
  SVFOP_SESSION_USER: ['session_user'],
  SVFOP_CURRENT_CATALOG: ['current_catalog', 'current_database'],
  SVFOP_CURRENT_SCHEMA: ['current_schema'],
};

export function bindSqlValueFunction(n: Raw): Expr {
  for (const name of sqlValueFunctions[n.op as string] ?? []) {
    const r = resolveFunction(name, []);
    if (r) return Exprs.call(r.id, [], r.returnType);
  }
  throw new FloeError(SqlState.undefinedFunction, `function ${(sqlValueFunctions[n.op as string] ?? ['?'])[0]}() does not exist`, { position: positionOf(n) });
}

export function functionNotFound(name: string, args: readonly Expr[], n: Raw): FloeError {
  return new FloeError(SqlState.undefinedFunction, `function ${name}(${args.map((a) => formatType(a.type)).join(', ')}) does not exist`, {
    position: positionOf(n),
    hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
  });
}

function qualifiedFunctionName(n: Raw): string {
  const names = strList(n.funcname).map((s) => s.toLowerCase());
  const name = names[names.length - 1]!;
  const schema = names.length > 1 ? names[names.length - 2] : undefined;
  return schema === undefined || schema === 'pg_catalog' ? name : `${schema}.${name}`;
}

export function bindFuncCall(ctx: BindContext, n: Raw, es: ExprScope): Expr {
  const name = qualifiedFunctionName(n);
  if (n.over) return bindWindowCall(ctx, n, es, name);
  if (isAggregateCall(n) || (n.args === undefined && n.agg_star)) {
    const resolved = bindAggregate(ctx, n, es, name);
    if (resolved) return resolved;
  }
  if (n.agg_filter || n.agg_distinct || n.agg_order) {
    throw new FloeError(SqlState.wrongObjectType, `${name} is not an aggregate function`, { position: positionOf(n) });
  }
  if (name === 'row_to_json') {
    const json = bindRowToJson(ctx, n, es);
    if (json) return json;
  }
  const args = (n.args as Raw[] | undefined ?? []).map((a) => {
    if (unwrap(a)[0] === 'NamedArgExpr') throw new FloeError(SqlState.featureNotSupported, 'named arguments are not supported', { position: positionOf(a) });
    return bindRowArgument(ctx, a, es, name) ?? bindExpr(ctx, a, es);
  });
  const resolved = resolveFunction(name, args.map((a) => a.type));
  if (!resolved) throw functionNotFound(name, args, n);
  if (resolved.kind !== 'scalar') {
    throw new FloeError(SqlState.wrongObjectType, `${resolved.kind} function ${name} must be called with OVER or in an aggregate position`, { position: positionOf(n) });
  }
  return Exprs.call(resolved.id, coerceArgs(ctx, args, resolved), resolved.returnType);
}
