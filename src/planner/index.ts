/** src/planner: logical plans, rewrite rules, and physical planning into EXEC's IR. */
export { explainPlan, explainText, explainTree, type ExplainAnalysis, type ExplainNode, type ScanReport } from './explain/explain-plan.js';
export { explainJson } from './explain/explain-json.js';
export { parseExplainOptions, type ExplainOptions, type ExplainOptionItem } from './explain/explain-options.js';
export { optimizeLogicalPlan, nodeRules, planRules, type OptimizeOptions, type OptimizeResult } from './optimizer.js';
export { planStatement, type PlanStatementOptions } from './plan-statement.js';
export { decidePhysicalPlan, physicalRules } from './physical/physical-rules.js';
export type { PhysicalRule } from './physical/physical-rule.js';
export type { LogicalPlan } from './logical/logical-plan.js';
export type { LogicalStatementPlan } from './logical/logical-statement-plan.js';
export type { OptimizerRule, RuleResult } from './optimizer-rule.js';
export { finiteNumberOf } from './estimate-rows.js';
