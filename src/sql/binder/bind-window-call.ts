import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { type Expr, Exprs, resolveFunction, type WindowCall, type WindowFrame, type WindowFrameBound } from '../../exec/index.js';
import { simplifyExpr } from '../../planner/index.js';
import { positionOf, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindCondition, bindExpr } from './bind-expr.js';
import { functionNotFound } from './bind-function-call.js';
import { coerceArgs } from './bind-operator.js';
import { bindSortKey } from './bind-sort-key.js';
import { coerceTo, resolveUnknown } from './coerce.js';
import { internCall, type ExprScope } from './expr-scope.js';

export function bindWindowCall(ctx: BindContext, n: Raw, es: ExprScope, name: string): Expr {
  const w = es.windows;
  if (!w) throw new FloeError(SqlState.groupingError, `window functions are not allowed in ${es.clause}`, { position: positionOf(n) });
  // Window arguments, partitions and orderings are evaluated over the (grouped) rows, without further windows.
  const inner: ExprScope = { scope: es.scope, clause: 'window function calls', ...(es.grouping ? { grouping: es.grouping } : {}) };
  const args = n.agg_star ? [] : (n.args as Raw[] | undefined ?? []).map((a) => bindExpr(ctx, a, inner));
  const resolved = resolveFunction(name, args.map((a) => a.type));
  if (!resolved) throw functionNotFound(name, args, n);
  if (resolved.kind === 'scalar') {
    throw new FloeError(SqlState.wrongObjectType, `OVER specified, but ${name} is not a window function nor an aggregate function`, { position: positionOf(n) });
  }
  let over = n.over as Raw;
  const ref = (over.name ?? over.refname) as string | undefined;
  if (ref !== undefined) {
    const base = w.named?.get(ref);
    if (!base) throw new FloeError(SqlState.undefinedObject, `window "${ref}" does not exist`, { position: positionOf(over) });
    // OVER w uses w as is; OVER (w ORDER BY …) adds ordering (and a frame) to w's partitioning.
    over = over.name !== undefined ? base : {
      ...over, partitionClause: base.partitionClause, orderClause: over.orderClause ?? base.orderClause,
      ...((Number(over.frameOptions ?? 0) & frameNonDefault) ? {} : { frameOptions: base.frameOptions, startOffset: base.startOffset, endOffset: base.endOffset }),
    };
  }
  const partitionBy = (over.partitionClause as Raw[] | undefined ?? []).map((p) => resolveUnknown(ctx, bindExpr(ctx, p, inner)));
  const orderBy = (over.orderClause as Raw[] | undefined ?? []).map((s) => bindSortKey(ctx, unwrap(s)[1], inner));
  const filter = n.agg_filter ? bindCondition(ctx, n.agg_filter, { ...inner, clause: 'FILTER' }) : undefined;
  const frame = windowFrame(ctx, over, inner);
  const call: WindowCall = {
    fn: resolved.id, args: coerceArgs(ctx, args, resolved), partitionBy, orderBy,
    ...(frame ? { frame } : {}), ...(filter ? { filter } : {}), type: resolved.returnType,
  };
  return Exprs.column(w.base + internCall(w.calls, w.callStrings, call), call.type, name);
}

// PostgreSQL's FRAMEOPTION_* bits (nodes/parsenodes.h).
const frameNonDefault = 0x1;
const frameRange = 0x2;
const frameRows = 0x4;
const frameGroups = 0x8;
const frameStartUnboundedPreceding = 0x20;
const frameEndUnboundedFollowing = 0x100;
const frameStartCurrentRow = 0x200;
const frameEndCurrentRow = 0x400;
const frameStartOffsetPreceding = 0x800;
const frameEndOffsetPreceding = 0x1000;
const frameStartOffsetFollowing = 0x2000;
const frameEndOffsetFollowing = 0x4000;
const frameExclude = 0x8000 | 0x10000 | 0x20000;

/** An explicit ROWS/RANGE/GROUPS frame, or undefined for the default. */
function windowFrame(ctx: BindContext, over: Raw, es: ExprScope): WindowFrame | undefined {
  const o = Number(over.frameOptions ?? 0);
  if (!(o & frameNonDefault)) return undefined;
  if (o & frameExclude) throw new FloeError(SqlState.featureNotSupported, 'frame EXCLUDE is not supported', { position: positionOf(over) });
  const mode = o & frameRows ? 'rows' : o & frameGroups ? 'groups' : o & frameRange ? 'range' : 'range';
  const offset = (node: Raw): Expr => {
    const e = bindExpr(ctx, node, { scope: { columns: [], ...(es.scope.parent ? { parent: es.scope.parent } : {}) }, clause: 'window frame' });
    return simplifyExpr(mode === 'range' ? resolveUnknown(ctx, e) : coerceTo(ctx, e, { kind: 'int8' }, 'implicit', positionOf(node)));
  };
  const start: WindowFrameBound = o & frameStartUnboundedPreceding ? { kind: 'unboundedPreceding' }
    : o & frameStartCurrentRow ? { kind: 'currentRow' }
    : o & frameStartOffsetPreceding ? { kind: 'preceding', offset: offset(over.startOffset) }
    : o & frameStartOffsetFollowing ? { kind: 'following', offset: offset(over.startOffset) }
    : { kind: 'unboundedPreceding' };
  const end: WindowFrameBound = o & frameEndUnboundedFollowing ? { kind: 'unboundedFollowing' }
    : o & frameEndCurrentRow ? { kind: 'currentRow' }
    : o & frameEndOffsetPreceding ? { kind: 'preceding', offset: offset(over.endOffset) }
    : o & frameEndOffsetFollowing ? { kind: 'following', offset: offset(over.endOffset) }
    : { kind: 'currentRow' };
  return { mode, start, end };
}
