import type { Raw } from '../binder/ast.js';
import { BindContext, type BoundQuery } from '../binder/bind-context.js';
import { formatType } from '../../common/sql-type.js';
import { tryResolveRelation } from '../binder/resolve-relation.js';
import { bindSelect } from '../binder/bind-query.js';
import { finishQuery } from '../binder/finish-query.js';
import type { BoundStatement } from '../bound-statement.js';
import { rewriteWithView, type ResolveFrom } from './rewrite-query.js';
import { baseRangeVars } from './view-shape.js';
import { definitionShape } from './definition-shapes.js';

/** A materialized view the session offers for answering a query: fresh enough, reading the query's tables. */
export interface OfferedView {
  readonly id: number;
  readonly namespace: string;
  readonly name: string;
  readonly definition: string;
  readonly searchPath: readonly string[];
  readonly columns: readonly { readonly name: string; readonly type: string; readonly hidden: boolean }[];
}

/** The query's FROM tables resolved in `ctx` (lake tables only, no time travel or branch), depth first. */
function resolver(ctx: BindContext): ResolveFrom {
  return (fromClause) => {
    let rangeVars: Raw[];
    try {
      rangeVars = baseRangeVars(fromClause);
    } catch {
      return undefined;
    }
    const ids: number[] = [];
    for (const rv of rangeVars) {
      if (ctx.stmt.lake.some((c) => c.kind === 'timeTravel' && c.tableLocation === rv.location)) return undefined;
      if (rv.schemaname === undefined && ctx.lookupCte(rv.relname)) return undefined;
      const rel = tryResolveRelation(ctx, rv.schemaname, rv.relname);
      if (rel?.kind !== 'lake' || rel.branch !== undefined) return undefined;
      ids.push(rel.table.id);
    }
    return ids;
  };
}

/**
 * A SELECT answered from a materialized view instead, when one the session offers matches
 * it (rewrite-query.ts), bound; undefined otherwise. Call after binding the query as written:
 * the statement keeps that binding's privilege checks (the view's rows come from tables the
 * user may read), and a table under row security for the user is never answered from a view.
 */
export function rewriteWithViews(ctx: BindContext, select: Raw, written: BoundQuery): Extract<BoundStatement, { kind: 'query' }> | undefined {
  const offer = ctx.env.materializedViews;
  if (offer === undefined || select.fromClause === undefined) return undefined;
  const resolveFrom = resolver(ctx);
  const ids = resolveFrom(select.fromClause);
  if (ids === undefined || ids.length === 0 || ids.some((id) => ctx.env.rowSecurity?.(id, 'select') !== undefined)) return undefined;
  const views = offer(ids);
  if (views.length === 0) return undefined;
  const expected = finishQuery(ctx, written).columns;
  for (const view of views) {
    const viewEnv = { ...ctx.env, searchPath: view.searchPath, materializedViews: undefined };
    const { parsed, select: viewSelect, shape } = definitionShape(view.definition, viewEnv);
    if ((parsed.ast as Raw).SelectStmt === undefined) continue;
    const viewCtx = new BindContext(parsed, viewEnv);
    const tableIds = resolver(viewCtx)(viewSelect.fromClause ?? []);
    if (tableIds === undefined) continue;
    const rewritten = rewriteWithView(select, { namespace: view.namespace, name: view.name, select: viewSelect, shape, columns: view.columns, tableIds }, resolveFrom);
    if (rewritten === undefined) continue;
    // Bound apart, so reading the view adds no privilege check of its own.
    const own = new BindContext(ctx.stmt, { ...ctx.env, materializedViews: undefined });
    try {
      const answer = finishQuery(own, bindSelect(own, rewritten, undefined));
      // The answer must be the query's row type exactly, or it is not the query's answer.
      if (answer.columns.length !== expected.length || answer.columns.some((c, i) => c.name !== expected[i]!.name || formatType(c.type) !== formatType(expected[i]!.type))) continue;
      return { ...answer, materializedView: view.id };
    } catch {
      // A rewrite that does not bind (a type the view's columns cannot re-aggregate) is no answer.
      continue;
    }
  }
  return undefined;
}
