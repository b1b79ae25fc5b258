import type { Expr } from '../../exec/index.js';
import { LogicalFilter } from '../logical/logical-filter.js';
import type { LogicalJoin } from '../logical/logical-join.js';
import type { LogicalPlan } from '../logical/logical-plan.js';
import type { OptimizerRule, RuleResult } from '../optimizer-rule.js';
import { conjunction, conjuncts, remapColumns } from '../expr-utils.js';
import { sideOf } from './join-sides.js';
import { orImpliedFilters } from './or-implied-filters.js';

export function filterOver(input: LogicalPlan, parts: readonly Expr[]): LogicalPlan {
  const predicate = conjunction(parts);
  return predicate ? LogicalFilter.create({ input, predicate, columns: input.columns }) : input;
}

/**
 * filter(join) → conjuncts on one side move below the join (where the join type
 * keeps that side's rows intact); for inner joins, the ones reading both sides
 * become join condition (a cross join with an equality becomes a hash join), and
 * an OR among them also filters each side by what it implies for that side alone.
 */
function apply(p: LogicalPlan): RuleResult {
  if (p.kind !== 'filter' || p.input.kind !== 'join' || p.barrier) return { plan: p, changed: false };
  const j: LogicalJoin = p.input;
  const width = j.left.columns.length;
  const toLeft: Expr[] = [];
  const toRight: Expr[] = [];
  const toCondition: Expr[] = [];
  const stay: Expr[] = [];
  // Semi, anti and mark joins pass left rows through unchanged (mark adds a column after them).
  const leftOk = j.joinType === 'inner' || j.joinType === 'left' || j.joinType === 'semi' || j.joinType === 'anti' || j.joinType === 'mark';
  const rightOk = j.joinType === 'inner' || j.joinType === 'right';
  for (const c of conjuncts(p.predicate)) {
    const side = sideOf(c, width);
    if (side === 'left' && leftOk) toLeft.push(c);
    else if (side === 'right' && rightOk) toRight.push(remapColumns(c, (i) => i - width));
    else if ((side === 'both' || side === 'none') && j.joinType === 'inner') {
      toCondition.push(c);
      // Derived once, here, as the OR moves into the join condition for good.
      const implied = side === 'both' ? orImpliedFilters(c, width) : {};
      if (implied.left) toLeft.push(implied.left);
      if (implied.right) toRight.push(remapColumns(implied.right, (i) => i - width));
    }
    else stay.push(c);
  }
  if (toLeft.length + toRight.length + toCondition.length === 0) return { plan: p, changed: false };
  const condition = conjunction([...(j.condition ? conjuncts(j.condition) : []), ...toCondition]);
  const join: LogicalJoin = {
    ...j, left: filterOver(j.left, toLeft), right: filterOver(j.right, toRight),
    ...(condition ? { condition } : {}),
  };
  return { plan: filterOver(join, stay), changed: true };
}

export const pushFilterIntoJoin: OptimizerRule = { name: 'push-filter-into-join', apply };
