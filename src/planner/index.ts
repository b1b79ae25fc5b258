/** src/planner: logical plans, rewrite rules, and physical planning into EXEC's IR. */
export { explainPlan, explainText, explainTree, type ExplainAnalysis, type ExplainNode, type ScanReport } from './explain/explain-plan.js';
export { explainJson } from './explain/explain-json.js';
export { parseExplainOptions, type ExplainOptions, type ExplainOptionItem } from './explain/explain-options.js';
export { optimizeLogicalPlan, nodeRules, planRules, type OptimizeOptions, type OptimizeResult } from './optimizer.js';
export { planStatement, type PlanStatementOptions } from './plan-statement.js';
export type { LogicalPlan } from './logical/logical-plan.js';
export type { LogicalStatementPlan } from './logical/logical-statement-plan.js';
export type { OptimizerRule, RuleResult } from './optimizer-rule.js';
export { finiteNumberOf } from './estimate-rows.js';
// The logical nodes, built by the binder (src/sql) and rewritten by the rules.
export { LogicalAggregate } from './logical/logical-aggregate.js';
export { LogicalCte } from './logical/logical-cte.js';
export { LogicalCteScan } from './logical/logical-cte-scan.js';
export { LogicalDataModifyingCtes } from './logical/logical-data-modifying-ctes.js';
export { LogicalDelete } from './logical/logical-delete.js';
export { LogicalDistinct } from './logical/logical-distinct.js';
export { LogicalFilter } from './logical/logical-filter.js';
export { LogicalInsert } from './logical/logical-insert.js';
export { LogicalJoin } from './logical/logical-join.js';
export { LogicalLateralJoin } from './logical/logical-lateral-join.js';
export { LogicalLimit } from './logical/logical-limit.js';
export { LogicalMerge } from './logical/logical-merge.js';
export { LogicalProject } from './logical/logical-project.js';
export { LogicalProjectSet } from './logical/logical-project-set.js';
export { LogicalRecursiveUnion } from './logical/logical-recursive-union.js';
export { LogicalScan } from './logical/logical-scan.js';
export { LogicalSetOp } from './logical/logical-set-op.js';
export { LogicalSort } from './logical/logical-sort.js';
export { logicalSubquery } from './logical/logical-subquery.js';
export { LogicalUpdate } from './logical/logical-update.js';
export { LogicalValues } from './logical/logical-values.js';
export { LogicalVirtualScan } from './logical/logical-virtual-scan.js';
export { LogicalWindow } from './logical/logical-window.js';
export { LogicalWorkTableScan } from './logical/logical-work-table-scan.js';
// Expression helpers the binder shares with the rules, and constant folding.
export { conjunction, conjuncts, hasCorrelatedSubquery, mapChildren, mapWindowCall, remapColumns, walkExpr } from './expr-utils.js';
export { simplifyExpr } from './simplify-expr.js';
