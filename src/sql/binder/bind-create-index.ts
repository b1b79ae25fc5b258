import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { IndexKey } from '../../lake/index.js';
import type { CatalogTable } from '../bind-env.js';
import type { BoundStatement } from '../bound-statement.js';
import { positionOf, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindCondition, bindExpr } from './bind-expr.js';
import type { ExprScope } from './expr-scope.js';
import { columnRefs } from './bind-table-constraint.js';
import { qualifyExisting } from './resolve-relation.js';

/**
 * CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON t [USING btree|hash] (key [ASC|DESC]
 * [NULLS FIRST|LAST], …) [INCLUDE (col, …)] [NULLS [NOT] DISTINCT] [WHERE predicate].
 * A key is a column or an expression; expressions and the predicate are kept as the SQL
 * text the user wrote (bound here once, so a bad one fails now, as in PostgreSQL).
 */
export function bindCreateIndex(ctx: BindContext, n: Raw): BoundStatement {
  const rv = n.relation;
  const table = qualifyExisting(ctx, rv.schemaname, rv.relname);
  const host = ctx.env.warehouse.getTable(table.namespace, table.name);
  const elements = (n.indexParams as Raw[] | undefined) ?? [];
  const texts = indexElementTexts(ctx, positionOf(rv) ?? 1, elements.length);
  const expressionColumns = new Set<string>();
  const keys: IndexKey[] = elements.map((p, i) => {
    const e = unwrap(p)[1];
    if (e.opclass?.length || e.collation?.length) {
      throw new FloeError(SqlState.featureNotSupported, 'operator classes and collations in index keys are not supported', { position: positionOf(rv) });
    }
    const order = {
      ...(e.ordering === 'SORTBY_DESC' ? { descending: true } : {}),
      ...(e.nulls_ordering === 'SORTBY_NULLS_FIRST' ? { nullsFirst: true } : e.nulls_ordering === 'SORTBY_NULLS_LAST' ? { nullsFirst: false } : {}),
    };
    if (e.name) return { column: e.name as string, ...order };
    rejectSubqueries(e.expr, 'index expression');
    if (host !== undefined) bindExpr(ctx, e.expr, hostScope(host, 'index expressions'));
    for (const r of columnRefs(e.expr)) expressionColumns.add(r.name);
    return { expr: texts[i]!, ...order };
  });
  const include = ((n.indexIncludingParams as Raw[] | undefined) ?? []).map((p) => {
    const e = unwrap(p)[1];
    if (!e.name) throw new FloeError(SqlState.featureNotSupported, 'expressions are not supported in included columns', { position: positionOf(rv) });
    return e.name as string;
  });
  let predicate: string | undefined;
  if (n.whereClause) {
    rejectSubqueries(n.whereClause, 'index predicate');
    if (host !== undefined) bindCondition(ctx, n.whereClause, hostScope(host, 'WHERE'));
    for (const r of columnRefs(n.whereClause)) expressionColumns.add(r.name);
    predicate = predicateText(ctx);
  }
  const method = ((n.accessMethod as string | undefined) ?? 'btree').toLowerCase();
  if (method !== 'btree' && method !== 'hash') {
    throw new FloeError(SqlState.featureNotSupported, `access method "${method}" is not supported`, { hint: 'Floe builds btree and hash indexes (as per-file filters).', position: positionOf(rv) });
  }
  if (n.unique && method !== 'btree') throw new FloeError(SqlState.featureNotSupported, `access method "${method}" does not support unique indexes`);
  if (method === 'hash' && (keys.length > 1 || include.length > 0)) {
    throw new FloeError(SqlState.featureNotSupported, keys.length > 1 ? 'access method "hash" does not support multicolumn indexes' : 'access method "hash" does not support included columns');
  }
  return {
    kind: 'ddl',
    command: {
      kind: 'createIndex', table, ...(n.idxname ? { name: n.idxname as string } : {}),
      columns: keys.flatMap((k) => (k.column !== undefined ? [k.column] : [])),
      unique: Boolean(n.unique), nullsNotDistinct: Boolean(n.nulls_not_distinct), ifNotExists: Boolean(n.if_not_exists), method,
      keys, include, ...(predicate !== undefined ? { predicate } : {}), expressionColumns: [...expressionColumns],
    },
  };
}

function hostScope(t: CatalogTable, clause: string): ExprScope {
  return {
    clause,
    scope: { columns: t.columns.map((c, i) => ({ name: c.name, relation: t.name, schema: t.namespace, index: i, type: c.type, tableOid: t.id, columnNumber: i + 1 })) },
  };
}

function rejectSubqueries(node: Raw, where: string): void {
  const visit = (x: Raw): void => {
    if (x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) { x.forEach(visit); return; }
    if ('SubLink' in x) throw new FloeError(SqlState.featureNotSupported, `cannot use subquery in ${where}`, { position: positionOf(x) });
    Object.values(x).forEach(visit);
  };
  visit(node);
}

/** Offsets of a statement's characters outside quotes, with their parenthesis depth. */
function* topLevel(src: string, from: number, to: number): Generator<{ at: number; ch: string; depth: number }> {
  let depth = 0;
  let quote: string | undefined;
  for (let j = from; j < to; j++) {
    const ch = src[j]!;
    if (quote !== undefined) { if (ch === quote) quote = undefined; continue; }
    if (ch === "'" || ch === '"') { quote = ch; continue; }
    if (ch === ')') depth--;
    yield { at: j, ch, depth };
    if (ch === '(') depth++;
  }
}

/**
 * Each key's text between the parentheses after `ON t [USING m]`: an expression key's
 * SQL as written (a parenthesized one without its parentheses), split at top-level commas.
 */
function indexElementTexts(ctx: BindContext, relationPosition: number, count: number): string[] {
  const src = ctx.stmt.source;
  const end = ctx.stmt.location + ctx.stmt.text.length;
  const out: string[] = [];
  let start = -1;
  for (const { at, ch, depth } of topLevel(src, relationPosition - 1, end)) {
    if (start < 0) { if (ch === '(' && depth === 0) start = at + 1; continue; }
    if ((ch === ',' && depth === 1) || (ch === ')' && depth === 0)) {
      out.push(expressionOf(src.slice(start, at).trim()));
      start = at + 1;
      if (ch === ')') break;
    }
  }
  if (out.length !== count) throw new FloeError(SqlState.syntaxError, 'could not read the index keys');
  return out;
}

/** `(expr) DESC` → `expr`; `lower(x) NULLS FIRST` → `lower(x)`: the expression up to its closing parenthesis. */
function expressionOf(element: string): string {
  for (const { at, ch, depth } of topLevel(element, 0, element.length)) {
    if (ch === ')' && depth === 0) return element.startsWith('(') ? element.slice(1, at).trim() : element.slice(0, at + 1);
  }
  return element;
}

/** The text after the statement's last top-level WHERE (the predicate is CREATE INDEX's last clause). */
function predicateText(ctx: BindContext): string {
  const src = ctx.stmt.source;
  const end = ctx.stmt.location + ctx.stmt.text.length;
  let where = -1;
  for (const { at, depth } of topLevel(src, ctx.stmt.location, end)) {
    if (depth === 0 && /^where\b/i.test(src.slice(at, at + 6)) && !/[\w$]/.test(src[at - 1] ?? ' ')) where = at;
  }
  if (where < 0) throw new FloeError(SqlState.syntaxError, 'could not read the index predicate');
  return src.slice(where + 5, end).trim();
}
