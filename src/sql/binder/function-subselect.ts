import { strList, unwrap, type Raw } from './ast.js';

/**
 * Catalog functions that return rows of several columns (pg_options_to_table,
 * pg_get_publication_tables) are bound as the subquery they equal: Floe's set-returning
 * functions have one column. These helpers recognise such a FROM item and wrap the subquery.
 */

/** The call of a `name(arg, …)` FROM item with `argCount` arguments (no ORDINALITY, no ROWS FROM list), or undefined. */
export function rangeFunctionCall(n: Raw, name: string, argCount: number): Raw | undefined {
  const fns = n.functions as Raw[] | undefined;
  if (fns?.length !== 1 || n.ordinality) return undefined;
  const call = unwrap(unwrap(fns[0])[1].items[0])[1];
  const matches = strList(call.funcname).pop()?.toLowerCase() === name && ((call.args as Raw[] | undefined)?.length ?? 0) === argCount;
  return matches ? call : undefined;
}

/** The RangeSubselect standing for the FROM item `n`: `select` under the item's alias (or `name`), LATERAL as written. */
export function functionSubselect(n: Raw, select: Raw, name: string): Raw {
  return { RangeSubselect: { subquery: { SelectStmt: select }, alias: n.alias ?? { aliasname: name }, ...(n.lateral ? { lateral: true } : {}) } };
}
