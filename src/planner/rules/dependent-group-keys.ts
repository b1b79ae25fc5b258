import type { LogicalAggregate } from '../logical/logical-aggregate.js';
import type { LogicalPlan } from '../logical/logical-plan.js';
import type { OptimizerRule, RuleResult } from '../optimizer-rule.js';
import { keyedInstances, originOf } from '../column-origin.js';

/**
 * GROUP BY keys that the other keys determine are marked dependent, so the
 * aggregate hashes only the rest (PostgreSQL's remove_useless_groupby_columns):
 * when every primary key column of a table instance is a plain key, that
 * instance's other plain-column keys cannot split a group. Joins keep this —
 * rows of one instance with equal keys are copies of one row, and a
 * null-extended row has every column of the instance NULL. TPC-H Q10 groups
 * by c_custkey and six columns it determines; hashing them all cost more than
 * the joins below.
 */
function apply(p: LogicalPlan): RuleResult {
  if (p.kind !== 'aggregate' || p.dependentKeys !== undefined || p.groupingSets !== undefined || p.groupBy.length < 2) return { plan: p, changed: false };
  const origins = p.groupBy.map((k) => (k.kind === 'column' ? originOf(p.input, k.index) : undefined));
  const determined = keyedInstances(origins);
  const dependentKeys: number[] = [];
  origins.forEach((o, i) => {
    if (o !== undefined && determined.has(o.path) && !o.scan.table.primaryKey.includes(o.column)) dependentKeys.push(i);
  });
  if (dependentKeys.length === 0) return { plan: p, changed: false };
  const plan: LogicalAggregate = { ...p, dependentKeys };
  return { plan, changed: true };
}

export const dependentGroupKeys: OptimizerRule = { name: 'dependent-group-keys', apply };
