import { unwrap, type Raw } from '../binder/ast.js';
import { figureColumnName } from '../binder/figure-column-name.js';
import { templateExpr } from './parse-template.js';
import { VIEW_COUNT_COLUMN } from './refresh-statements.js';
import { baseRangeVars, exprKey, sameExpr, type ViewShape } from './view-shape.js';

/*
 * Answering a query from a materialized view (issue 31, item 4). The query's relational
 * core must be the view's: the same tables in the same FROM shape, and the view's WHERE
 * among the query's conjuncts. Then either the query is the view's own SELECT, or it groups
 * by some of the view's group keys (a rollup: each aggregate is re-aggregated from the
 * view's columns and state), with its extra conjuncts over those keys applied to the
 * view's rows. Anything else is left alone: not rewriting is always right.
 */

/** A materialized view a query may be answered from (the session offers only fresh-enough ones). */
export interface RewriteCandidate {
  readonly namespace: string;
  readonly name: string;
  /** Its SELECT, parsed (unwrapped). */
  readonly select: Raw;
  readonly shape: ViewShape;
  /** Its table's columns: the user's (hidden false) in output order, then the key and state. */
  readonly columns: readonly { readonly name: string; readonly type: string; readonly hidden: boolean }[];
  /** The tables each of its FROM clause's RangeVars resolve to, depth first (baseRangeVars' order). */
  readonly tableIds: readonly number[];
}

/** The query's FROM tables, resolved the query's way, depth first; undefined when one is no lake table. */
export type ResolveFrom = (fromClause: readonly Raw[]) => readonly number[] | undefined;

/** The query rewritten over `view`, or undefined when it does not match. */
export function rewriteWithView(query: Raw, view: RewriteCandidate, resolveFrom: ResolveFrom): Raw | undefined {
  if (!plainQuery(query) || !sameFrom(query, view, resolveFrom)) return undefined;
  const extra = extraConjuncts(query.whereClause, view.select.whereClause);
  if (extra === undefined) return undefined;
  return exprKey(stripOrder(query)) === wholeKey(view.select) ? overWhole(query, view) : view.shape.kind === 'aggregate' ? rollup(query, view, extra) : undefined;
}

function plainQuery(q: Raw): boolean {
  return (q.op === undefined || q.op === 'SETOP_NONE') && q.withClause === undefined && q.havingClause === undefined && q.windowClause === undefined
    && q.distinctClause === undefined && q.lockingClause === undefined && q.intoClause === undefined && q.valuesLists === undefined
    && (q.fromClause?.length ?? 0) > 0;
}

function sameFrom(q: Raw, view: RewriteCandidate, resolveFrom: ResolveFrom): boolean {
  const ids = resolveFrom(q.fromClause);
  if (ids === undefined || ids.length !== view.tableIds.length || ids.some((id, i) => id !== view.tableIds[i])) return false;
  // Tables aside (resolved above), the FROM clauses must read alike: aliases, joins, ON conditions.
  const shapeOf = (from: readonly Raw[]) => JSON.stringify(from, (k, v: unknown) => (k === 'location' || k === 'schemaname' || k === 'relname' ? undefined : v));
  try {
    baseRangeVars(q.fromClause);
  } catch {
    return false;
  }
  return shapeOf(q.fromClause) === shapeOf(view.select.fromClause);
}

const wholeKeys = new WeakMap<Raw, string>();

/** The view's SELECT without its ordering, as text (exprKey); kept when the SELECT is a kept, frozen one. */
function wholeKey(select: Raw): string {
  const known = wholeKeys.get(select);
  if (known !== undefined) return known;
  const key = exprKey(stripOrder(select));
  if (Object.isFrozen(select)) wholeKeys.set(select, key);
  return key;
}

function stripOrder(s: Raw): Raw {
  const { sortClause: _s, limitCount: _l, limitOffset: _o, limitOption: _lo, ...rest } = s;
  return rest;
}

function conjuncts(where: Raw | undefined): Raw[] {
  if (where === undefined) return [];
  const [tag, n] = unwrap(where);
  return tag === 'BoolExpr' && n.boolop === 'AND_EXPR' ? (n.args as Raw[]).flatMap(conjuncts) : [where];
}

