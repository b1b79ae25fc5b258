import { bindLogicalQuery } from '../../src/sql/binder/bind-logical-query.js';
import { parseStatements } from '../../src/sql/index.js';
import { explainPlan, optimizeLogicalPlan, planStatement } from '../../src/planner/index.js';
import { stubEnv } from '../sql/stub-env.js';

/** EXPLAIN text of a query planned with some rules disabled (all rules run otherwise). */
export function planText(sql: string, disabled: readonly string[] = []): string {
  const logical = bindLogicalQuery(parseStatements(sql)[0]!, stubEnv());
  return explainPlan(planStatement(logical, { disabledRules: new Set(disabled) })).join('\n');
}

export function appliedRules(sql: string): readonly string[] {
  const logical = bindLogicalQuery(parseStatements(sql)[0]!, stubEnv());
  return optimizeLogicalPlan(logical).applied;
}

export const allRules = [
  'simplify-expressions', 'fold-constants', 'merge-filters', 'push-filter-through-project', 'push-filter-into-join',
  'push-join-condition-down', 'reorder-joins', 'push-filter-into-scan', 'push-limit-into-scan', 'remove-identity-project', 'merge-project-into-aggregate', 'aggregate-below-join', 'dependent-group-keys', 'prune-columns',
];
