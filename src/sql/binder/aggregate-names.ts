import { strList, type Raw } from './ast.js';

/**
 * Names that are aggregates in PostgreSQL. The binder must know a call is an
 * aggregate before binding its arguments (they see rows, not groups), so it
 * decides by name; the function registry then resolves the exact overload.
 */
const aggregateNames = new Set([
  'count', 'sum', 'avg', 'min', 'max', 'bool_and', 'bool_or', 'every', 'string_agg', 'array_agg',
  'json_agg', 'jsonb_agg', 'json_object_agg', 'jsonb_object_agg', 'stddev', 'stddev_pop', 'stddev_samp',
  'variance', 'var_pop', 'var_samp', 'bit_and', 'bit_or', 'bit_xor', 'corr', 'covar_pop', 'covar_samp',
  'regr_avgx', 'regr_avgy', 'regr_count', 'regr_intercept', 'regr_r2', 'regr_slope', 'regr_sxx', 'regr_sxy',
  'regr_syy', 'percentile_cont', 'percentile_disc', 'mode', 'any_value', 'approx_count_distinct',
]);

export function isAggregateName(name: string): boolean {
  return aggregateNames.has(name);
}

/** Whether a FuncCall is an aggregate call (not a window call): by its modifiers or its name. */
export function isAggregateCall(fn: Raw): boolean {
  if (fn.over) return false;
  if (fn.agg_star || fn.agg_distinct || fn.agg_filter || fn.agg_order) return true;
  const names = strList(fn.funcname);
  return isAggregateName(names[names.length - 1]!.toLowerCase());
}
