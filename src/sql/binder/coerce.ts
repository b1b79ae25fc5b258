import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { enumTypeOf, formatType, type EnumType, type SqlType } from '../../common/sql-type.js';
import { applyCharLength, canCoerce, type CoercionContext, type Expr, Exprs, sameType } from '../../exec/index.js';
import type { BindContext } from './bind-context.js';
import { convertLiteral } from './convert-literal.js';

function sameTypmod(a: SqlType, b: SqlType): boolean {
  if (a.kind === 'varchar' && b.kind === 'varchar') return a.length === b.length;
  if (a.kind === 'bpchar' && b.kind === 'bpchar') return a.length === b.length;
  if (a.kind === 'numeric' && b.kind === 'numeric') return a.precision === b.precision && a.scale === b.scale;
  return true;
}

/** Where literals were written, so a bad literal found during coercion is reported at its position. */
const positions = new WeakMap<Expr, number>();

export function notePosition(e: Expr, position: number | undefined): void {
  if (position !== undefined) positions.set(e, position);
}

/**
 * Converts a bound expression to `target`, as PostgreSQL's coerce_type does:
 * unknown literals and parameters take the target type (parameters are recorded
 * for Describe), other types need a cast allowed in `context`.
 */
export function coerceTo(
  ctx: BindContext, e: Expr, target: SqlType, context: CoercionContext, position?: number,
): Expr {
  if (target.kind === 'unknown') return e;
  position ??= positions.get(e);
  const implicit = context !== 'explicit';
  if (e.kind === 'param' && e.type.kind === 'unknown') {
    if (target.kind === 'regclass') {
      // A regclass parameter arrives as a relation name, which only the engine can look
      // up (the wire decodes regclass as a number): take it as text and cast it here.
      ctx.setParamType(e.index, { kind: 'text' });
      return Exprs.cast(Exprs.param(e.index, { kind: 'text' }), target, implicit);
    }
    ctx.setParamType(e.index, target);
    // A label bound to an enum parameter arrives as text and goes through enum_in's check.
    if (enumOf(target) !== undefined) return Exprs.cast(Exprs.param(e.index, plainTextOf(target)), target, implicit);
    // A parameter arrives as its type without a modifier (as in PostgreSQL); the
    // length or precision is then applied like any other coercion (operators compare it as it came).
    const bare = withoutTypmod(target);
    if (bare === target || context === 'implicit') return Exprs.param(e.index, target);
    return Exprs.cast(Exprs.param(e.index, bare), target, implicit);
  }
  if (e.kind === 'literal' && e.value === null) return Exprs.literal(null, target);
  if (sameType(e.type, target)) {
    // Text becomes an enum only through enum_in's check (a cast), never by being relabelled.
    const toEnum = enumOf(target);
    if (toEnum !== undefined && enumOf(e.type)?.oid !== toEnum.oid) return Exprs.cast(e, target, implicit);
    // `m::text` (or an enum stored into a text column) is text from then on.
    if (toEnum === undefined && enumOf(e.type) !== undefined && context !== 'implicit') return Exprs.cast(e, target, implicit);
    if (sameTypmod(e.type, target) || context === 'implicit') return e;
    return Exprs.cast(e, target, implicit);
  }
  if (e.kind === 'literal' && e.type.kind === 'unknown' && typeof e.value === 'string') {
    const converted = convertLiteral(e.value, target, position);
    if (converted !== undefined) return Exprs.literal(converted, target);
    if (target.kind === 'varchar' || target.kind === 'bpchar') {
      // An operator's argument has no length: `c IN ('longer than c')` compares, it does not check.
      if (context === 'implicit') return Exprs.literal(e.value, withoutTypmod(target));
      // Assigned or cast, the length is applied now, as PostgreSQL folds it while planning: an
      // overlong literal fails (22001, without a position, as there) even where no row is written.
      return Exprs.literal(applyCharLength(e.value, target, context === 'explicit'), target);
    }
    return Exprs.cast(e, target, implicit);
  }
  if (e.type.kind === 'unknown') return Exprs.cast(e, target, implicit);
  if (!canCoerce(e.type, target, context)) {
    if (context === 'explicit') {
      throw new FloeError(SqlState.cannotCoerce, `cannot cast type ${formatType(e.type)} to ${formatType(target)}`, { position });
    }
    throw new FloeError(SqlState.datatypeMismatch,
      `${context === 'assignment' ? 'column is of type' : 'argument is of type'} ${formatType(target)} but expression is of type ${formatType(e.type)}`,
      { position, hint: 'You will need to rewrite or cast the expression.' });
  }
  return Exprs.cast(e, target, implicit);
}

/** The enum type of an enum or of an array of one. */
function enumOf(t: SqlType): EnumType | undefined {
  return t.kind === 'array' ? enumTypeOf(t.element) : enumTypeOf(t);
}

/** text (or text[]) in place of an enum (or an array of one). */
function plainTextOf(t: SqlType): SqlType {
  return t.kind === 'array' ? { kind: 'array', element: { kind: 'text' } } : { kind: 'text' };
}

/** varchar(n), char(n), numeric(p,s) without their modifier; other types as they are. */
function withoutTypmod(t: SqlType): SqlType {
  if (t.kind === 'varchar' && t.length !== undefined) return { kind: 'varchar' };
  if (t.kind === 'bpchar' && t.length !== undefined) return { kind: 'bpchar' };
  if (t.kind === 'numeric' && t.precision !== undefined) return { kind: 'numeric' };
  return t;
}

/** A parameter or unknown literal that still has no type gets text, as PostgreSQL resolves leftover unknowns. */
export function resolveUnknown(ctx: BindContext, e: Expr): Expr {
  if (e.type.kind !== 'unknown') return e;
  return coerceTo(ctx, e, { kind: 'text' }, 'implicit');
}
