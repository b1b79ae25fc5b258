import { Exprs } from '../../../exec/index.js';
import type { BuildSidePolicy, HashJoinPlan, JoinType, PhysicalPlan } from '../../../exec/index.js';
import { estimateRows } from '../../estimate-rows.js';
import { remapColumns } from '../../expr-utils.js';
import type { LogicalPlan } from '../../logical/logical-plan.js';
import type { PhysicalRule } from '../physical-rule.js';

/**
 * Which input a hash join's table holds. The right input builds as planned; the
 * executor may build on the left instead when that input ends within a few rows
 * (operators/joins/build-side.ts reads ahead), by a policy chosen here per join type.
 * When the estimates make the left input of an inner join the smaller one (lineitem
 * ⋈ a filtered part, say), the sides swap and a projection puts the columns back in
 * the join's order; a left, semi or anti join (whose sides are fixed) is marked
 * `leftLooksSmaller` so its left input is read first.
 */
function apply(node: PhysicalPlan, from: LogicalPlan | undefined): PhysicalPlan {
  if (node.kind !== 'hashJoin' || node.buildSide !== undefined) return node;
  const leftLooksSmaller = from?.kind === 'join' && estimateRows(from.left) < estimateRows(from.right);
  if (node.joinType === 'inner' && leftLooksSmaller) return buildOnLeft(node);
  return {
    ...node, buildSide: policyFor(node.joinType),
    ...(leftLooksSmaller && node.joinType !== 'inner' ? { leftLooksSmaller } : {}),
  };
}

function policyFor(joinType: JoinType): BuildSidePolicy {
  switch (joinType) {
    case 'inner': return 'smallLeft';
    case 'left': case 'semi': case 'anti': return 'smallLeftProbeFirst';
    default: return 'right';
  }
}

/** The inner join with its inputs swapped (the old left builds), under a projection restoring the column order. */
function buildOnLeft(p: HashJoinPlan): PhysicalPlan {
  const lw = p.left.columns.length;
  const rw = p.right.columns.length;
  // Column i of the original join (left then right) is at this index of the swapped one (right then left).
  const moved = (i: number): number => (i < lw ? i + rw : i - lw);
  const swapped: HashJoinPlan = {
    kind: 'hashJoin', joinType: 'inner', left: p.right, right: p.left, leftKeys: p.rightKeys, rightKeys: p.leftKeys,
    ...(p.nullEquals ? { nullEquals: p.nullEquals } : {}),
    ...(p.residual ? { residual: remapColumns(p.residual, moved) } : {}),
    buildSide: policyFor('inner'),
    columns: [...p.right.columns, ...p.left.columns],
  };
  return {
    kind: 'project', input: swapped,
    exprs: p.columns.map((c, i) => Exprs.column(moved(i), c.type, c.name)),
    columns: p.columns,
  };
}

export const joinBuildSide: PhysicalRule = { name: 'join-build-side', apply };
