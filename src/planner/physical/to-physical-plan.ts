import type { PhysicalPlan } from '../../exec/index.js';
import { conjunction } from '../expr-utils.js';
import { assertNever, type LogicalPlan } from '../logical/logical-plan.js';
import type { LogicalJoin } from '../logical/logical-join.js';
import { equiKeys } from '../rules/join-sides.js';
import { isPointRead } from './is-point-read.js';
import type { NestedPlans } from './nested-plans.js';

/**
 * Chooses operators for an optimized logical plan: joins with equality conditions
 * become hash joins, ORDER BY + LIMIT becomes top-N, and the remaining nodes map one
 * to one onto EXEC's IR. Each node meets the physical rules (`nested.decide`: build
 * sides, runtime filters, where aggregates run) once its inputs are decided. Nested
 * plans (lateral right sides, recursive terms, materialized WITH queries) are planned
 * through `nested`; subquery expressions are left for plan-statement.ts, which owns both.
 */
export function toPhysicalPlan(p: LogicalPlan, nested: NestedPlans): PhysicalPlan {
  return nested.decide(operatorFor(p, nested), p);
}

function operatorFor(p: LogicalPlan, nested: NestedPlans): PhysicalPlan {
  switch (p.kind) {
    case 'scan':
      return {
        kind: 'lakeScan',
        table: { id: p.table.id, namespace: p.table.namespace, name: p.table.name },
        ...(p.at ? { at: p.at } : {}),
        projection: p.projection, filters: p.filters,
        ...(p.residual ? { residual: p.residual } : {}),
        ...(p.limit !== undefined ? { limit: p.limit } : {}),
        columns: p.columns,
        ...projectedRanges(p.table.columnRanges, p.projection),
        ...(isPointRead(p) ? { pointRead: true } : {}),
        ...projectedPrimaryKey(p.table.primaryKey, p.projection),
        ...(p.table.mergeEngine === undefined ? {} : { mergeEngine: p.table.mergeEngine }),
      };
    case 'virtualScan':
      return { kind: 'virtualScan', schema: p.schema, name: p.name, projection: p.projection, columns: p.columns, ...(p.args === undefined ? {} : { args: p.args }) };
    case 'values':
      return { kind: 'values', rows: p.rows, columns: p.columns };
    case 'cteScan':
      return { kind: 'cteScan', cte: nested.materializedCte(p.cte), columns: p.columns };
    case 'filter':
      return { kind: 'filter', input: toPhysicalPlan(p.input, nested), predicate: p.predicate, columns: p.columns };
    case 'project':
      return { kind: 'project', input: toPhysicalPlan(p.input, nested), exprs: p.exprs, columns: p.columns };
    case 'aggregate':
      return {
        kind: 'hashAggregate', input: toPhysicalPlan(p.input, nested), groupBy: p.groupBy,
        ...(p.groupingSets ? { groupingSets: p.groupingSets } : {}), ...(p.dependentKeys ? { dependentKeys: p.dependentKeys } : {}),
        aggregates: p.aggregates, columns: p.columns,
      };
    case 'join':
      return physicalJoin(p, nested);
    case 'sort':
      return { kind: 'sort', input: toPhysicalPlan(p.input, nested), keys: p.keys, columns: p.columns };
    case 'limit':
      if (p.withTies) {
        if (p.input.kind !== 'sort') throw new Error('WITH TIES needs its sort directly below the limit');
        return {
          kind: 'limit', input: toPhysicalPlan(p.input, nested), ...(p.limit ? { limit: p.limit } : {}),
          ...(p.offset ? { offset: p.offset } : {}), withTies: p.input.keys, columns: p.columns,
        };
      }
      if (p.input.kind === 'sort' && p.limit) {
        return {
          kind: 'topN', input: toPhysicalPlan(p.input.input, nested), keys: p.input.keys, limit: p.limit,
          ...(p.offset ? { offset: p.offset } : {}), columns: p.columns,
        };
      }
      return {
        kind: 'limit', input: toPhysicalPlan(p.input, nested), ...(p.limit ? { limit: p.limit } : {}),
        ...(p.offset ? { offset: p.offset } : {}), columns: p.columns,
      };
    case 'window':
      return { kind: 'window', input: toPhysicalPlan(p.input, nested), functions: p.functions, columns: p.columns };
    case 'setOp':
      return { kind: 'setOp', op: p.op, all: p.all, left: toPhysicalPlan(p.left, nested), right: toPhysicalPlan(p.right, nested), columns: p.columns };
    case 'distinct':
      return { kind: 'distinct', input: toPhysicalPlan(p.input, nested), ...(p.on ? { on: p.on } : {}), columns: p.columns };
    case 'insert':
      return {
        kind: 'insert', table: p.table, ...(p.ref ? { ref: p.ref } : {}), input: toPhysicalPlan(p.input, nested),
        ...(p.onConflict ? { onConflict: p.onConflict } : {}), ...(p.returning ? { returning: p.returning } : {}),
        ...(p.checks ? { checks: p.checks } : {}), columns: p.columns,
      };
    case 'update':
      return {
        kind: 'update', table: p.table, ...(p.ref ? { ref: p.ref } : {}), input: toPhysicalPlan(p.input, nested), set: p.set,
        ...(p.returning ? { returning: p.returning } : {}), ...(p.returningExtra !== undefined ? { returningExtra: p.returningExtra } : {}), ...(p.checks ? { checks: p.checks } : {}), columns: p.columns,
      };
    case 'delete':
      return {
        kind: 'delete', table: p.table, ...(p.ref ? { ref: p.ref } : {}), input: toPhysicalPlan(p.input, nested),
        ...(p.returning ? { returning: p.returning } : {}), ...(p.returningExtra !== undefined ? { returningExtra: p.returningExtra } : {}), columns: p.columns,
      };
    case 'projectSet':
      return {
        kind: 'projectSet', input: toPhysicalPlan(p.input, nested), exprs: p.exprs, ...(p.ordinality ? { ordinality: true } : {}), columns: p.columns,
      };
    case 'merge':
      return {
        kind: 'merge', table: p.table, ...(p.ref ? { ref: p.ref } : {}), input: toPhysicalPlan(p.input, nested),
        sourceWidth: p.sourceWidth, sourcePresent: p.sourcePresent, targetPresent: p.targetPresent, actions: p.actions,
        ...(p.returning ? { returning: p.returning } : {}), ...(p.checks ? { checks: p.checks } : {}), columns: p.columns,
      };
    case 'lateralJoin':
      return {
        kind: 'lateralJoin', joinType: p.joinType, input: toPhysicalPlan(p.input, nested), right: nested.plan(p.right),
        ...(p.condition ? { condition: p.condition } : {}), columns: p.columns,
      };
    case 'recursiveUnion':
      return { kind: 'recursiveUnion', all: p.all, workTable: p.workTable, left: nested.plan(p.left), right: nested.plan(p.right), columns: p.columns };
    case 'workTableScan':
      return { kind: 'workTableScan', workTable: p.workTable, columns: p.columns };
    default:
      return assertNever(p);
  }
}

