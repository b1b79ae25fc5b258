import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import {
  type Expr, Exprs, type OutputColumn, resolveFunction, type SetFunctionCall, setFunctionColumns,
} from '../../exec/index.js';
import { LogicalProject, LogicalProjectSet, LogicalValues, mapChildren, walkExpr } from '../../planner/index.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindExpr } from './bind-expr.js';
import type { BoundFrom } from './bind-from.js';
import { lateralApply } from './bind-lateral.js';
import { bindTableChanges } from './bind-table-changes.js';
import { coerceTo } from './coerce.js';
import { figureColumnName } from './figure-column-name.js';
import type { Scope, ScopeColumn } from './scope.js';

/**
 * Functions in FROM (PostgreSQL's RangeFunction): `f(…)`, `ROWS FROM (f(…), g(…))`,
 * multi-argument `unnest(a, b)` (zipped, as ROWS FROM of one unnest per
 * argument), `[WITH ORDINALITY]`, `AS t(c1, …)`. A set-returning function
 * streams through EXEC's ProjectSet; any other function, `current_date`
 * included, is one row. Earlier FROM items are visible (functions in FROM are
 * implicitly LATERAL): a single set function over them expands each of their
 * rows in one ProjectSet; anything else runs per row in a lateral join.
 */
export function bindRangeFunction(
  ctx: BindContext, n: Raw, parent: Scope | undefined, correlation: { correlated: boolean }, lateralLeft?: BoundFrom,
): BoundFrom {
  if (n.coldeflist) throw new FloeError(SqlState.featureNotSupported, 'a column definition list in FROM is not supported', { position: positionOf(n) });
  const calls = functionCalls(n);
  const [firstTag, first] = unwrap(calls[0]);
  if (firstTag === 'FuncCall' && calls.length === 1 && !n.ordinality && functionName(first) === 'table_changes') {
    const argScope: Scope = { columns: lateralLeft ? lateralLeft.scope.columns : [], ...(parent ? { parent } : {}), correlation };
    const args = ((first.args as Raw[] | undefined) ?? []).map((a) => bindExpr(ctx, a, { scope: argScope, clause: 'FROM' }));
    return bindTableChanges(ctx, n, first, args, parent, correlation);
  }
  if (!lateralLeft) return bindFunctionItem(ctx, n, calls, parent, correlation);
  // Earlier items are outer rows to the function; when it reads none, it is a plain FROM item.
  const inner = { correlated: false };
  const item = bindFunctionItem(ctx, n, calls, lateralLeft.scope, inner);
  if (!inner.correlated) return item;
  return expandOverLeft(item, lateralLeft, parent, correlation) ?? lateralApply(ctx, lateralLeft, item, 'inner', parent, correlation);
}

/** The calls of a RangeFunction; `unnest(a, b)` becomes `unnest(a), unnest(b)`, as in PostgreSQL. */
function functionCalls(n: Raw): Raw[] {
  const calls = (n.functions as Raw[]).map((f) => (unwrap(f)[1].items as Raw[])[0]);
  const [tag, call] = unwrap(calls[0]);
  const args = (call?.args as Raw[] | undefined) ?? [];
  if (!n.is_rowsfrom && calls.length === 1 && tag === 'FuncCall' && functionName(call) === 'unnest' && args.length > 1) {
    return args.map((a) => ({ FuncCall: { ...call, args: [a] } }));
  }
  return calls;
}

function functionName(call: Raw): string {
  return strList(call.funcname).pop()!.toLowerCase();
}

interface BoundCall {
  readonly expr: Expr | SetFunctionCall;
  readonly columns: readonly OutputColumn[];
}

function bindFunctionItem(
  ctx: BindContext, n: Raw, calls: readonly Raw[], parent: Scope | undefined, correlation: { correlated: boolean },
): BoundFrom {
  const es = { scope: { columns: [], ...(parent ? { parent } : {}), correlation }, clause: 'FROM' };
  const givenAlias = n.alias?.aliasname as string | undefined;
  const bound = calls.map((raw) => bindCall(ctx, raw, es, calls.length === 1 ? givenAlias : undefined));
  const sets = bound.filter((b) => b.expr.kind === 'setCall').length;
  if (sets > 0 && sets < bound.length) {
    throw new FloeError(SqlState.featureNotSupported, 'ROWS FROM mixing set-returning and other functions is not supported', { position: positionOf(n) });
  }
  const ordinality: OutputColumn[] = n.ordinality ? [{ name: 'ordinality', type: { kind: 'int8' } }] : [];
  const outCols = [...bound.flatMap((b) => b.columns), ...ordinality];
  const one = LogicalValues.create({ rows: [[]], columns: [] });
  const plan = sets > 0
    ? LogicalProjectSet.create({ input: one, exprs: bound.map((b) => b.expr), ...(n.ordinality ? { ordinality: true } : {}), columns: outCols })
    : LogicalProject.create({
      input: one, exprs: [...bound.map((b) => b.expr as Expr), ...(n.ordinality ? [Exprs.literal(1n, { kind: 'int8' })] : [])], columns: outCols,
    });
  return { plan, scope: functionScope(n, outCols, calls[0], parent, correlation) };
}

