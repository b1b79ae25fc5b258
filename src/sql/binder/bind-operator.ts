import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { formatType, type SqlType } from '../../common/sql-type.js';
import { type Expr, Exprs, type ResolvedFunction, resolveOperator } from '../../exec/index.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindExpr } from './bind-expr.js';
import { arrayComparison } from './array-comparison.js';
import { coerceTo } from './coerce.js';
import { unify } from './common-type.js';
import { bindEnumComparison } from './enum-comparison.js';
import type { ExprScope } from './expr-scope.js';

const boolType: SqlType = { kind: 'bool' };

export function operatorName(nameList: Raw[]): string {
  const names = strList(nameList);
  return names[names.length - 1]!;
}

/** Resolves a binary or prefix operator and coerces its operands. */
export function bindOperator(ctx: BindContext, op: string, left: Expr | undefined, right: Expr, location: Raw): Expr {
  const onEnum = left === undefined ? undefined : bindEnumComparison(ctx, op, left, right);
  if (onEnum !== undefined) return onEnum;
  const resolved = resolveOperator(op, left?.type, right.type);
  if (!resolved) {
    const shown = left === undefined ? `${op} ${formatType(right.type)}` : `${formatType(left.type)} ${op} ${formatType(right.type)}`;
    throw new FloeError(SqlState.undefinedFunction, `operator does not exist: ${shown}`, {
      position: positionOf(location),
      hint: 'No operator matches the given name and argument types. You might need to add explicit type casts.',
    });
  }
  const args = left === undefined ? [right] : [left, right];
  return Exprs.call(resolved.id, coerceArgs(ctx, args, resolved), resolved.returnType);
}

export function coerceArgs(ctx: BindContext, args: readonly Expr[], resolved: ResolvedFunction): Expr[] {
  return args.map((a, i) => coerceTo(ctx, a, resolved.argTypes[i] ?? a.type, 'implicit'));
}

/** The `=` (or other) function id for two operands, after coercing both to a common type. */
export function comparison(ctx: BindContext, op: string, left: Expr, right: Expr, location: Raw): { fn: string; left: Expr; right: Expr } {
  const call = bindOperator(ctx, op, left, right, location);
  if (call.kind !== 'call') throw new Error('operator did not bind to a call');
  return { fn: call.fn, left: call.args[0]!, right: call.args[1]! };
}

