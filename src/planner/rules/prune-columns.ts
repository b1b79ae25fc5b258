import type { Expr } from '../../exec/index.js';
import { columnsUsed, mapAggregateCall, mapSortKey, mapWindowCall, remapColumns } from '../expr-utils.js';
import { assertNever, type LogicalPlan } from '../logical/logical-plan.js';
import type { OptimizerRule, RuleResult } from '../optimizer-rule.js';
import { exprEquals } from './expr-equals.js';

/** old column index → new index (absent = dropped). */
type ColumnMap = Map<number, number>;

interface Pruned {
  readonly plan: LogicalPlan;
  readonly map: ColumnMap;
}

const range = (n: number): Set<number> => new Set(Array.from({ length: n }, (_v, i) => i));
const identity = (n: number): ColumnMap => new Map(Array.from({ length: n }, (_v, i) => [i, i] as [number, number]));

/** Adds the columns `e` reads to `need`; false when it may read any (correlated subquery). */
function need(e: Expr | undefined, into: Set<number>): boolean {
  if (e === undefined) return true;
  return columnsUsed(e, into) !== undefined;
}

function remap(e: Expr, map: ColumnMap): Expr {
  return remapColumns(e, (i) => {
    const j = map.get(i);
    if (j === undefined) throw new Error(`prune-columns dropped column ${i} that is still read`);
    return j;
  });
}

/**
 * Projection pushdown: every operator keeps only the input columns something
 * above it reads, so lake scans read (and decode) only those columns.
 */