function physicalJoin(p: LogicalJoin, nested: NestedPlans): PhysicalPlan {
  const left = toPhysicalPlan(p.left, nested);
  const right = toPhysicalPlan(p.right, nested);
  const keys = equiKeys(p.condition, p.left.columns.length);
  if (keys.left.length > 0) {
    const residual = conjunction(keys.residual);
    return {
      kind: 'hashJoin', joinType: p.joinType, left, right, leftKeys: keys.left, rightKeys: keys.right,
      ...(residual ? { residual } : {}), columns: p.columns,
    };
  }
  return { kind: 'nestedLoopJoin', joinType: p.joinType, left, right, ...(p.condition ? { condition: p.condition } : {}), columns: p.columns };
}

/** The scan's column ranges for the columns it reads, when statistics gave any. */
function projectedRanges(
  ranges: Readonly<Record<string, readonly [number, number]>> | undefined, projection: readonly string[],
): { columnRanges?: Readonly<Record<string, readonly [number, number]>> } {
  if (ranges === undefined) return {};
  const picked: Record<string, readonly [number, number]> = {};
  let any = false;
  for (const c of projection) {
    const r = ranges[c];
    if (r !== undefined) { picked[c] = r; any = true; }
  }
  return any ? { columnRanges: picked } : {};
}

/** The scan's primary key as indexes into its projection (LakeScanPlan.primaryKey), when it reads every key column. */
function projectedPrimaryKey(primaryKey: readonly string[], projection: readonly string[]): { primaryKey?: readonly number[] } {
  if (primaryKey.length === 0) return {};
  const at = primaryKey.map((k) => projection.indexOf(k));
  return at.every((i) => i >= 0) ? { primaryKey: at } : {};
}