export function bindAExpr(ctx: BindContext, n: Raw, es: ExprScope): Expr {
  const kind = n.kind as string;
  const op = n.name ? operatorName(n.name) : '';
  switch (kind) {
    case 'AEXPR_OP': {
      if (unwrap(n.lexpr)[0] === 'RowExpr' && unwrap(n.rexpr)[0] === 'RowExpr') return bindRowComparison(ctx, op, n, es);
      const right = bindExpr(ctx, n.rexpr, es);
      if (n.lexpr === undefined) return bindOperator(ctx, op, undefined, right, n);
      const left = bindExpr(ctx, n.lexpr, es);
      return bindOperator(ctx, op, left, right, n);
    }
    case 'AEXPR_OP_ANY': case 'AEXPR_OP_ALL': {
      const left = bindExpr(ctx, n.lexpr, es);
      const [rtag, rn] = unwrap(n.rexpr);
      if (rtag === 'A_ArrayExpr') {
        const list = (rn.elements as Raw[] ?? []).map((a) => bindExpr(ctx, a, es));
        return inListOf(ctx, left, list, op, kind === 'AEXPR_OP_ALL', n);
      }
      const right = bindExpr(ctx, n.rexpr, es);
      const all = kind === 'AEXPR_OP_ALL';
      if (right.type.kind !== 'array' && right.type.kind !== 'unknown') {
        throw new FloeError(SqlState.wrongObjectType, `op ANY/ALL (array) requires array on right side`, { position: positionOf(n) });
      }
      // Resolve the element operator against the array's element type, then coerce the array to match.
      const elemType: SqlType = right.type.kind === 'array' ? right.type.element : (left.type.kind === 'unknown' ? { kind: 'text' } : left.type);
      const resolved = resolveOperator(op, left.type, elemType);
      if (!resolved || resolved.returnType.kind !== 'bool') {
        throw new FloeError(SqlState.undefinedFunction, `operator does not exist: ${formatType(left.type)} ${op} ${formatType(elemType)}`, {
          position: positionOf(n), hint: 'No operator matches the given name and argument types. You might need to add explicit type casts.',
        });
      }
      const l = coerceTo(ctx, left, resolved.argTypes[0]!, 'implicit');
      const r = coerceTo(ctx, right, { kind: 'array', element: resolved.argTypes[1]! }, 'implicit');
      return arrayComparison(all, resolved.id, resolved.argTypes, l, r);
    }
    case 'AEXPR_DISTINCT': case 'AEXPR_NOT_DISTINCT': {
      const c = comparison(ctx, '=', bindExpr(ctx, n.lexpr, es), bindExpr(ctx, n.rexpr, es), n);
      return { kind: 'isDistinctFrom', left: c.left, right: c.right, eqFn: c.fn, negated: kind === 'AEXPR_NOT_DISTINCT', type: boolType };
    }
    case 'AEXPR_NULLIF': {
      const [l, r] = unify(ctx, [bindExpr(ctx, n.lexpr, es), bindExpr(ctx, n.rexpr, es)], 'NULLIF', n);
      const c = comparison(ctx, '=', l!, r!, n);
      return { kind: 'nullif', left: c.left, right: c.right, eqFn: c.fn, type: c.left.type };
    }
    case 'AEXPR_IN': {
      const items = (unwrap(n.rexpr)[1].items as Raw[] | undefined) ?? (Array.isArray(n.rexpr) ? n.rexpr : []);
      if (unwrap(n.lexpr)[0] === 'RowExpr') {
        // (a, b) IN ((1, 2), (3, 4)): row equality with each, ORed (NOT IN: none equal).
        const matches = items.map((item: Raw) => bindRowComparison(ctx, '=', { ...n, rexpr: item }, es));
        const anyMatch: Expr = matches.length === 1 ? matches[0]! : { kind: 'or', args: matches, type: boolType };
        return op === '<>' ? Exprs.not(anyMatch) : anyMatch;
      }
      const left = bindExpr(ctx, n.lexpr, es);
      const list = items.map((a: Raw) => bindExpr(ctx, a, es));
      return inListOf(ctx, left, list, op === '<>' ? '<>' : '=', op === '<>', n);
    }
    case 'AEXPR_LIKE': case 'AEXPR_ILIKE': {
      const arg = coerceTo(ctx, bindExpr(ctx, n.lexpr, es), { kind: 'text' }, 'implicit', positionOf(n.lexpr));
      let patternNode = n.rexpr;
      let escape: Expr | undefined;
      const [ptag, pn] = unwrap(patternNode);
      if (ptag === 'FuncCall' && strList(pn.funcname).pop() === 'like_escape') {
        patternNode = pn.args[0];
        escape = coerceTo(ctx, bindExpr(ctx, pn.args[1], es), { kind: 'text' }, 'implicit');
      }
      const pattern = coerceTo(ctx, bindExpr(ctx, patternNode, es), { kind: 'text' }, 'implicit', positionOf(patternNode));
      const negated = op.startsWith('!');
      return {
        kind: 'like', arg, pattern, ...(escape ? { escape } : {}), caseInsensitive: kind === 'AEXPR_ILIKE', negated, type: boolType,
      };
    }
    case 'AEXPR_BETWEEN': case 'AEXPR_NOT_BETWEEN': case 'AEXPR_BETWEEN_SYM': case 'AEXPR_NOT_BETWEEN_SYM': {
      const items = unwrap(n.rexpr)[1].items as Raw[] ?? n.rexpr;
      const x = bindExpr(ctx, n.lexpr, es);
      const lo = bindExpr(ctx, items[0], es);
      const hi = bindExpr(ctx, items[1], es);
      const between = (a: Expr, b: Expr): Expr => ({
        kind: 'and', args: [bindOperator(ctx, '>=', x, a, n), bindOperator(ctx, '<=', x, b, n)], type: boolType,
      });
      let e = between(lo, hi);
      if (kind.endsWith('_SYM')) e = { kind: 'or', args: [e, between(hi, lo)], type: boolType };
      return kind.includes('NOT') ? Exprs.not(e) : e;
    }
    case 'AEXPR_SIMILAR': {
      // The parser wraps the pattern in similar_to_escape(pattern [, escape]), which makes it a regex for `~` / `!~`.
      const arg = coerceTo(ctx, bindExpr(ctx, n.lexpr, es), { kind: 'text' }, 'implicit', positionOf(n.lexpr));
      return bindOperator(ctx, op, arg, bindExpr(ctx, n.rexpr, es), n);
    }
    default:
      throw new FloeError(SqlState.featureNotSupported, `unsupported operator expression ${kind}`, { position: positionOf(n) });
  }
}

