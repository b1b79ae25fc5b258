import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { formatType, type SqlType } from '../../common/sql-type.js';
import { type Expr, Exprs, resolveOperator } from '../../exec/index.js';
import { positionOf, unwrap, type Raw } from './ast.js';
import { isAggregateCall } from './aggregate-names.js';
import { bindCase } from './bind-case.js';
import { bindColumnRef } from './bind-column-ref.js';
import type { BindContext } from './bind-context.js';
import { bindFuncCall, bindSqlValueFunction } from './bind-function-call.js';
import { bindGroupingFunc } from './bind-grouping-func.js';
import { bindIndirection } from './bind-indirection.js';
import { bindConst } from './bind-literal.js';
import { bindAExpr } from './bind-operator.js';
import { bindSubLink } from './bind-sublink.js';
import { bindTypeCast } from './bind-type-cast.js';
import { coerceTo, resolveUnknown } from './coerce.js';
import { unify } from './common-type.js';
import { exprKey, type ExprScope, type GroupingContext } from './expr-scope.js';
import { rowInAsExists } from './row-in-subquery.js';
import { bindRowNullTest } from './row-value.js';

const boolType: SqlType = { kind: 'bool' };

/**
 * Binds one expression by dispatching on its parse-tree tag; each kind's binding
 * lives in its own file (bind-column-ref, bind-operator, bind-function-call, …).
 */
export function bindExpr(ctx: BindContext, node: Raw, es: ExprScope): Expr {
  if (es.grouping) return bindGrouped(ctx, node, es, es.grouping);
  return bindPlain(ctx, node, es);
}

/** Binds a boolean condition (WHERE, ON, HAVING): unknowns become bool, other types are an error. */
export function bindCondition(ctx: BindContext, node: Raw, es: ExprScope): Expr {
  const e = bindExpr(ctx, node, es);
  if (e.type.kind === 'bool') return e;
  if (e.type.kind === 'unknown') return coerceTo(ctx, e, boolType, 'implicit', positionOf(node));
  throw new FloeError(SqlState.datatypeMismatch, `argument of ${es.clause} must be type boolean, not type ${formatType(e.type)}`, { position: positionOf(node) });
}

function bindGrouped(ctx: BindContext, node: Raw, es: ExprScope, g: GroupingContext): Expr {
  const [tag, n] = unwrap(node);
  // A sub-expression equal to a group key reads the key's column.
  if (tag !== 'FuncCall' || !isAggregateCall(n)) {
    if (g.keys.length > 0 && tag !== 'A_Const' && tag !== 'ParamRef') {
      let plain: Expr | undefined;
      try {
        plain = bindExpr(ctx, node, { scope: es.scope, clause: es.clause });
      } catch {
        plain = undefined;
      }
      if (plain !== undefined) {
        const i = g.keyStrings.indexOf(exprKey(plain));
        if (i >= 0) return Exprs.column(i, plain.type, columnName(plain));
      }
    }
  }
  return bindPlain(ctx, node, es);
}

function columnName(e: Expr): string | undefined {
  return e.kind === 'column' ? e.name : undefined;
}