/** One call: a set function (its OUT columns, if named) or any other expression as one column. */
function bindCall(ctx: BindContext, raw: Raw, es: { scope: Scope; clause: string }, alias: string | undefined): BoundCall {
  const [tag, call] = unwrap(raw);
  // PostgreSQL's chooseScalarFunctionAlias: a single named OUT parameter, else the alias of a lone function, else its name.
  const scalarName = alias ?? figureColumnName(raw);
  if (tag === 'FuncCall' && !call.over && !call.agg_star) {
    const name = functionName(call);
    const args = ((call.args as Raw[] | undefined) ?? []).map((a) => bindExpr(ctx, a, es));
    const resolved = resolveFunction(name, args.map((a) => a.type));
    if (resolved?.kind === 'set') {
      const named = setFunctionColumns(resolved.id);
      const width = named && named.length > 1 ? named.length : 1;
      const expr: SetFunctionCall = {
        kind: 'setCall', fn: resolved.id, args: args.map((a, i) => coerceTo(ctx, a, resolved.argTypes[i]!, 'implicit')),
        type: resolved.returnType, ...(width > 1 ? { width } : {}),
      };
      const columns = width > 1 ? named!.map((c) => ({ name: c.name, type: c.type })) : [{ name: named?.[0]?.name ?? scalarName, type: resolved.returnType }];
      return { expr, columns };
    }
  }
  const expr = bindExpr(ctx, raw, es);
  const type: SqlType = expr.type.kind === 'unknown' ? { kind: 'text' } : expr.type;
  return { expr: expr.type === type ? expr : coerceTo(ctx, expr, type, 'implicit'), columns: [{ name: scalarName, type }] };
}

/** The item's columns under its alias (the function's name without one), renamed by `AS t(c1, …)`. */
function functionScope(n: Raw, cols: readonly OutputColumn[], firstCall: Raw, parent: Scope | undefined, correlation: { correlated: boolean }): Scope {
  const alias = (n.alias?.aliasname as string | undefined) ?? figureColumnName(firstCall);
  const colnames = strList(n.alias?.colnames);
  if (colnames.length > cols.length) {
    throw new FloeError(SqlState.invalidColumnReference, `table "${alias}" has ${cols.length} columns available but ${colnames.length} columns specified`, { position: positionOf(n.alias) ?? positionOf(n) });
  }
  const columns: ScopeColumn[] = cols.map((c, i) => ({ name: colnames[i] ?? c.name, relation: alias, index: i, type: c.type, tableOid: 0, columnNumber: 0 }));
  return { columns, ...(parent ? { parent } : {}), correlation };
}

/**
 * `FROM t, f(t.x)` with one set function whose arguments hold no subquery: a
 * ProjectSet over t (t's columns passed through, the function's appended), so
 * t's rows expand in batches instead of one subplan run per row. The result
 * replaces the FROM items so far.
 */
function expandOverLeft(
  item: BoundFrom, left: BoundFrom, parent: Scope | undefined, correlation: { correlated: boolean },
): (BoundFrom & { readonly replacesLeft: true }) | undefined {
  const p = item.plan;
  if (p.kind !== 'projectSet' || p.exprs.length !== 1) return undefined;
  const call = p.exprs[0]!;
  if (call.kind !== 'setCall' || call.args.some(holdsSubquery)) return undefined;
  const width = left.plan.columns.length;
  const plan = LogicalProjectSet.create({
    input: left.plan,
    exprs: [...left.plan.columns.map((c, i) => Exprs.column(i, c.type, c.name)), { ...call, args: call.args.map(lowerOuterRefs) }],
    ...(p.ordinality ? { ordinality: true } : {}), columns: [...left.plan.columns, ...p.columns],
  });
  const columns: ScopeColumn[] = [...left.scope.columns, ...item.scope.columns.map((c) => ({ ...c, index: c.index + width }))];
  return { plan, scope: { columns, ...(parent ? { parent } : {}), correlation }, replacesLeft: true };
}

function holdsSubquery(e: Expr): boolean {
  let found = false;
  walkExpr(e, (x) => { if (x.kind === 'scalarSubquery' || x.kind === 'exists' || x.kind === 'inSubquery') found = true; });
  return found;
}

/** An expression over outer rows (the left row at depth 1) rewritten to read the left row as its input. */
function lowerOuterRefs(e: Expr): Expr {
  if (e.kind === 'outerColumn') return e.depth === 1 ? Exprs.column(e.index, e.type, e.name) : { ...e, depth: e.depth - 1 };
  return mapChildren(e, lowerOuterRefs);
}
