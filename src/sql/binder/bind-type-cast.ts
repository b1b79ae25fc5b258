import { enumTypeOf } from '../../common/sql-type.js';
import { type Expr, Exprs } from '../../exec/index.js';
import { positionOf, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindExpr } from './bind-expr.js';
import { coerceTo } from './coerce.js';
import type { ExprScope } from './expr-scope.js';
import { regnamespaceLiteral } from './regnamespace-literal.js';
import { resolveRegclass } from './resolve-relation.js';
import { resolveTypeName } from './resolve-type-name.js';
import { userTypeLookup } from './user-type-lookup.js';

// PostgreSQL's INTERVAL_MASK bits for the field qualifier of `interval '90' day`, smallest unit first.
const intervalUnits: [number, string][] = [[1 << 12, 'second'], [1 << 11, 'minute'], [1 << 10, 'hour'], [1 << 3, 'day'], [1 << 1, 'month'], [1 << 2, 'year']];

/** `interval '90' day`: a bare number takes the unit of the qualifier's last field, as in PostgreSQL. */
function qualifiedIntervalText(text: string, typeName: Raw): string {
  const mask = Number(typeName.typmods?.[0]?.A_Const?.ival?.ival ?? -1);
  if (mask <= 0 || !/^\s*[+-]?\d+(\.\d+)?\s*$/.test(text)) return text;
  const unit = intervalUnits.find(([bit]) => (mask & bit) !== 0);
  return unit ? `${text.trim()} ${unit[1]}` : text;
}

export function bindTypeCast(ctx: BindContext, n: Raw, es: ExprScope): Expr {
  const target = resolveTypeName(n.typeName, userTypeLookup(ctx));
  let arg = bindExpr(ctx, n.arg, es);
  if (target.kind === 'interval' && arg.kind === 'literal' && typeof arg.value === 'string' && arg.type.kind === 'unknown') {
    const text = qualifiedIntervalText(arg.value, n.typeName);
    if (text !== arg.value) arg = Exprs.literal(text, arg.type);
  }
  if (target.kind === 'regclass' && arg.kind === 'literal' && typeof arg.value === 'string') {
    return Exprs.literal(resolveRegclass(ctx, arg.value, positionOf(n.arg)), target);
  }
  const namespace = regnamespaceLiteral(ctx, n.typeName, arg, positionOf(n.arg));
  if (namespace !== undefined) return namespace;
  if (target.kind === 'regtype' && arg.kind === 'literal' && typeof arg.value === 'string') {
    return Exprs.cast(arg, target);
  }
  // enum_in's error points at the literal, as PostgreSQL's input functions do.
  const literalInput = enumTypeOf(target.kind === 'array' ? target.element : target) !== undefined && arg.kind === 'literal' && arg.type.kind === 'unknown';
  return coerceTo(ctx, arg, target, 'explicit', positionOf(literalInput ? n.arg : n));
}
