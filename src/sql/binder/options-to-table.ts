import { parseRaw } from '../parser/pg-parser.js';
import { strList, unwrap, type Raw } from './ast.js';

/**
 * pg_options_to_table(text[]) in FROM — pg_dump reads every column's FDW options through
 * it — is the set of (option_name, option_value) pairs of `name=value` option strings,
 * split at the first '=' as PostgreSQL splits them. Floe's set-returning functions have
 * one column, so the call is bound as the subquery it equals.
 */
const TEMPLATE = "SELECT split_part(o, '=', 1) AS option_name, substr(o, strpos(o, '=') + 1) AS option_value FROM unnest(NULL::text[]) AS o";

let template: Raw | undefined;

export function isOptionsToTable(n: Raw): boolean {
  const fns = n.functions as Raw[] | undefined;
  if (fns?.length !== 1 || n.ordinality) return false;
  const call = unwrap(unwrap(fns[0])[1].items[0])[1];
  return strList(call.funcname).pop()?.toLowerCase() === 'pg_options_to_table' && (call.args as Raw[] | undefined)?.length === 1;
}

/** The RangeSubselect a `pg_options_to_table(x) [AS alias]` FROM item stands for. */
export function optionsToTableSubselect(n: Raw): Raw {
  template ??= parseRaw(TEMPLATE)[0]!.stmt as Raw;
  const select = structuredClone(unwrap(template)[1]) as Raw;
  const arg = (unwrap(unwrap((n.functions as Raw[])[0])[1].items[0])[1].args as Raw[])[0];
  const unnest = unwrap(unwrap(unwrap(select.fromClause[0])[1].functions[0])[1].items[0])[1];
  unnest.args = [arg];
  return { RangeSubselect: { subquery: { SelectStmt: select }, alias: n.alias ?? { aliasname: 'pg_options_to_table' }, ...(n.lateral ? { lateral: true } : {}) } };
}
