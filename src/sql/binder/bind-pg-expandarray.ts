import { ordinalSubscript } from './raw-subscript.js';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { Exprs, resolveFunction, resolveOperator } from '../../exec/index.js';
import { LogicalFilter, LogicalJoin, type LogicalPlan, LogicalValues } from '../../planner/index.js';
import { positionOf, str, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindExpr } from './bind-expr.js';
import { exprKey } from './expr-scope.js';
import type { Scope } from './scope.js';

/*
 * information_schema._pg_expandarray(arr) in a select list, as pgjdbc's
 * getPrimaryKeys/getIndexInfo use it: a set-returning function yielding
 * (x = arr[n], n) for each element. EXEC has no set-returning operator, so the
 * rows come from a join with n = 1..32 (PostgreSQL's INDEX_MAX_KEYS bounds the
 * int2vector arrays these queries expand) filtered by n <= cardinality(arr).
 * The composite result is exposed through hidden `name.x` / `name.n` columns,
 * which `(name).x` field selection reads.
 */
const maxElements = 32;
export const srfRelation = '__srf';
/** Marks a rewritten select-list item that must not appear in the output. */
export const hiddenTarget = Symbol.for('floe.hiddenTarget');

function isExpandArray(node: Raw): Raw | undefined {
  const [tag, n] = unwrap(node);
  if (tag !== 'FuncCall') return undefined;
  const names = strList(n.funcname);
  if (names[names.length - 1] !== '_pg_expandarray') return undefined;
  if (names.length > 1 && names[names.length - 2] !== 'information_schema') return undefined;
  if ((n.args?.length ?? 0) !== 1) return undefined;
  return n;
}

const srfColumn = (location: number): Raw => ({ ColumnRef: { fields: [{ String: { sval: srfRelation } }, { String: { sval: 'n' } }], location } });
const element = (arg: Raw, location: number): Raw => ({
  // n counts the elements from 1 whatever the array's lower bound (an int2vector's is 0).
  A_Indirection: { arg, indirection: [{ A_Indices: { uidx: srfColumn(location), [ordinalSubscript]: true } }] },
});

export interface ExpandedTargets {
  readonly plan: LogicalPlan;
  readonly scope: Scope;
  readonly targets: readonly Raw[];
}

/** Rewrites _pg_expandarray calls in the select list; returns undefined when there are none. */
export function expandArrayTargets(ctx: BindContext, targets: readonly Raw[], plan: LogicalPlan, scope: Scope): ExpandedTargets | undefined {
  const args: Raw[] = [];
  const rewrite = (node: Raw): Raw => {
    const [tag, n] = unwrap(node);
    if (tag === 'A_Indirection') {
      const call = isExpandArray(n.arg);
      const field = n.indirection?.length === 1 ? str(n.indirection[0]) : '';
      if (call && (field === 'x' || field === 'n')) {
        args.push(call.args[0]);
        return field === 'n' ? srfColumn(call.location) : element(call.args[0], call.location);
      }
    }
    return node;
  };
  const out: Raw[] = [];
  for (const t of targets) {
    const rt = unwrap(t)[1];
    const call = isExpandArray(rt.val);
    if (call) {
      args.push(call.args[0]);
      const name = rt.name ?? '_pg_expandarray';
      out.push({ ResTarget: { ...rt, name, val: element(call.args[0], call.location) } });
      out.push({ ResTarget: { name: `${name}.x`, val: element(call.args[0], call.location), location: rt.location, [hiddenTarget]: true } });
      out.push({ ResTarget: { name: `${name}.n`, val: srfColumn(call.location), location: rt.location, [hiddenTarget]: true } });
      continue;
    }
    out.push({ ResTarget: { ...rt, val: rewrite(rt.val) } });
  }
  if (args.length === 0) return undefined;
  const bound = args.map((a) => bindExpr(ctx, a, { scope, clause: 'SELECT' }));
  if (new Set(bound.map(exprKey)).size > 1) {
    throw new FloeError(SqlState.featureNotSupported, '_pg_expandarray over different arrays in one select list is not supported', { position: positionOf(args[1]) });
  }
  const arr = bound[0]!;
  const cardinality = resolveFunction('cardinality', [arr.type]);
  const le = resolveFunctionOrThrow('<=', arr);
  if (!cardinality || arr.type.kind !== 'array') {
    throw new FloeError(SqlState.undefinedFunction, 'function information_schema._pg_expandarray needs an array argument', { position: positionOf(args[0]) });
  }
  const int4 = { kind: 'int4' } as const;
  const numbers = LogicalValues.create({
    rows: Array.from({ length: maxElements }, (_v, i) => [Exprs.literal(i + 1, int4)]), columns: [{ name: 'n', type: int4 }],
  });
  const width = plan.columns.length;
  const joined = LogicalJoin.create({ joinType: 'inner', left: plan, right: numbers, columns: [...plan.columns, { name: 'n', type: int4 }] });
  const predicate = Exprs.call(le, [Exprs.column(width, int4, 'n'), Exprs.call(cardinality.id, [arr], cardinality.returnType)], { kind: 'bool' });
  const filtered = LogicalFilter.create({ input: joined, predicate, columns: joined.columns });
  const srfScope: Scope = {
    ...scope,
    columns: [...scope.columns, { name: 'n', relation: srfRelation, index: width, type: int4, tableOid: 0, columnNumber: 0, hidden: true }],
  };
  return { plan: filtered, scope: srfScope, targets: out };
}

function resolveFunctionOrThrow(op: string, at: unknown): string {
  void at;
  const r = resolveOperator(op, { kind: 'int4' }, { kind: 'int4' });
  if (!r) throw new FloeError(SqlState.undefinedFunction, `operator does not exist: integer ${op} integer`);
  return r.id;
}
