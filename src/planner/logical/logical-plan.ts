import type { LogicalScan } from './logical-scan.js';
import type { LogicalVirtualScan } from './logical-virtual-scan.js';
import type { LogicalValues } from './logical-values.js';
import type { LogicalCteScan } from './logical-cte-scan.js';
import type { LogicalFilter } from './logical-filter.js';
import type { LogicalProject } from './logical-project.js';
import type { LogicalAggregate } from './logical-aggregate.js';
import type { LogicalJoin } from './logical-join.js';
import type { LogicalSort } from './logical-sort.js';
import type { LogicalLimit } from './logical-limit.js';
import type { LogicalWindow } from './logical-window.js';
import type { LogicalSetOp } from './logical-set-op.js';
import type { LogicalDistinct } from './logical-distinct.js';
import type { LogicalInsert } from './logical-insert.js';
import type { LogicalUpdate } from './logical-update.js';
import type { LogicalDelete } from './logical-delete.js';
import type { LogicalMerge } from './logical-merge.js';
import type { LogicalProjectSet } from './logical-project-set.js';
import type { LogicalLateralJoin } from './logical-lateral-join.js';
import type { LogicalRecursiveUnion } from './logical-recursive-union.js';
import type { LogicalWorkTableScan } from './logical-work-table-scan.js';

/**
 * The logical plan: what to compute, before operator choice. Nodes are immutable
 * data whose expressions (src/exec/expr/expr.ts) address their input's columns by
 * index (joins: left then right), like the physical plan they become; rewrite rules
 * (src/planner/rules/) produce new trees.
 */
export type LogicalPlan =
  | LogicalScan
  | LogicalVirtualScan
  | LogicalValues
  | LogicalCteScan
  | LogicalFilter
  | LogicalProject
  | LogicalAggregate
  | LogicalJoin
  | LogicalSort
  | LogicalLimit
  | LogicalWindow
  | LogicalSetOp
  | LogicalDistinct
  | LogicalInsert
  | LogicalUpdate
  | LogicalDelete
  | LogicalMerge
  | LogicalProjectSet
  | LogicalLateralJoin
  | LogicalRecursiveUnion
  | LogicalWorkTableScan;

export type LogicalPlanKind = LogicalPlan['kind'];

export function assertNever(x: never): never {
  throw new Error(`unexpected plan node: ${JSON.stringify(x)}`);
}

/** The inputs of a node, in order. */
export function logicalInputs(p: LogicalPlan): readonly LogicalPlan[] {
  switch (p.kind) {
    case 'scan': case 'virtualScan': case 'values': case 'cteScan': case 'recursiveUnion': case 'workTableScan':
      return [];
    case 'join': case 'setOp':
      return [p.left, p.right];
    case 'filter': case 'project': case 'aggregate': case 'sort': case 'limit': case 'window': case 'distinct':
    case 'insert': case 'update': case 'delete': case 'merge': case 'projectSet': case 'lateralJoin':
      return [p.input];
    default:
      return assertNever(p);
  }
}

/** The same node over new inputs (same count and order as logicalInputs). */
export function withInputs(p: LogicalPlan, inputs: readonly LogicalPlan[]): LogicalPlan {
  switch (p.kind) {
    case 'scan': case 'virtualScan': case 'values': case 'cteScan': case 'recursiveUnion': case 'workTableScan':
      return p;
    case 'join': case 'setOp':
      return inputs[0] === p.left && inputs[1] === p.right ? p : { ...p, left: inputs[0]!, right: inputs[1]! };
    case 'filter': case 'project': case 'aggregate': case 'sort': case 'limit': case 'window': case 'distinct':
    case 'insert': case 'update': case 'delete': case 'merge': case 'projectSet': case 'lateralJoin':
      return inputs[0] === p.input ? p : { ...p, input: inputs[0]! };
    default:
      return assertNever(p);
  }
}
