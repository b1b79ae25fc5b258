import type { PhysicalPlan } from '../../../exec/index.js';
import type { PhysicalRule } from '../physical-rule.js';

/**
 * Lake scans of a statement that runs again within seconds over mostly the same files (an
 * incremental refresh of a materialized view: planStatement's `rereads`) keep the row
 * groups they decode, in the row-group cache of the thread that reads them. The next run
 * filters the decoded columns instead of decoding them again: a refresh term that joins a
 * few changed orders to order_line by a prefix of its key reads its 600,000 rows every
 * refresh, and no key lookup applies to a prefix. Data files are immutable, so a kept row
 * group is never stale; a rewritten file is a new path and is decoded once more.
 * Only in the plan of such a statement: a one-off scan would push out what others keep.
 */
function apply(node: PhysicalPlan): PhysicalPlan {
  if (node.kind !== 'lakeScan' || node.keepDecoded === true || node.pointRead === true) return node;
  return { ...node, keepDecoded: true };
}

export const keepScansDecoded: PhysicalRule = { name: 'keep-scans-decoded', apply };
