import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { enumTypeOf, formatType, type SqlType } from '../../common/sql-type.js';
import {
  type AggregateCall, commonSupertype, type Expr, Exprs, formatDecimal, parseDecimal, type ResolvedFunction,
  resolveFunction, resolveOperator, type SortKey, type WindowCall, type WindowFrame, type WindowFrameBound,
} from '../../exec/index.js';
import { LogicalAggregate, logicalSubquery, simplifyExpr } from '../../planner/index.js';
import { locationOf, positionOf, str, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindSubquery } from './bind-query.js';
import { coerceTo, notePosition, resolveUnknown } from './coerce.js';
import { resolveTypeName } from './resolve-type-name.js';
import { bindEnumComparison } from './enum-comparison.js';
import { userTypeLookup } from './user-type-lookup.js';
import type { Scope, ScopeColumn } from './scope.js';
import { resolveRegclass } from './resolve-relation.js';
import { regnamespaceLiteral } from './regnamespace-literal.js';
import { ordinalSubscript, rawSubscript } from './raw-subscript.js';
import { isAggregateName } from './aggregate-names.js';
import { arrayComparison } from './array-comparison.js';
import { checkOrderedSetCall } from './ordered-set-call.js';
import { rowInAsExists } from './row-in-subquery.js';
import { aggregateOverRows, bindRowArgument, bindRowNullTest, bindRowToJson, rowText, wholeRowOf } from './row-value.js';

const boolType: SqlType = { kind: 'bool' };

/** GROUP BY state shared by the select list, HAVING and ORDER BY of a grouped query. */
export interface GroupingContext {
  /** Group keys bound against the FROM scope. */
  readonly keys: readonly Expr[];
  /** GROUPING SETS / ROLLUP / CUBE: each set lists indexes into keys. */
  readonly sets?: readonly (readonly number[])[];
  readonly keyStrings: readonly string[];
  readonly aggregates: AggregateCall[];
  readonly aggregateStrings: string[];
}

/** Window calls collected from the select list and ORDER BY; they become columns after `base`. */
export interface WindowCollector {
  /** WINDOW w AS (…) definitions of the query. */
  readonly named?: ReadonlyMap<string, Raw>;
  readonly base: number;
  readonly calls: WindowCall[];
  readonly callStrings: string[];
}

/** Where an expression is being bound. */
export interface ExprScope {
  /** The FROM clause's columns (a grouped query's keys/aggregates are reached through `grouping`). */
  readonly scope: Scope;
  /** Clause name for "not allowed in …" errors: WHERE, JOIN conditions, VALUES, … */
  readonly clause: string;
  readonly grouping?: GroupingContext;
  readonly windows?: WindowCollector;
}

