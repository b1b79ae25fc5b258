import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { Expr } from '../../exec/index.js';
import { LogicalLateralJoin } from '../../planner/index.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindCondition } from './bind-expr.js';
import type { BoundFrom } from './bind-from.js';
import { fromQuery } from './bind-from.js';
import { bindSubquery } from './bind-query.js';
import { bindRangeFunction } from './bind-range-function.js';
import type { Scope } from './scope.js';

/**
 * `left` joined to a FROM item that reads left's columns (outerColumn depth 1):
 * the item is planned on its own and runs once per left row. `quals` is the
 * ON condition of `JOIN LATERAL … ON`, over left's columns then the item's.
 * The result replaces the FROM items so far.
 */
export function lateralApply(
  ctx: BindContext, left: BoundFrom, right: BoundFrom, joinType: 'inner' | 'left', parent: Scope | undefined,
  correlation: { correlated: boolean }, quals?: Raw,
): BoundFrom & { readonly replacesLeft: true } {
  const offset = left.scope.columns.length;
  const scope: Scope = {
    columns: [...left.scope.columns, ...right.scope.columns.map((c) => ({ ...c, index: c.index + offset }))],
    ...(parent ? { parent } : {}), correlation,
  };
  const condition: Expr | undefined = quals ? bindCondition(ctx, quals, { scope, clause: 'JOIN/ON' }) : undefined;
  const plan = LogicalLateralJoin.create({
    joinType, input: left.plan, right: right.plan, ...(condition ? { condition } : {}),
    columns: [...left.plan.columns, ...right.plan.columns],
  });
  return { plan, scope, replacesLeft: true };
}

/**
 * The right side of `left JOIN LATERAL (…)` or `left JOIN f(…)`, bound with
 * left's columns visible as outer references; undefined for other items.
 * `correlated` says whether it read them (otherwise it is an ordinary join input).
 */
export function bindLateralRight(
  ctx: BindContext, rarg: Raw, left: BoundFrom, parent: Scope | undefined, correlation: { correlated: boolean },
): { readonly right: BoundFrom; readonly correlated: boolean } | undefined {
  const [tag, n] = unwrap(rarg);
  const inner = { correlated: false };
  if (tag === 'RangeSubselect' && n.lateral) {
    const query = bindSubquery(ctx, n.subquery, left.scope, inner);
    return { right: fromQuery(query, n.alias?.aliasname as string | undefined, strList(n.alias?.colnames), parent, correlation, n), correlated: inner.correlated };
  }
  if (tag === 'RangeFunction') {
    return { right: bindRangeFunction(ctx, n, left.scope, inner), correlated: inner.correlated };
  }
  return undefined;
}

/** `a [LEFT] JOIN LATERAL … ON …`: PostgreSQL allows only INNER and LEFT to reach into the left side. */
export function lateralJoin(ctx: BindContext, j: Raw, left: BoundFrom, right: BoundFrom, parent: Scope | undefined, correlation: { correlated: boolean }): BoundFrom {
  const joinType = j.jointype === 'JOIN_INNER' ? 'inner' : j.jointype === 'JOIN_LEFT' ? 'left' : undefined;
  if (joinType === undefined) {
    const names = new Set(left.scope.columns.map((c) => c.relation).filter((r): r is string => r !== undefined));
    const ref = qualifiedReferences(j.rarg).find((r) => names.has(r.name));
    throw new FloeError(SqlState.invalidColumnReference, `invalid reference to FROM-clause entry for table "${ref?.name ?? [...names][0] ?? ''}"`, {
      position: positionOf(ref?.node ?? j.rarg), detail: 'The combining JOIN type must be INNER or LEFT for a LATERAL reference.',
    });
  }
  if (j.usingClause || j.isNatural) {
    throw new FloeError(SqlState.featureNotSupported, 'USING and NATURAL are not supported with a LATERAL reference', { position: positionOf(j) });
  }
  const joined = lateralApply(ctx, left, right, joinType, parent, correlation, j.quals);
  const alias = j.alias?.aliasname as string | undefined;
  if (alias === undefined) return joined;
  return { plan: joined.plan, scope: { ...joined.scope, columns: joined.scope.columns.map((c) => ({ ...c, relation: alias })) } };
}

/** The `rel.column` references inside a raw parse tree, with their nodes. */
function qualifiedReferences(node: unknown): { name: string; node: Raw }[] {
  const found: { name: string; node: Raw }[] = [];
  const visit = (v: unknown): void => {
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) { for (const x of v) visit(x); return; }
    for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
      const fields = key === 'ColumnRef' ? (value as Raw).fields as Raw[] : undefined;
      if (fields && fields.length >= 2) found.push({ name: strList(fields)[fields.length - 2]!, node: value });
      visit(value);
    }
  };
  visit(node);
  return found;
}
