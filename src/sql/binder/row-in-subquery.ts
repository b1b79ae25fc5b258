import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';

/** The derived table's name and column names: no SQL name can clash with them. */
const alias = '?row in?';
const columnName = (i: number): string => `?column ${i + 1}?`;

/**
 * `(a, b) IN (SELECT x, y …)` rewritten as `EXISTS (SELECT 1 FROM (SELECT x, y …)
 * AS r(c1, c2) WHERE r.c1 = a AND r.c2 = b)` (and `<> ALL`, NOT IN, as NOT EXISTS),
 * so WHERE's decorrelation turns it into a semi (anti) join like any EXISTS.
 * `notAround`: the sublink stands under a NOT (WHERE's `NOT IN`). Returns the EXISTS
 * sublink and whether it is negated, the NOT included; undefined when the
 * sublink's left side is not a row constructor. NOT IN tests `IS NOT FALSE`, so a
 * NULL comparison keeps the row out as PostgreSQL's NULL result does in WHERE
 * (in a select list the value shows false where PostgreSQL shows NULL).
 */
export function rowInAsExists(sublink: Raw, notAround = false): { sublink: Raw; negated: boolean } | undefined {
  const [tag, row] = unwrap(sublink.testexpr);
  if (tag !== 'RowExpr') return undefined;
  const op = sublink.operName ? strList(sublink.operName).pop() : '=';
  const all = sublink.subLinkType === 'ALL_SUBLINK';
  if (!((sublink.subLinkType === 'ANY_SUBLINK' && op === '=') || (all && op === '<>'))) {
    throw new FloeError(SqlState.featureNotSupported, `row ${op} ${all ? 'ALL' : 'ANY'} (subquery) is not supported`, { position: positionOf(sublink) });
  }
  const negated = all !== notAround;
  const args = (row.args as Raw[] | undefined) ?? [];
  const location = sublink.location ?? 0;
  const name = (s: string): Raw => ({ String: { sval: s } });
  const equalities = args.map((a, i) => ({
    A_Expr: { kind: 'AEXPR_OP', name: [name('=')], lexpr: a, rexpr: { ColumnRef: { fields: [name(alias), name(columnName(i))], location } }, location },
  }));
  const equal = equalities.length === 1 ? equalities[0] : { BoolExpr: { boolop: 'AND_EXPR', args: equalities, location } };
  // NOT IN is false where some row compares NULL too: NOT EXISTS a row whose comparison is not false.
  const whereClause = negated ? { BooleanTest: { arg: equal, booltesttype: 'IS_NOT_FALSE', location } } : equal;
  const derived = { RangeSubselect: { subquery: sublink.subselect, alias: { aliasname: alias, colnames: args.map((_a, i) => name(columnName(i))) } } };
  const select = {
    SelectStmt: {
      targetList: [{ ResTarget: { val: { A_Const: { ival: { ival: 1 }, location } }, location } }],
      fromClause: [derived], whereClause, limitOption: 'LIMIT_OPTION_DEFAULT', op: 'SETOP_NONE',
    },
  };
  return { sublink: { subLinkType: 'EXISTS_SUBLINK', subselect: select, location }, negated };
}