export function exprKey(e: unknown): string {
  return JSON.stringify(e, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

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
        plain = bindPlain(ctx, node, { scope: es.scope, clause: es.clause });
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

function isAggregateCall(fn: Raw): boolean {
  if (fn.over) return false;
  if (fn.agg_star || fn.agg_distinct || fn.agg_filter || fn.agg_order) return true;
  const names = strList(fn.funcname);
  return isAggregateName(names[names.length - 1]!.toLowerCase());
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

// ---------------------------------------------------------------- columns

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

function bindColumnRef(ctx: BindContext, n: Raw, es: ExprScope): Expr {
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
function aggregateColumn(g: GroupingContext, call: AggregateCall, name: string): Expr {
  return Exprs.column(g.keys.length + internCall(g.aggregates, g.aggregateStrings, call), call.type, name);
}

/** The index of `call` in `calls` (with `keys`, their exprKeys), appended unless an equal call is there. */
function internCall<T>(calls: T[], keys: string[], call: T): number {
  const key = exprKey(call);
  const i = keys.indexOf(key);
  if (i >= 0) return i;
  calls.push(call);
  keys.push(key);
  return calls.length - 1;
}

// ---------------------------------------------------------------- constants and casts

export function bindConst(n: Raw): Expr {
  const e = bindConstValue(n);
  notePosition(e, positionOf(n));
  return e;
}

function bindConstValue(n: Raw): Expr {
  if (n.isnull) return Exprs.literal(null, { kind: 'unknown' });
  if (n.ival !== undefined) return Exprs.literal(Number(n.ival.ival ?? 0), { kind: 'int4' });
  if (n.fval !== undefined) {
    const text = String(n.fval.fval);
    if (/^[+-]?\d+$/.test(text)) {
      const big = BigInt(text);
      // As PostgreSQL's make_const: an integer too big for the lexer's int4 that still fits int4 (-2147483648) is int4.
      if (big >= -(2n ** 31n) && big < 2n ** 31n) return Exprs.literal(Number(big), { kind: 'int4' });
      if (big >= -(2n ** 63n) && big < 2n ** 63n) return Exprs.literal(big, { kind: 'int8' });
    }
    // The canonical text (1e3 → 1000), refused past numeric's limits (22003) as PostgreSQL's numeric_in does.
    try {
      return Exprs.literal(formatDecimal(parseDecimal(text)), { kind: 'numeric' });
    } catch (e) {
      throw e instanceof FloeError && positionOf(n) !== undefined ? e.withPosition(positionOf(n)!) : e;
    }
  }
  if (n.boolval !== undefined) return Exprs.literal(Boolean(n.boolval.boolval), boolType);
  if (n.sval !== undefined) return Exprs.literal(String(n.sval.sval ?? ''), { kind: 'unknown' });
  if (n.bsval !== undefined) throw new FloeError(SqlState.featureNotSupported, 'bit string constants are not supported', { position: positionOf(n) });
  return Exprs.literal(null, { kind: 'unknown' });
}

// PostgreSQL's INTERVAL_MASK bits for the field qualifier of `interval '90' day`, smallest unit first.
const intervalUnits: [number, string][] = [[1 << 12, 'second'], [1 << 11, 'minute'], [1 << 10, 'hour'], [1 << 3, 'day'], [1 << 1, 'month'], [1 << 2, 'year']];

/** `interval '90' day`: a bare number takes the unit of the qualifier's last field, as in PostgreSQL. */
function qualifiedIntervalText(text: string, typeName: Raw): string {
  const mask = Number(typeName.typmods?.[0]?.A_Const?.ival?.ival ?? -1);
  if (mask <= 0 || !/^\s*[+-]?\d+(\.\d+)?\s*$/.test(text)) return text;
  const unit = intervalUnits.find(([bit]) => (mask & bit) !== 0);
  return unit ? `${text.trim()} ${unit[1]}` : text;
}

function bindTypeCast(ctx: BindContext, n: Raw, es: ExprScope): Expr {
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

// ---------------------------------------------------------------- operators

function operatorName(nameList: Raw[]): string {
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

function coerceArgs(ctx: BindContext, args: readonly Expr[], resolved: ResolvedFunction): Expr[] {
  return args.map((a, i) => coerceTo(ctx, a, resolved.argTypes[i] ?? a.type, 'implicit'));
}

/** The `=` (or other) function id for two operands, after coercing both to a common type. */
function comparison(ctx: BindContext, op: string, left: Expr, right: Expr, location: Raw): { fn: string; left: Expr; right: Expr } {
  const call = bindOperator(ctx, op, left, right, location);
  if (call.kind !== 'call') throw new Error('operator did not bind to a call');
  return { fn: call.fn, left: call.args[0]!, right: call.args[1]! };
}

function bindAExpr(ctx: BindContext, n: Raw, es: ExprScope): Expr {
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

/** PostgreSQL's select_common_type plus coercion of every expression to it. */
export function unify(ctx: BindContext, exprs: readonly Expr[], what: string, n: Raw): Expr[] {
  const known = exprs.filter((e) => e.type.kind !== 'unknown').map((e) => e.type);
  let target: SqlType | undefined;
  if (known.length === 0) target = { kind: 'text' };
  else target = commonSupertype(known);
  if (!target) {
    const a = known[0]!;
    const b = known.find((t) => commonSupertype([a, t]) === undefined) ?? known[1]!;
    throw new FloeError(SqlState.datatypeMismatch, `${what} types ${formatType(a)} and ${formatType(b)} cannot be matched`, { position: positionOf(n) });
  }
  return exprs.map((e) => coerceTo(ctx, e, target, 'implicit'));
}

// ---------------------------------------------------------------- CASE, subscripts

function bindCase(ctx: BindContext, n: Raw, es: ExprScope): Expr {
  const whens = (n.args as Raw[]).map((w) => unwrap(w)[1]);
  const results = unify(ctx, [
    ...whens.map((w: Raw) => bindExpr(ctx, w.result, es)),
    ...(n.defresult ? [bindExpr(ctx, n.defresult, es)] : []),
  ], 'CASE', n);
  const type = results[0]!.type;
  if (n.arg) {
    const values = unify(ctx, [bindExpr(ctx, n.arg, es), ...whens.map((w: Raw) => bindExpr(ctx, w.expr, es))], 'CASE/WHEN', n);
    const c = comparison(ctx, '=', values[0]!, values[1]!, n);
    return {
      kind: 'case', operand: values[0]!, eqFn: c.fn,
      whens: whens.map((_w: Raw, i: number) => ({ when: values[i + 1]!, then: results[i]! })),
      ...(n.defresult ? { else: results[whens.length]! } : {}), type,
    };
  }
  return {
    kind: 'case',
    whens: whens.map((w: Raw, i: number) => ({ when: bindCondition(ctx, w.expr, { ...es, clause: 'CASE/WHEN' }), then: results[i]! })),
    ...(n.defresult ? { else: results[whens.length]! } : {}), type,
  };
}

function bindIndirection(ctx: BindContext, n: Raw, es: ExprScope): Expr {
  // (composite).field over a hidden `composite.field` column (see bind-pg-expandarray.ts).
  const [atag, a] = unwrap(n.arg);
  const first = (n.indirection as Raw[])[0];
  if (atag === 'ColumnRef' && first?.String && !(a.fields as Raw[]).some((f: Raw) => f.A_Star)) {
    const names = strList(a.fields);
    const fieldNames = [...names.slice(0, -1), `${names[names.length - 1]}.${str(first)}`];
    const ref = { ColumnRef: { fields: fieldNames.map((sval) => ({ String: { sval } })), location: a.location } };
    const rest = (n.indirection as Raw[]).slice(1);
    return rest.length === 0 ? bindExpr(ctx, ref, es) : bindIndirection(ctx, { arg: ref, indirection: rest }, es);
  }
  let e = bindExpr(ctx, n.arg, es);
  const indirection = n.indirection as Raw[];
  for (let k = 0; k < indirection.length; k++) {
    const ind = indirection[k]!;
    const [tag, i] = unwrap(ind);
    if (tag !== 'A_Indices' || i.is_slice) {
      throw new FloeError(SqlState.featureNotSupported, tag === 'String' ? `field selection .${str(ind)} is not supported` : 'array slices are not supported', { position: positionOf(n.arg) });
    }
    const index = coerceTo(ctx, bindExpr(ctx, i.uidx, es), { kind: 'int4' }, 'implicit', positionOf(i.uidx));
    const raw = i[ordinalSubscript] === true ? undefined : rawSubscript(e, index);
    if (raw !== undefined) {
      e = raw;
      continue;
    }
    if (e.type.kind !== 'array') {
      throw new FloeError(SqlState.datatypeMismatch, `cannot subscript type ${formatType(e.type)} because it does not support subscripting`, { position: positionOf(n.arg) });
    }
    // a[i][j]: the subscripts before the last pick a sub-array of a multi-dimensional array.
    const more = k + 1 < indirection.length && unwrap(indirection[k + 1]!)[0] === 'A_Indices';
    e = { kind: 'subscript', arg: e, index, type: more ? e.type : e.type.element };
  }
  return e;
}

// ---------------------------------------------------------------- functions

const sqlValueFunctions: Record<string, string[]> = {
  SVFOP_CURRENT_DATE: ['current_date'],
  SVFOP_CURRENT_TIME: ['current_time'],
  SVFOP_CURRENT_TIME_N: ['current_time'],
  SVFOP_CURRENT_TIMESTAMP: ['current_timestamp', 'now'],
  SVFOP_CURRENT_TIMESTAMP_N: ['current_timestamp', 'now'],
  SVFOP_LOCALTIME: ['localtime'],
  SVFOP_LOCALTIME_N: ['localtime'],
  SVFOP_LOCALTIMESTAMP: ['localtimestamp'],
  SVFOP_LOCALTIMESTAMP_N: ['localtimestamp'],
  SVFOP_CURRENT_ROLE: ['current_role', 'current_user'],
  SVFOP_CURRENT_USER: ['current_user'],
  SVFOP_USER: ['current_user'],
  SVFOP_SESSION_USER: ['session_user'],
  SVFOP_CURRENT_CATALOG: ['current_catalog', 'current_database'],
  SVFOP_CURRENT_SCHEMA: ['current_schema'],
};

function bindSqlValueFunction(n: Raw): Expr {
  for (const name of sqlValueFunctions[n.op as string] ?? []) {
    const r = resolveFunction(name, []);
    if (r) return Exprs.call(r.id, [], r.returnType);
  }
  throw new FloeError(SqlState.undefinedFunction, `function ${(sqlValueFunctions[n.op as string] ?? ['?'])[0]}() does not exist`, { position: positionOf(n) });
}

function functionNotFound(name: string, args: readonly Expr[], n: Raw): FloeError {
  return new FloeError(SqlState.undefinedFunction, `function ${name}(${args.map((a) => formatType(a.type)).join(', ')}) does not exist`, {
    position: positionOf(n),
    hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
  });
}

function qualifiedFunctionName(n: Raw): string {
  const names = strList(n.funcname).map((s) => s.toLowerCase());
  const name = names[names.length - 1]!;
  const schema = names.length > 1 ? names[names.length - 2] : undefined;
  return schema === undefined || schema === 'pg_catalog' ? name : `${schema}.${name}`;
}

function bindFuncCall(ctx: BindContext, n: Raw, es: ExprScope): Expr {
  const name = qualifiedFunctionName(n);
  if (n.over) return bindWindowCall(ctx, n, es, name);
  if (isAggregateCall(n) || (n.args === undefined && n.agg_star)) {
    const resolved = bindAggregate(ctx, n, es, name);
    if (resolved) return resolved;
  }
  if (n.agg_filter || n.agg_distinct || n.agg_order) {
    throw new FloeError(SqlState.wrongObjectType, `${name} is not an aggregate function`, { position: positionOf(n) });
  }
  if (name === 'row_to_json') {
    const json = bindRowToJson(ctx, n, es);
    if (json) return json;
  }
  const args = (n.args as Raw[] | undefined ?? []).map((a) => {
    if (unwrap(a)[0] === 'NamedArgExpr') throw new FloeError(SqlState.featureNotSupported, 'named arguments are not supported', { position: positionOf(a) });
    return bindRowArgument(ctx, a, es, name) ?? bindExpr(ctx, a, es);
  });
  const resolved = resolveFunction(name, args.map((a) => a.type));
  if (!resolved) throw functionNotFound(name, args, n);
  if (resolved.kind !== 'scalar') {
    throw new FloeError(SqlState.wrongObjectType, `${resolved.kind} function ${name} must be called with OVER or in an aggregate position`, { position: positionOf(n) });
  }
  return Exprs.call(resolved.id, coerceArgs(ctx, args, resolved), resolved.returnType);
}

function bindAggregate(ctx: BindContext, n: Raw, es: ExprScope, name: string): Expr | undefined {
  const g = es.grouping;
  if (!g) {
    throw new FloeError(SqlState.groupingError, `aggregate functions are not allowed in ${es.clause}`, { position: positionOf(n) });
  }
  // Aggregate arguments see the FROM clause's rows, not the groups.
  const inner: ExprScope = { scope: es.scope, clause: 'aggregate function calls' };
  const rawArgs = n.agg_star ? [] : (n.args as Raw[] | undefined ?? []);
  // WITHIN GROUP (ORDER BY x): the sorted values become the last arguments (see builtin-ordered-set-aggregates.ts).
  const withinGroup = n.agg_within_group === true;
  checkOrderedSetCall(name, withinGroup, positionOf(n));
  const sortedBy = withinGroup ? (n.agg_order as Raw[]).map((s) => bindSortKey(ctx, unwrap(s)[1], inner)) : [];
  let overRows = false;
  const args = [...rawArgs.map((a) => {
    const row = bindRowArgument(ctx, a, inner, name);
    if (row) overRows = true;
    return row ?? bindAggregateArg(ctx, a, inner);
  }), ...sortedBy.map((k) => k.expr)];
  const resolved = resolveFunction(overRows ? aggregateOverRows(name) : name, args.map((a) => a.type));
  if (!resolved) throw functionNotFound(name, args, n);
  if (resolved.kind !== 'aggregate') return undefined;
  const filter = n.agg_filter ? bindCondition(ctx, n.agg_filter, { ...inner, clause: 'FILTER' }) : undefined;
  const coerced = coerceArgs(ctx, args, resolved);
  const orderBy = withinGroup ? sortedBy.map((k, i) => ({ ...k, expr: coerced[rawArgs.length + i]! }))
    : n.agg_order ? (n.agg_order as Raw[]).map((s) => bindSortKey(ctx, unwrap(s)[1], inner)) : undefined;
  const call: AggregateCall = {
    fn: resolved.id, args: coerced, distinct: Boolean(n.agg_distinct),
    ...(filter ? { filter } : {}), ...(orderBy ? { orderBy } : {}), type: resolved.returnType,
  };
  return aggregateColumn(g, call, name);
}

function bindAggregateArg(ctx: BindContext, a: Raw, inner: ExprScope): Expr {
  const [tag, fn] = unwrap(a);
  if (tag === 'FuncCall' && !fn.over && isAggregateCall(fn)) {
    throw new FloeError(SqlState.groupingError, 'aggregate function calls cannot be nested', { position: positionOf(a) });
  }
  return bindExpr(ctx, a, inner);
}

export function bindSortKey(ctx: BindContext, s: Raw, es: ExprScope): SortKey {
  const expr = resolveUnknown(ctx, bindExpr(ctx, s.node, es));
  const descending = s.sortby_dir === 'SORTBY_DESC';
  const nullsFirst = s.sortby_nulls === 'SORTBY_NULLS_FIRST' ? true : s.sortby_nulls === 'SORTBY_NULLS_LAST' ? false : descending;
  return { expr, descending, nullsFirst };
}

function bindWindowCall(ctx: BindContext, n: Raw, es: ExprScope, name: string): Expr {
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

/** The aggregate's grouping-id column is numbered from here until the aggregate's width is known. */
export const groupingIdPlaceholder = 2_000_000;

/**
 * GROUPING(a, b, …): bit i (from the left) is set when argument i is not grouped in the row's
 * grouping set. EXEC's aggregate appends the grouping id over all keys (last key = bit 0).
 */
function bindGroupingFunc(ctx: BindContext, n: Raw, es: ExprScope): Expr {
  const g = es.grouping;
  if (!g) throw new FloeError(SqlState.groupingError, `grouping operations are not allowed in ${es.clause}`, { position: positionOf(n) });
  const args = (n.args as Raw[]).map((a) => {
    const e = bindPlain(ctx, a, { scope: es.scope, clause: es.clause });
    const k = g.keyStrings.indexOf(exprKey(e));
    if (k < 0) {
      throw new FloeError(SqlState.groupingError, 'arguments to GROUPING must be grouping expressions of the associated query level', { position: positionOf(a) });
    }
    return k;
  });
  const int4: SqlType = { kind: 'int4' };
  if (!g.sets) return Exprs.literal(0, int4);
  const gid = Exprs.column(groupingIdPlaceholder, int4, 'grouping');
  const and = resolveOperator('&', int4, int4);
  const eq = resolveOperator('=', int4, int4);
  const plus = resolveOperator('+', int4, int4);
  if (!and || !eq || !plus) throw new FloeError(SqlState.undefinedFunction, 'operator does not exist: integer & integer');
  const parts = args.map((k, j): Expr => {
    const mask = Exprs.literal(2 ** (g.keys.length - 1 - k), int4);
    const notGrouped = Exprs.not(Exprs.call(eq.id, [Exprs.call(and.id, [gid, mask], int4), Exprs.literal(0, int4)], boolType));
    return { kind: 'case', whens: [{ when: notGrouped, then: Exprs.literal(2 ** (args.length - 1 - j), int4) }], else: Exprs.literal(0, int4), type: int4 };
  });
  return parts.reduce((acc, p) => Exprs.call(plus.id, [acc, p], int4));
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

// ---------------------------------------------------------------- subqueries

/**
 * In a grouped query a subquery runs over the aggregate's rows, so its outer
 * references may only reach group keys, at the keys' positions.
 */
function groupedScope(scope: Scope, g: GroupingContext): Scope {
  const columns: ScopeColumn[] = [];
  g.keys.forEach((k, i) => {
    if (k.kind !== 'column') return;
    const c = scope.columns.find((x) => x.index === k.index);
    if (c) columns.push({ ...c, index: i });
  });
  return { ...scope, columns };
}

function bindSubLink(ctx: BindContext, n: Raw, es: ExprScope): Expr {
  const rowIn = rowInAsExists(n);
  if (rowIn) {
    const exists = bindSubLink(ctx, rowIn.sublink, es);
    return rowIn.negated ? Exprs.not(exists) : exists;
  }
  const type = n.subLinkType as string;
  const correlation = { correlated: false };
  const sub = bindSubquery(ctx, n.subselect, es.grouping ? groupedScope(es.scope, es.grouping) : es.scope, correlation);
  const correlated = correlation.correlated;
  switch (type) {
    case 'EXISTS_SUBLINK':
      return { kind: 'exists', plan: logicalSubquery(sub.plan), correlated, negated: false, type: boolType };
    case 'EXPR_SUBLINK': {
      if (sub.columns.length !== 1) throw new FloeError(SqlState.syntaxError, 'subquery must return only one column', { position: positionOf(n) });
      return { kind: 'scalarSubquery', plan: logicalSubquery(sub.plan), correlated, type: sub.columns[0]!.type };
    }
    case 'ARRAY_SUBLINK': {
      if (sub.columns.length !== 1) throw new FloeError(SqlState.syntaxError, 'subquery must return only one column', { position: positionOf(n) });
      const elem = sub.columns[0]!.type;
      const agg = resolveFunction('array_agg', [elem]);
      if (!agg) throw functionNotFound('array_agg', [Exprs.column(0, elem)], n);
      const arrayType: SqlType = { kind: 'array', element: elem };
      const plan = LogicalAggregate.create({
        input: sub.plan, groupBy: [],
        aggregates: [{ fn: agg.id, args: [Exprs.column(0, elem)], distinct: false, type: arrayType }],
        columns: [{ name: 'array', type: arrayType }],
      });
      const scalar: Expr = { kind: 'scalarSubquery', plan: logicalSubquery(plan), correlated, type: arrayType };
      return { kind: 'coalesce', args: [scalar, Exprs.literal([], arrayType)], type: arrayType };
    }
    case 'ANY_SUBLINK': case 'ALL_SUBLINK': {
      const op = n.operName ? operatorName(n.operName) : '=';
      const isIn = (type === 'ANY_SUBLINK' && op === '=') || (type === 'ALL_SUBLINK' && op === '<>');
      if (!isIn) throw new FloeError(SqlState.featureNotSupported, `${op} ${type === 'ANY_SUBLINK' ? 'ANY' : 'ALL'} (subquery) is not supported`, { position: positionOf(n) });
      if (sub.columns.length !== 1) throw new FloeError(SqlState.syntaxError, 'subquery has too many columns', { position: positionOf(n) });
      const left = bindExpr(ctx, n.testexpr, es);
      const probe = Exprs.column(0, sub.columns[0]!.type);
      const c = comparison(ctx, '=', left, probe, n);
      let plan = sub.plan;
      if (c.right !== probe) {
        // The subquery's column needs a cast to the comparison type: project it.
        plan = { kind: 'project', input: plan, exprs: [c.right], columns: [{ name: sub.columns[0]!.name, type: c.right.type }] };
      }
      return { kind: 'inSubquery', arg: c.left, plan: logicalSubquery(plan), eqFn: c.fn, correlated, negated: type === 'ALL_SUBLINK', type: boolType };
    }
    default:
      throw new FloeError(SqlState.featureNotSupported, `${type} subqueries are not supported`, { position: positionOf(n) });
  }
}

export { locationOf };