/** The query's conjuncts beyond the view's; undefined when one of the view's is not among them (the view may lack rows the query needs). */
function extraConjuncts(queryWhere: Raw | undefined, viewWhere: Raw | undefined): Raw[] | undefined {
  const q = conjuncts(queryWhere);
  const queryKeys = q.map(exprKey);
  const viewKeys = new Set(conjuncts(viewWhere).map(exprKey));
  if (![...viewKeys].every((k) => queryKeys.includes(k))) return undefined;
  return q.filter((_, i) => !viewKeys.has(queryKeys[i]!));
}

function columnRef(name: string): Raw {
  return { ColumnRef: { fields: [{ String: { sval: name } }], location: -1 } };
}

function fromView(view: RewriteCandidate): Raw[] {
  return [{ RangeVar: { schemaname: view.namespace, relname: view.name, inh: true, relpersistence: 'p', location: -1 } }];
}

/** The query is the view's SELECT: read the view's columns under the query's names. */
function overWhole(query: Raw, view: RewriteCandidate): Raw | undefined {
  const visible = view.columns.filter((c) => !c.hidden);
  const targets = query.targetList as Raw[];
  if (targets.some((t) => JSON.stringify(t).includes('A_Star'))) {
    if (targets.length !== 1) return undefined;
    return withOrder(query, { targetList: visible.map((c) => ({ ResTarget: { val: columnRef(c.name), location: -1 } })), fromClause: fromView(view) }, targets);
  }
  const targetList = targets.map((t, j) => ({ ResTarget: { name: t.ResTarget.name ?? figureColumnName(t.ResTarget.val), val: columnRef(visible[j]!.name), location: -1 } }));
  return withOrder(query, { targetList, fromClause: fromView(view) }, targets);
}

/** ORDER BY and LIMIT carried over: an ORDER BY expression becomes the position of the output it equals. */
function withOrder(query: Raw, select: Raw, targets: readonly Raw[]): Raw | undefined {
  const out: Raw = { ...select, op: 'SETOP_NONE' };
  if (query.limitCount !== undefined) out.limitCount = query.limitCount;
  if (query.limitOffset !== undefined) out.limitOffset = query.limitOffset;
  if (query.limitOption !== undefined) out.limitOption = query.limitOption;
  if (query.sortClause === undefined) return out;
  const sorts: Raw[] = [];
  for (const s of query.sortClause as Raw[]) {
    const by = s.SortBy;
    const [tag, n] = unwrap(by.node);
    const named = tag === 'ColumnRef' && n.fields.length === 1 && targets.some((t) => (t.ResTarget.name ?? figureColumnName(t.ResTarget.val)) === n.fields[0].String?.sval);
    if (tag === 'A_Const' || named) { sorts.push(s); continue; }
    const at = targets.findIndex((t) => sameExpr(t.ResTarget.val, by.node));
    if (at < 0) return undefined;
    sorts.push({ SortBy: { ...by, node: { A_Const: { ival: { ival: at + 1 }, location: -1 } } } });
  }
  out.sortClause = sorts;
  return out;
}

/**
 * Replaces every subtree equal to a view group output by that output's column; undefined
 * when a base column is left, or a function call: the parse tree cannot tell an aggregate
 * (which would count the view's rows, not the table's) from a plain function.
 */
function overGroupColumns(node: Raw, groups: readonly { expr: Raw; column: string }[]): Raw | undefined {
  let foreign = false;
  const byKey = new Map<string, { expr: Raw; column: string }>();
  for (const g of groups) if (!byKey.has(exprKey(g.expr))) byKey.set(exprKey(g.expr), g);
  const walk = (n: Raw): Raw => {
    if (n === null || typeof n !== 'object') return n;
    if (Array.isArray(n)) return n.map(walk);
    const g = byKey.get(exprKey(n));
    if (g !== undefined) return columnRef(g.column);
    const tag = unwrap(n)[0];
    if (tag === 'ColumnRef' || tag === 'FuncCall' || tag === 'SubLink') foreign = true;
    const out: Raw = {};
    for (const [k, v] of Object.entries(n)) out[k] = walk(v);
    return out;
  };
  const mapped = walk(node);
  return foreign ? undefined : mapped;
}

