import { FloeError } from '../../common/floe-error.js';
import { formatType, type SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { commonSupertype, Exprs, type WorkTable } from '../../exec/index.js';
import { type LogicalPlan, LogicalProject, LogicalRecursiveUnion, LogicalWorkTableScan } from '../../planner/index.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';
import type { BindContext, BoundQuery, CteDefinition } from './bind-context.js';
import { exprKey } from './expr-scope.js';
import { bindSelect, outputCols } from './bind-query.js';
import { coerceTo } from './coerce.js';
import type { ScopeColumn } from './scope.js';

const invalidRecursion = '42P19';

/**
 * A WITH RECURSIVE query that reads itself, bound as PostgreSQL does: it must be
 * `non-recursive-term UNION [ALL] recursive-term`; the non-recursive term fixes
 * the column names (or `r(a, b)`) and types; the recursive term reads the name
 * once, as the work table, and its columns must fit those types (42804
 * otherwise). `defs` is the WITH clause's map, where the work table is visible
 * while the recursive term binds.
 */
export function bindRecursiveCte(ctx: BindContext, cte: Raw, defs: Map<string, CteDefinition>): BoundQuery {
  const name = cte.ctename as string;
  const q = unwrap(cte.ctequery)[1];
  if (q.op !== 'SETOP_UNION') {
    throw new FloeError(invalidRecursion, `recursive query "${name}" does not have the form non-recursive-term UNION [ALL] recursive-term`, { position: positionOf(cte) });
  }
  for (const [clause, node] of [['ORDER BY', q.sortClause?.[0]], ['OFFSET', q.limitOffset], ['LIMIT', q.limitCount], ['WITH', q.withClause]] as const) {
    if (node) throw new FloeError(SqlState.featureNotSupported, `${clause} in a recursive query is not implemented`, { position: positionOf(node) });
  }
  const early = referencesTo(q.larg, name);
  if (early.length > 0) {
    throw new FloeError(invalidRecursion, `recursive reference to query "${name}" must not appear within its non-recursive term`, { position: positionOf(early[0]) });
  }
  const late = referencesTo(q.rarg, name);
  if (late.length > 1) {
    throw new FloeError(invalidRecursion, `recursive reference to query "${name}" must not appear more than once`, { position: positionOf(late[1]) });
  }
  const nested = referencesTo(sublinksOf(q.rarg), name);
  if (nested.length > 0) {
    throw new FloeError(invalidRecursion, `recursive reference to query "${name}" must not appear within a subquery`, { position: positionOf(nested[0]) });
  }
  const left = bindSelect(ctx, q.larg, undefined, { correlated: false });
  const aliases = strList(cte.aliascolnames);
  if (aliases.length > left.columns.length) {
    throw new FloeError(SqlState.invalidColumnReference, `WITH query "${name}" has ${left.columns.length} columns available but ${aliases.length} columns specified`, { position: positionOf(cte) });
  }
  // An untyped literal of the non-recursive term is text, as PostgreSQL resolves it.
  const types: SqlType[] = left.columns.map((c) => (c.type.kind === 'unknown' ? { kind: 'text' } : c.type));
  const columns: ScopeColumn[] = left.columns.map((c, i) => ({ name: aliases[i] ?? c.name, index: i, type: types[i]!, tableOid: 0, columnNumber: 0 }));
  const workTable: WorkTable = { name };
  defs.set(name, { name, query: { plan: LogicalWorkTableScan.create({ workTable, columns: outputCols(columns) }), columns } });
  let right: BoundQuery;
  try {
    right = bindSelect(ctx, q.rarg, undefined, { correlated: false });
  } finally {
    defs.delete(name);
  }
  if (right.columns.length !== columns.length) {
    throw new FloeError(SqlState.syntaxError, 'each UNION query must have the same number of columns', { position: positionOf(q.rarg?.targetList?.[0]) });
  }
  right.columns.forEach((c, i) => {
    const l = types[i]!;
    if (c.type.kind === 'unknown' || exprKey(c.type) === exprKey(l)) return;
    const overall = commonSupertype([l, c.type]);
    if (!overall) throw new FloeError(SqlState.datatypeMismatch, `UNION types ${formatType(l)} and ${formatType(c.type)} cannot be matched`, { position: positionOf(q.rarg?.targetList?.[i]) });
    if (exprKey(overall) !== exprKey(l)) {
      throw new FloeError(SqlState.datatypeMismatch, `recursive query "${name}" column ${i + 1} has type ${formatType(l)} in non-recursive term but type ${formatType(overall)} overall`, {
        hint: 'Cast the output of the non-recursive term to the correct type.', position: positionOf(unwrap(q.larg?.targetList?.[i])[1]?.val),
      });
    }
  });
  const plan = LogicalRecursiveUnion.create({
    all: Boolean(q.all), workTable, left: withTypes(ctx, left, types), right: withTypes(ctx, right, types),
    columns: outputCols(columns),
  });
  return { plan, columns };
}

/** The term's rows cast to the recursive query's column types, where they differ. */
function withTypes(ctx: BindContext, q: BoundQuery, types: readonly SqlType[]): LogicalPlan {
  if (q.columns.every((c, i) => exprKey(c.type) === exprKey(types[i]!))) return q.plan;
  const exprs = q.columns.map((c, i) => coerceTo(ctx, Exprs.column(i, c.type, c.name), types[i]!, 'implicit'));
  return LogicalProject.create({ input: q.plan, exprs, columns: q.columns.map((c, i) => ({ name: c.name, type: types[i]! })) });
}

/** The FROM items of `node` that name `name` without a schema (an inner WITH of the same name counts too). */
function referencesTo(node: unknown, name: string): Raw[] {
  const found: Raw[] = [];
  const visit = (v: unknown): void => {
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) { for (const x of v) visit(x); return; }
    for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
      if (key === 'RangeVar') {
        const rv = value as Raw;
        if (rv.relname === name && rv.schemaname === undefined && rv.catalogname === undefined) found.push(rv);
        continue;
      }
      visit(value);
    }
  };
  visit(node);
  return found;
}

/** The subquery expressions (SubLinks) inside `node`. */
function sublinksOf(node: unknown): Raw[] {
  const found: Raw[] = [];
  const visit = (v: unknown): void => {
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) { for (const x of v) visit(x); return; }
    for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
      if (key === 'SubLink') { found.push(value); continue; }
      visit(value);
    }
  };
  visit(node);
  return found;
}
