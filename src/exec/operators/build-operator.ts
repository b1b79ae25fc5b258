import type { PhysicalPlan, PhysicalPlanKind } from '../plan/physical-plan.js';
import { createCteScanOperator } from './cte-scan-operator.js';
import { createDeleteOperator } from './delete-operator.js';
import { createDataModifyingCtesOperator } from './data-modifying-ctes-operator.js';
import { createDistinctOperator } from './distinct-operator.js';
import { createFilterOperator } from './filter-operator.js';
import { createHashAggregateOperator } from './hash-aggregate-operator.js';
import { createHashJoinOperator } from './joins/hash-join-operator.js';
import { createInsertOperator } from './insert-operator.js';
import { createLakeScanOperator } from './lake-scan-operator.js';
import { createLateralJoinOperator } from './lateral-join-operator.js';
import { createLimitOperator } from './limit-operator.js';
import { createMergeOperator } from './merge-operator.js';
import { createNestedLoopJoinOperator } from './joins/nested-loop-join-operator.js';
import type { Operator } from './operator.js';
import { createProjectOperator } from './project-operator.js';
import { createProjectSetOperator } from './project-set-operator.js';
import { createRecursiveUnionOperator } from './recursive-union-operator.js';
import { createSetOpOperator } from './set-op-operator.js';
import { createSortOperator } from './sort-operator.js';
import { createTopNOperator } from './top-n-operator.js';
import { createUpdateOperator } from './update-operator.js';
import { createValuesOperator } from './values-operator.js';
import { createVirtualScanOperator } from './virtual-scan-operator.js';
import { createWindowOperator } from './window-operator.js';
import { createWorkTableScanOperator } from './work-table-scan-operator.js';

type Builders = { [K in PhysicalPlanKind]: (plan: Extract<PhysicalPlan, { kind: K }>) => Operator };

/** One entry per plan kind, so a new node kind fails the build until it has an operator. */
const builders: Builders = {
  lakeScan: (p) => createLakeScanOperator(p),
  virtualScan: (p) => createVirtualScanOperator(p),
  values: (p) => createValuesOperator(p),
  cteScan: (p) => createCteScanOperator(p),
  filter: (p) => createFilterOperator(p, buildOperator(p.input)),
  project: (p) => createProjectOperator(p, buildOperator(p.input)),
  projectSet: (p) => createProjectSetOperator(p, buildOperator(p.input)),
  hashAggregate: (p) => createHashAggregateOperator(p, buildOperator(p.input)),
  hashJoin: (p) => createHashJoinOperator(p, buildOperator(p.left), buildOperator(p.right)),
  nestedLoopJoin: (p) => createNestedLoopJoinOperator(p, buildOperator(p.left), buildOperator(p.right)),
  sort: (p) => createSortOperator(p, buildOperator(p.input)),
  topN: (p) => createTopNOperator(p, buildOperator(p.input)),
  limit: (p) => createLimitOperator(p, buildOperator(p.input)),
  window: (p) => createWindowOperator(p, buildOperator(p.input)),
  setOp: (p) => createSetOpOperator(p, buildOperator(p.left), buildOperator(p.right)),
  distinct: (p) => createDistinctOperator(p, buildOperator(p.input)),
  insert: (p) => createInsertOperator(p, buildOperator(p.input)),
  update: (p) => createUpdateOperator(p, buildOperator(p.input)),
  delete: (p) => createDeleteOperator(p, buildOperator(p.input)),
  merge: (p) => createMergeOperator(p, buildOperator(p.input)),
  lateralJoin: (p) => createLateralJoinOperator(p, buildOperator(p.input)),
  recursiveUnion: (p) => createRecursiveUnionOperator(p, buildOperator(p.left), buildOperator(p.right)),
  workTableScan: (p) => createWorkTableScanOperator(p),
  dataModifyingCtes: (p) => createDataModifyingCtesOperator(p, buildOperator(p.input)),
};

/** Builds (and validates) the operator tree for a plan. */
export function buildOperator(plan: PhysicalPlan): Operator {
  const build = builders[plan.kind] as (p: PhysicalPlan) => Operator;
  return build(plan);
}
