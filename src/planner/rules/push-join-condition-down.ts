import type { Expr } from '../../exec/index.js';
import type { LogicalJoin } from '../logical/logical-join.js';
import type { LogicalPlan } from '../logical/logical-plan.js';
import type { OptimizerRule, RuleResult } from '../optimizer-rule.js';
import { conjunction, conjuncts, remapColumns } from '../expr-utils.js';
import { sideOf } from './join-sides.js';
import { filterOver } from './push-filter-into-join.js';

/**
 * Join condition conjuncts that read one side only filter that side before the
 * join, where the join type allows it: both sides of an inner join, the
 * non-preserved side of an outer join (a condition never removes preserved rows).
 */
function apply(p: LogicalPlan): RuleResult {
  if (p.kind !== 'join' || !p.condition) return { plan: p, changed: false };
  const j: LogicalJoin = p;
  const width = j.left.columns.length;
  const leftOk = j.joinType === 'inner' || j.joinType === 'right' || j.joinType === 'semi';
  const rightOk = j.joinType === 'inner' || j.joinType === 'left' || j.joinType === 'semi' || j.joinType === 'anti';
  const toLeft: Expr[] = [];
  const toRight: Expr[] = [];
  const keep: Expr[] = [];
  for (const c of conjuncts(j.condition!)) {
    const side = sideOf(c, width);
    if (side === 'left' && leftOk) toLeft.push(c);
    else if (side === 'right' && rightOk) toRight.push(remapColumns(c, (i) => i - width));
    else keep.push(c);
  }
  if (toLeft.length + toRight.length === 0) return { plan: p, changed: false };
  const condition = conjunction(keep);
  const { condition: _old, ...rest } = j;
  void _old;
  const join: LogicalJoin = {
    ...rest, left: filterOver(j.left, toLeft), right: filterOver(j.right, toRight), ...(condition ? { condition } : {}),
  };
  return { plan: join, changed: true };
}

export const pushJoinConditionDown: OptimizerRule = { name: 'push-join-condition-down', apply };
