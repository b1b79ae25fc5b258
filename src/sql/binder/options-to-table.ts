import { parseRaw } from '../parser/pg-parser.js';
import { unwrap, type Raw } from './ast.js';
import { functionSubselect, rangeFunctionCall } from './function-subselect.js';

/**
 * pg_options_to_table(text[]) in FROM — pg_dump reads every column's FDW options through
 * it — is the set of (option_name, option_value) pairs of `name=value` option strings,
 * split at the first '=' as PostgreSQL splits them. Floe's set-returning functions have
 * one column, so the call is bound as the subquery it equals.
 */
const TEMPLATE = "SELECT split_part(o, '=', 1) AS option_name, substr(o, strpos(o, '=') + 1) AS option_value FROM unnest(NULL::text[]) AS o";

let template: Raw | undefined;

export function isOptionsToTable(n: Raw): boolean {
  return rangeFunctionCall(n, 'pg_options_to_table', 1) !== undefined;
}

/** The RangeSubselect a `pg_options_to_table(x) [AS alias]` FROM item stands for. */
export function optionsToTableSubselect(n: Raw): Raw {
  template ??= parseRaw(TEMPLATE)[0]!.stmt as Raw;
  const select = structuredClone(unwrap(template)[1]) as Raw;
  const arg = (rangeFunctionCall(n, 'pg_options_to_table', 1)!.args as Raw[])[0];
  const unnest = unwrap(unwrap(unwrap(select.fromClause[0])[1].functions[0])[1].items[0])[1];
  unnest.args = [arg];
  return functionSubselect(n, select, 'pg_options_to_table');
}
