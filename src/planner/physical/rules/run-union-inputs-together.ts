import type { PhysicalPlan } from '../../../exec/index.js';
import type { PhysicalRule } from '../physical-rule.js';

/**
 * UNION ALL runs its two inputs at once, its rows in the order they arrive, in a statement
 * whose rows nothing reads in order (planStatement's `rowOrderFree`: a materialized view's
 * refresh, whose MERGE source is grouped or DISTINCT ON per view key). A refresh's delta is
 * a UNION ALL of terms, each a chain of scans and key lookups that mostly waits on the scan
 * workers; run one after the other, each term's waits add up. Elsewhere UNION ALL keeps its
 * inputs' order, as PostgreSQL's Append does.
 */
function apply(node: PhysicalPlan): PhysicalPlan {
  if (node.kind !== 'setOp' || node.op !== 'union' || !node.all || node.concurrent === true) return node;
  return { ...node, concurrent: true };
}

export const runUnionInputsTogether: PhysicalRule = { name: 'run-union-inputs-together', apply };