function inListOf(ctx: BindContext, left: Expr, list: readonly Expr[], op: string, all: boolean, n: Raw): Expr {
  if ((op === '=' && !all) || (op === '<>' && all)) {
    const unified = unify(ctx, [left, ...list], 'IN', n);
    const c = comparison(ctx, '=', unified[0]!, unified[1] ?? unified[0]!, n);
    return { kind: 'inList', arg: c.left, list: unified.slice(1), eqFn: c.fn, negated: op === '<>', type: boolType };
  }
  const parts = list.map((item) => bindOperator(ctx, op, left, item, n));
  return all ? { kind: 'and', args: parts, type: boolType } : { kind: 'or', args: parts, type: boolType };
}

function bindRowComparison(ctx: BindContext, op: string, n: Raw, es: ExprScope): Expr {
  const [rtag, rn] = unwrap(n.rexpr);
  if (rtag !== 'RowExpr') throw new FloeError(SqlState.featureNotSupported, 'a row can be compared only with a row constructor', { position: positionOf(n) });
  const l = (unwrap(n.lexpr)[1].args as Raw[] | undefined) ?? [];
  const r = (rn.args as Raw[] | undefined) ?? [];
  if (l.length !== r.length) throw new FloeError(SqlState.syntaxError, 'unequal number of entries in row expressions', { position: positionOf(n) });
  const left = l.map((a) => bindExpr(ctx, a, es));
  const right = r.map((a) => bindExpr(ctx, a, es));
  const pair = (o: string, i: number): Expr => bindOperator(ctx, o, left[i]!, right[i]!, n);
  const and = (args: Expr[]): Expr => (args.length === 1 ? args[0]! : { kind: 'and', args, type: boolType });
  const or = (args: Expr[]): Expr => (args.length === 1 ? args[0]! : { kind: 'or', args, type: boolType });
  if (op === '=') return and(l.map((_a, i) => pair('=', i)));
  if (op === '<>') return or(l.map((_a, i) => pair('<>', i)));
  if (op === '<' || op === '<=' || op === '>' || op === '>=') {
    // Ordered row comparison: the first unequal pair decides, the last pair with `op` itself.
    // (a, b) < (x, y) is a < x OR (a = x AND b < y); NULLs give NULL as PostgreSQL's does.
    const strict = op[0]!;
    let acc = pair(op, l.length - 1);
    for (let i = l.length - 2; i >= 0; i--) acc = or([pair(strict, i), and([pair('=', i), acc])]);
    return acc;
  }
  throw new FloeError(SqlState.featureNotSupported, `row comparison with ${op} is not supported`, { position: positionOf(n) });
}