function rollup(query: Raw, view: RewriteCandidate, extra: readonly Raw[]): Raw | undefined {
  if (view.shape.kind !== 'aggregate') return undefined;
  const outputs = view.shape.outputs;
  const visible = view.columns.filter((c) => !c.hidden);
  const groups = outputs.flatMap((o, j) => (o.kind === 'group' ? [{ expr: o.expr, column: visible[j]!.name }] : []));
  const targets = query.targetList as Raw[];
  const groupBy: Raw[] = [];
  for (const g of (query.groupClause as Raw[] | undefined) ?? []) {
    const [tag, n] = unwrap(g);
    const expr = tag === 'A_Const' && n.ival !== undefined ? targets[Number(n.ival.ival ?? 0) - 1]?.ResTarget.val : g;
    const mapped = expr === undefined ? undefined : overGroupColumns(expr, groups);
    if (mapped === undefined) return undefined;
    groupBy.push(mapped);
  }
  const where: Raw[] = [];
  for (const c of extra) {
    const mapped = overGroupColumns(c, groups);
    if (mapped === undefined) return undefined;
    where.push(mapped);
  }
  const targetList: Raw[] = [];
  for (const t of targets) {
    const val = t.ResTarget.val;
    const mapped = reaggregate(val, outputs, visible) ?? overGroupColumns(val, groups);
    if (mapped === undefined) return undefined;
    targetList.push({ ResTarget: { name: t.ResTarget.name ?? figureColumnName(val), val: mapped, location: -1 } });
  }
  const select: Raw = { targetList, fromClause: fromView(view) };
  if (where.length === 1) select.whereClause = where[0];
  if (where.length > 1) select.whereClause = { BoolExpr: { boolop: 'AND_EXPR', args: where, location: -1 } };
  if (groupBy.length > 0) select.groupClause = groupBy;
  return withOrder(query, select, targets);
}

/** An aggregate of the query, computed from the view's columns, or undefined when it cannot be. */
function reaggregate(val: Raw, outputs: Extract<ViewShape, { kind: 'aggregate' }>['outputs'], visible: RewriteCandidate['columns']): Raw | undefined {
  const [tag, f] = unwrap(val);
  if (tag !== 'FuncCall') return undefined;
  if (f.agg_distinct === true || f.agg_filter !== undefined || f.agg_order !== undefined || f.over !== undefined) return undefined;
  const name = f.funcname[f.funcname.length - 1].String?.sval as string;
  const arg = (f.args as Raw[] | undefined)?.[0];
  const find = (fn: string) => outputs.findIndex((o) => o.kind === 'aggregate' && o.fn === fn && (fn === 'count*' || sameExpr(o.arg, arg)));
  // A count is bigint and 0 over no rows; summing bigints gives numeric.
  const counted = (column: string) => templateExpr('CAST(coalesce(sum(__p_c), 0) AS bigint)', { c: columnRef(column) });
  if (f.agg_star === true) {
    if (name !== 'count') return undefined;
    const j = find('count*');
    return counted(j >= 0 ? visible[j]!.name : VIEW_COUNT_COLUMN);
  }
  const j = find(name === 'every' ? 'bool_and' : name);
  if (j < 0) return undefined;
  const col = { c: columnRef(visible[j]!.name) };
  const type = visible[j]!.type;
  switch (name) {
    case 'count': return counted(visible[j]!.name);
    case 'sum': return templateExpr(`CAST(sum(__p_c) AS ${type})`, col);
    case 'min': case 'max': case 'bool_and': case 'bool_or': return templateExpr(`${name}(__p_c)`, col);
    case 'every': return templateExpr('bool_and(__p_c)', col);
    // avg from the state the view keeps for it: the sum and the count of non-null values.
    case 'avg': return templateExpr(`CAST(sum(__p_s) AS ${type}) / nullif(sum(__p_n), 0)`, { s: columnRef(`floe$sum_${j + 1}`), n: columnRef(`floe$nn_${j + 1}`) });
    default: return undefined;
  }
}