function prune(p: LogicalPlan, required: Set<number>): Pruned {
  switch (p.kind) {
    case 'scan': {
      const keep = new Set(required);
      if (p.residual && !need(p.residual, keep)) return { plan: p, map: identity(p.columns.length) };
      // A scan must still produce rows when nothing is read (count(*)): keep its first column.
      if (keep.size === 0 && p.columns.length > 0) keep.add(0);
      const order = [...keep].sort((a, b) => a - b);
      if (order.length === p.columns.length) return { plan: p, map: identity(p.columns.length) };
      const map: ColumnMap = new Map(order.map((old, i) => [old, i]));
      return {
        plan: {
          ...p, projection: order.map((i) => p.projection[i]!), columns: order.map((i) => p.columns[i]!),
          ...(p.residual ? { residual: remap(p.residual, map) } : {}),
        },
        map,
      };
    }
    case 'virtualScan': {
      const keep = new Set(required);
      if (keep.size === 0 && p.columns.length > 0) keep.add(0);
      const order = [...keep].sort((a, b) => a - b);
      if (order.length === p.columns.length) return { plan: p, map: identity(p.columns.length) };
      const map: ColumnMap = new Map(order.map((old, i) => [old, i]));
      return { plan: { ...p, projection: order.map((i) => p.projection[i]!), columns: order.map((i) => p.columns[i]!) }, map };
    }
    // A WITH query read twice returns the columns every reader may need.
    case 'values': case 'cteScan': case 'recursiveUnion': case 'workTableScan':
      return { plan: p, map: identity(p.columns.length) };
    case 'filter': {
      const want = new Set(required);
      const input = need(p.predicate, want) ? prune(p.input, want) : prune(p.input, range(p.input.columns.length));
      return { plan: { ...p, input: input.plan, predicate: remap(p.predicate, input.map), columns: input.plan.columns }, map: input.map };
    }
    case 'project': {
      const order = [...required].sort((a, b) => a - b);
      const want = new Set<number>();
      const opaque = order.some((i) => !need(p.exprs[i], want));
      const input = prune(p.input, opaque ? range(p.input.columns.length) : want);
      const exprs = order.map((i) => remap(p.exprs[i]!, input.map));
      return {
        plan: { ...p, input: input.plan, exprs, columns: order.map((i) => p.columns[i]!) },
        map: new Map(order.map((old, i) => [old, i])),
      };
    }
    case 'aggregate': {
      const keys = p.groupBy.length;
      const keptAggs = p.aggregates.map((_a, i) => i).filter((i) => required.has(keys + i));
      const want = new Set<number>();
      let opaque = p.groupBy.some((k) => !need(k, want));
      for (const i of keptAggs) {
        const a = p.aggregates[i]!;
        for (const arg of a.args) if (!need(arg, want)) opaque = true;
        if (!need(a.filter, want)) opaque = true;
        for (const k of a.orderBy ?? []) if (!need(k.expr, want)) opaque = true;
      }
      const input = prune(p.input, opaque ? range(p.input.columns.length) : want);
      const f = (e: Expr): Expr => remap(e, input.map);
      const map: ColumnMap = new Map();
      for (let i = 0; i < keys; i++) map.set(i, i);
      keptAggs.forEach((old, j) => map.set(keys + old, keys + j));
      // With grouping sets, the grouping id follows the aggregates.
      const gid = p.groupingSets ? [p.columns[keys + p.aggregates.length]!] : [];
      if (p.groupingSets) map.set(keys + p.aggregates.length, keys + keptAggs.length);
      return {
        plan: {
          ...p, input: input.plan, groupBy: p.groupBy.map(f),
          aggregates: keptAggs.map((i) => mapAggregateCall(p.aggregates[i]!, f)),
          columns: [...p.columns.slice(0, keys), ...keptAggs.map((i) => p.columns[keys + i]!), ...gid],
        },
        map,
      };
    }
    case 'join': {
      const lw = p.left.columns.length;
      const rw = p.right.columns.length;
      const want = new Set(required);
      const all = !need(p.condition, want);
      const leftNeed = all ? range(lw) : new Set([...want].filter((i) => i < lw));
      const rightNeed = all ? range(rw) : new Set([...want].filter((i) => i >= lw && i < lw + rw).map((i) => i - lw));
      const left = prune(p.left, leftNeed);
      const right = prune(p.right, rightNeed);
      const newLw = left.plan.columns.length;
      const map: ColumnMap = new Map(left.map);
      for (const [o, n] of right.map) map.set(o + lw, n + newLw);
      const semi = p.joinType === 'semi' || p.joinType === 'anti' || p.joinType === 'mark';
      const columns = semi
        ? [...left.plan.columns, ...(p.joinType === 'mark' ? [p.columns[p.columns.length - 1]!] : [])]
        : [...left.plan.columns, ...right.plan.columns];
      if (p.joinType === 'mark') map.set(lw, newLw);
      const condition = p.condition ? remap(p.condition, map) : undefined;
      return { plan: { ...p, left: left.plan, right: right.plan, ...(condition ? { condition } : {}), columns }, map: semi ? new Map([...map].filter(([o]) => o < lw || (p.joinType === 'mark' && o === lw))) : map };
    }
    case 'sort': {
      const want = new Set(required);
      const opaque = p.keys.some((k) => !need(k.expr, want));
      const input = prune(p.input, opaque ? range(p.input.columns.length) : want);
      return { plan: { ...p, input: input.plan, keys: p.keys.map((k) => mapSortKey(k, (e) => remap(e, input.map))), columns: input.plan.columns }, map: input.map };
    }
    case 'limit': {
      const input = prune(p.input, required);
      return { plan: { ...p, input: input.plan, columns: input.plan.columns }, map: input.map };
    }
    case 'window': {
      const width = p.input.columns.length;
      const want = new Set([...required].filter((i) => i < width));
      let opaque = false;
      for (const w of p.functions) {
        for (const e of [...w.args, ...w.partitionBy, ...w.orderBy.map((k) => k.expr), ...(w.filter ? [w.filter] : [])]) {
          if (!need(e, want)) opaque = true;
        }
      }
      const input = prune(p.input, opaque ? range(width) : want);
      const newWidth = input.plan.columns.length;
      const map: ColumnMap = new Map(input.map);
      p.functions.forEach((_f, j) => map.set(width + j, newWidth + j));
      return {
        plan: {
          ...p, input: input.plan, functions: p.functions.map((w) => mapWindowCall(w, (e) => remap(e, input.map))),
          columns: [...input.plan.columns, ...p.columns.slice(width)],
        },
        map,
      };
    }
    case 'setOp': {
      const left = prune(p.left, range(p.left.columns.length));
      const right = prune(p.right, range(p.right.columns.length));
      return { plan: { ...p, left: left.plan, right: right.plan }, map: identity(p.columns.length) };
    }
    case 'distinct': {
      const input = prune(p.input, range(p.input.columns.length));
      return { plan: { ...p, input: input.plan }, map: identity(p.columns.length) };
    }
    case 'projectSet': {
      // Keeps every output (a set call decides the row count); inputs: what the expressions read.
      const want = new Set<number>();
      let opaque = false;
      for (const e of p.exprs) {
        for (const x of e.kind === 'setCall' ? e.args : [e]) if (!need(x, want)) opaque = true;
      }
      const input = prune(p.input, opaque ? range(p.input.columns.length) : want);
      const f = (e: Expr): Expr => remap(e, input.map);
      return {
        plan: { ...p, input: input.plan, exprs: p.exprs.map((e) => (e.kind === 'setCall' ? { ...e, args: e.args.map(f) } : f(e))) },
        map: identity(p.columns.length),
      };
    }
    case 'insert': case 'update': case 'delete': case 'merge': case 'lateralJoin': {
      const input = prune(p.input, range(p.input.columns.length));
      return { plan: { ...p, input: input.plan }, map: identity(p.columns.length) };
    }
    default:
      return assertNever(p);
  }
}

function apply(plan: LogicalPlan): RuleResult {
  const pruned = prune(plan, range(plan.columns.length));
  return { plan: pruned.plan, changed: !exprEquals(pruned.plan, plan) };
}

export const pruneColumns: OptimizerRule = { name: 'prune-columns', apply };
