import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { type AggregateCall, type Expr, Exprs, resolveFunction } from '../../exec/index.js';
import { positionOf, strList, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { internCall, type ExprScope, type GroupingContext } from './expr-scope.js';
import { rowText, wholeRowOf } from './row-value.js';
import type { Scope, ScopeColumn } from './scope.js';

export function lookupColumn(scope: Scope, names: readonly string[], position: number | undefined): { column: ScopeColumn; depth: number } {
  let depth = 0;
  let sawRelation = names.length === 1;
  const chain: Scope[] = [];
  for (let s: Scope | undefined = scope; s; s = s.parent, depth++) {
    chain.push(s);
    const matches = matchColumns(s, names);
    if (matches.relationSeen) sawRelation = true;
    if (matches.found.length > 1) {
      throw new FloeError(SqlState.ambiguousColumn, `column reference "${names.join('.')}" is ambiguous`, { position });
    }
    if (matches.found.length === 1) {
      // Every query between the reference and the scope that owns the column is correlated.
      for (let i = 0; i < chain.length - 1; i++) if (chain[i]!.correlation) chain[i]!.correlation!.correlated = true;
      return { column: matches.found[0]!, depth };
    }
  }
  if (!sawRelation) {
    throw new FloeError(SqlState.undefinedTable, `missing FROM-clause entry for table "${names[names.length - 2]}"`, { position });
  }
  const shown = names.length === 1 ? `"${names[0]}"` : `${names.slice(0, -1).join('.')}.${names[names.length - 1]}`;
  throw new FloeError(SqlState.undefinedColumn, `column ${shown} does not exist`, { position });
}

function matchColumns(scope: Scope, names: readonly string[]): { found: ScopeColumn[]; relationSeen: boolean } {
  const col = names[names.length - 1]!;
  const rel = names.length >= 2 ? names[names.length - 2] : undefined;
  const schema = names.length >= 3 ? names[names.length - 3] : undefined;
  let relationSeen = false;
  const found: ScopeColumn[] = [];
  for (const c of scope.columns) {
    if (rel !== undefined) {
      if (c.relation !== rel || (schema !== undefined && c.schema !== schema)) continue;
      relationSeen = true;
    } else if (c.hidden && c.system !== true && !col.includes('.')) {
      continue;
    }
    if (c.name === col) found.push(c);
  }
  return { found, relationSeen };
}

export function bindColumnRef(ctx: BindContext, n: Raw, es: ExprScope): Expr {
  void ctx;
  const fields = n.fields as Raw[];
  if (fields.some((f) => f.A_Star)) {
    throw new FloeError(SqlState.syntaxError, '* is not allowed here', { position: positionOf(n) });
  }
  const names = strList(fields);
  let found: ReturnType<typeof lookupColumn>;
  try {
    found = lookupColumn(es.scope, names, positionOf(n));
  } catch (e) {
    // `SELECT p FROM person p`: a range variable's whole row, as record text.
    const row = e instanceof FloeError && e.sqlstate === SqlState.undefinedColumn && names.length === 1 ? wholeRowOf(ctx, names, n.location, es) : undefined;
    if (row) return rowText(row);
    throw e;
  }
  const { column, depth } = found;
  if (column.tableOid > 0 && column.columnNumber > 0) ctx.access.read(column.tableOid, column.columnNumber);
  if (es.grouping && depth === 0) {
    if (groupedByPrimaryKey(es.scope, column, es.grouping)) return dependentColumn(column, es.grouping);
    throw new FloeError(SqlState.groupingError,
      `column "${column.relation ? `${column.relation}.` : ''}${column.name}" must appear in the GROUP BY clause or be used in an aggregate function`,
      { position: positionOf(n) });
  }
  if (depth === 0) return Exprs.column(column.index, column.type, column.name);
  return { kind: 'outerColumn', depth, index: column.index, type: column.type, name: column.name };
}

/**
 * Whether GROUP BY holds, as plain columns, the whole primary key of the table
 * `column` belongs to (the same range variable), so each group has one value of
 * it: PostgreSQL then lets the query read the column ungrouped.
 */
function groupedByPrimaryKey(scope: Scope, column: ScopeColumn, g: GroupingContext): boolean {
  const pk = column.tablePrimaryKey;
  if (pk === undefined || g.sets !== undefined) return false;
  return pk.every((name) => {
    const key = scope.columns.find((c) => c.name === name && c.relation === column.relation && c.tableOid === column.tableOid);
    return key !== undefined && g.keys.some((k) => k.kind === 'column' && k.index === key.index);
  });
}

/** A column a grouped primary key determines, read as any_value(column): every row of the group holds the same value. */
function dependentColumn(column: ScopeColumn, g: GroupingContext): Expr {
  const resolved = resolveFunction('any_value', [column.type]);
  if (!resolved || resolved.kind !== 'aggregate') throw new FloeError(SqlState.internalError, 'any_value is not registered');
  const call: AggregateCall = { fn: resolved.id, args: [Exprs.column(column.index, column.type, column.name)], distinct: false, type: resolved.returnType };
  return aggregateColumn(g, call, column.name);
}

/** The aggregate's output column for `call`, added to the grouping's aggregates unless an equal call is there. */
export function aggregateColumn(g: GroupingContext, call: AggregateCall, name: string): Expr {
  return Exprs.column(g.keys.length + internCall(g.aggregates, g.aggregateStrings, call), call.type, name);
}
