import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import { type Expr, Exprs, resolveFunction, RowValueFunctions } from '../../exec/index.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { lookupColumn } from './bind-column-ref.js';
import { bindExpr } from './bind-expr.js';
import type { ExprScope } from './expr-scope.js';
import { resolveUnknown } from './coerce.js';
import type { Scope, ScopeColumn } from './scope.js';

/*
 * Row values: a range variable named as a whole row (`p`, `p.*`) or a ROW(…)
 * constructor. Floe has no composite type, so a row never travels as one value:
 * it binds to its fields, and the place that uses it decides its form — JSON
 * for the JSON functions (row-value-functions.ts), record text (`(1,joe)`)
 * anywhere else, one test per field for IS [NOT] NULL.
 */

/** A row value's fields. */
export interface RowValue {
  readonly names: readonly string[];
  readonly values: readonly Expr[];
  /**
   * A range variable's row is NULL when an outer join null-extends it; Floe tells
   * that apart only as "every field NULL". A ROW(…) constructor is never NULL.
   */
  readonly nullWhenAllNull: boolean;
}

const boolType: SqlType = { kind: 'bool' };
const textType: SqlType = { kind: 'text' };

/** Functions that take a row as its JSON object (PostgreSQL's composite_to_json), jsonb ones as jsonb. */
const jsonTakers = new Set(['to_json', 'json_agg', 'json_build_object', 'json_build_array', 'array_to_json']);
const jsonbTakers = new Set(['to_jsonb', 'jsonb_agg', 'jsonb_build_object', 'jsonb_build_array']);

/** The columns a range variable (`p`, `schema.p`) exposes as its row, nearest query level first; undefined when none is named so. */
function relationColumns(scope: Scope, qualifier: readonly string[]): ScopeColumn[] | undefined {
  const relation = qualifier[qualifier.length - 1];
  const schema = qualifier.length >= 2 ? qualifier[qualifier.length - 2] : undefined;
  for (let s: Scope | undefined = scope; s; s = s.parent) {
    const named = s.columns.filter((c) => c.relation === relation && (schema === undefined || c.schema === schema));
    // A JOIN USING column hidden on its right side still belongs to the row; helper columns (row ids, composite fields) do not.
    if (named.length > 0) return named.filter((c) => (!c.hidden || c.columnNumber > 0) && !c.name.includes('.'));
  }
  return undefined;
}

/** The whole row of the range variable `qualifier` names, its fields bound as qualified column references. */
export function wholeRowOf(ctx: BindContext, qualifier: readonly string[], location: number | undefined, es: ExprScope): RowValue | undefined {
  const columns = relationColumns(es.scope, qualifier);
  if (columns === undefined) return undefined;
  const values = columns.map((c) => bindExpr(ctx, {
    ColumnRef: { fields: [...qualifier, c.name].map((sval) => ({ String: { sval } })), ...(location === undefined ? {} : { location }) },
  }, es));
  return { names: columns.map((c) => c.name), values, nullWhenAllNull: true };
}

/** `p` where no column is named p, `p.*`, or ROW(…) / (a, b): its fields; undefined for any other expression. */
export function rowValueOf(ctx: BindContext, node: Raw, es: ExprScope): RowValue | undefined {
  const [tag, n] = unwrap(node);
  if (tag === 'RowExpr') {
    const args = (n.args as Raw[] | undefined) ?? [];
    return { names: args.map((_a, i) => `f${i + 1}`), values: args.map((a) => resolveUnknown(ctx, bindExpr(ctx, a, es))), nullWhenAllNull: false };
  }
  if (tag !== 'ColumnRef') return undefined;
  const fields = n.fields as Raw[];
  if (fields.length >= 2 && fields[fields.length - 1]!.A_Star !== undefined) {
    const qualifier = strList(fields.slice(0, -1));
    const row = wholeRowOf(ctx, qualifier, n.location, es);
    if (row === undefined) throw new FloeError(SqlState.undefinedTable, `missing FROM-clause entry for table "${qualifier[qualifier.length - 1]}"`, { position: positionOf(n) });
    return row;
  }
  if (fields.length !== 1 || fields[0]!.A_Star !== undefined) return undefined;
  const name = strList(fields);
  try {
    lookupColumn(es.scope, name, positionOf(n));
    return undefined;
  } catch (e) {
    if (!(e instanceof FloeError) || e.sqlstate !== SqlState.undefinedColumn) throw e;
  }
  return wholeRowOf(ctx, name, n.location, es);
}

function rowCall(fn: string, row: RowValue): Expr {
  const args: Expr[] = [Exprs.literal(row.nullWhenAllNull, boolType)];
  row.names.forEach((name, i) => args.push(Exprs.literal(name, textType), row.values[i]!));
  const resolved = resolveFunction(fn, args.map((a) => a.type));
  if (!resolved) throw new FloeError(SqlState.internalError, `${fn} is not registered`);
  return Exprs.call(resolved.id, args, resolved.returnType);
}

/** The row as record text, `(1,joe)`: how a row shows where it is not JSON (`SELECT p`, `count(p.*)`). */
export function rowText(row: RowValue): Expr {
  return rowCall(RowValueFunctions.text, row);
}

/** A function's argument that is a row value, in the form that function takes it; undefined for any other argument. */
export function bindRowArgument(ctx: BindContext, node: Raw, es: ExprScope, functionName: string): Expr | undefined {
  const row = rowValueOf(ctx, node, es);
  if (row === undefined) return undefined;
  if (jsonTakers.has(functionName)) return rowCall(RowValueFunctions.json, row);
  if (jsonbTakers.has(functionName)) return rowCall(RowValueFunctions.jsonb, row);
  return rowText(row);
}

/** The aggregate that stands for `name` when its argument is a row (json_agg's separators differ for rows). */
export function aggregateOverRows(name: string): string {
  return name === 'json_agg' ? RowValueFunctions.jsonAgg : name;
}

/** `row_to_json(row [, pretty])`; undefined when the first argument is no row value (then no such function exists). */
export function bindRowToJson(ctx: BindContext, n: Raw, es: ExprScope): Expr | undefined {
  const args = (n.args as Raw[] | undefined) ?? [];
  if (args.length < 1 || args.length > 2) return undefined;
  const row = rowValueOf(ctx, args[0], es);
  if (row === undefined) return undefined;
  if (args.length === 1) return rowCall(RowValueFunctions.json, row);
  const pretty = bindExpr(ctx, args[1], es);
  const plain = rowCall(RowValueFunctions.json, row);
  if (pretty.kind === 'literal' && (pretty.value === false || pretty.value === 'f' || pretty.value === 'false')) return plain;
  if (pretty.kind === 'literal' && (pretty.value === true || pretty.value === 't' || pretty.value === 'true')) return rowCall(RowValueFunctions.prettyJson, row);
  throw new FloeError(SqlState.featureNotSupported, 'row_to_json\'s pretty argument must be a constant', { position: positionOf(args[1]) });
}

/** `row IS [NOT] NULL`: PostgreSQL tests each field (IS NULL: all NULL; IS NOT NULL: none NULL). */
export function bindRowNullTest(ctx: BindContext, arg: Raw, es: ExprScope, isNull: boolean): Expr | undefined {
  const row = rowValueOf(ctx, arg, es);
  if (row === undefined) return undefined;
  const tests = row.values.map((v) => (isNull ? Exprs.isNull(v) : Exprs.isNotNull(v)));
  if (tests.length === 0) return Exprs.literal(true, boolType);
  return tests.length === 1 ? tests[0]! : { kind: 'and', args: tests, type: boolType };
}