function bindPlain(ctx: BindContext, node: Raw, es: ExprScope): Expr {
  const [tag, n] = unwrap(node);
  switch (tag) {
    case 'ColumnRef': return bindColumnRef(ctx, n, es);
    case 'A_Const': return bindConst(n);
    case 'ParamRef': {
      const number = Number(n.number ?? 0);
      const index = number - 1;
      if (index < 0) throw new FloeError(SqlState.undefinedParameter, `there is no parameter $${number}`, { position: positionOf(n) });
      const t = ctx.paramType(index);
      ctx.noteParam(index);
      return Exprs.param(index, t ?? { kind: 'unknown' });
    }
    case 'TypeCast': return bindTypeCast(ctx, n, es);
    case 'A_Expr': return bindAExpr(ctx, n, es);
    case 'BoolExpr': {
      if (n.boolop === 'NOT_EXPR') {
        // NOT ((a, b) IN (SELECT …)): one NOT EXISTS with NOT IN's NULL rule (row-in-subquery.ts).
        const [atag, sublink] = unwrap(n.args[0]);
        const rowIn = atag === 'SubLink' ? rowInAsExists(sublink, true) : undefined;
        if (rowIn) {
          const exists = bindSubLink(ctx, rowIn.sublink, es);
          return rowIn.negated ? Exprs.not(exists) : exists;
        }
      }
      const args = (n.args as Raw[]).map((a) => bindCondition(ctx, a, { ...es, clause: boolOpName(n.boolop) }));
      if (n.boolop === 'AND_EXPR') return { kind: 'and', args, type: boolType };
      if (n.boolop === 'OR_EXPR') return { kind: 'or', args, type: boolType };
      return Exprs.not(args[0]!);
    }
    case 'NullTest': {
      const row = bindRowNullTest(ctx, n.arg, es, n.nulltesttype === 'IS_NULL');
      if (row) return row;
      const arg = resolveUnknown(ctx, bindExpr(ctx, n.arg, es));
      return n.nulltesttype === 'IS_NULL' ? Exprs.isNull(arg) : Exprs.isNotNull(arg);
    }
    case 'BooleanTest': {
      const arg = bindCondition(ctx, n.arg, { ...es, clause: 'IS TRUE' });
      const map: Record<string, ['true' | 'false' | 'unknown', boolean]> = {
        IS_TRUE: ['true', false], IS_NOT_TRUE: ['true', true], IS_FALSE: ['false', false],
        IS_NOT_FALSE: ['false', true], IS_UNKNOWN: ['unknown', false], IS_NOT_UNKNOWN: ['unknown', true],
      };
      const [test, negated] = map[n.booltesttype as string]!;
      return { kind: 'isTruth', arg, test, negated, type: boolType };
    }
    case 'CaseExpr': return bindCase(ctx, n, es);
    case 'CoalesceExpr': {
      const args = unify(ctx, (n.args as Raw[]).map((a) => bindExpr(ctx, a, es)), 'COALESCE', n);
      return { kind: 'coalesce', args, type: args[0]!.type };
    }
    case 'MinMaxExpr': {
      const args = unify(ctx, (n.args as Raw[]).map((a) => bindExpr(ctx, a, es)), n.op === 'IS_GREATEST' ? 'GREATEST' : 'LEAST', n);
      const cmp = resolveOperator('<', args[0]!.type, args[0]!.type);
      if (!cmp) throw new FloeError(SqlState.undefinedFunction, `could not identify a comparison function for type ${formatType(args[0]!.type)}`, { position: positionOf(n) });
      return { kind: n.op === 'IS_GREATEST' ? 'greatest' : 'least', args, cmpFn: cmp.id, type: args[0]!.type };
    }
    case 'A_ArrayExpr': {
      const elements = (n.elements as Raw[] | undefined ?? []).map((a) => bindExpr(ctx, a, es));
      if (elements.length === 0) return Exprs.literal([], { kind: 'array', element: { kind: 'text' } });
      const unified = unify(ctx, elements, 'ARRAY', n);
      // ARRAY[[1,2],[3,4]] is still integer[]: PostgreSQL has one array type for every dimension count.
      const first = unified[0]!.type;
      return { kind: 'array', elements: unified, type: first.kind === 'array' ? first : { kind: 'array', element: first } };
    }
    case 'A_Indirection': return bindIndirection(ctx, n, es);
    case 'FuncCall': return bindFuncCall(ctx, n, es);
    case 'SQLValueFunction': return bindSqlValueFunction(n);
    case 'SubLink': return bindSubLink(ctx, n, es);
    case 'CollateClause': return bindExpr(ctx, n.arg, es);
    case 'RowExpr':
      throw new FloeError(SqlState.featureNotSupported, 'row expressions are supported only in comparisons', { position: positionOf(n) });
    case 'SetToDefault':
      throw new FloeError(SqlState.featureNotSupported, 'DEFAULT is not allowed in this context', { position: positionOf(n) });
    case 'GroupingFunc': return bindGroupingFunc(ctx, n, es);
    default:
      throw new FloeError(SqlState.featureNotSupported, `unsupported expression: ${tag}`, { position: positionOf(node) });
  }
}

function boolOpName(op: string): string {
  return op === 'AND_EXPR' ? 'AND' : op === 'OR_EXPR' ? 'OR' : 'NOT';
}
