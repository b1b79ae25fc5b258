import { aggregateShipment } from '../../../exec/index.js';
import type { PhysicalPlan } from '../../../exec/index.js';
import type { PhysicalRule } from '../physical-rule.js';

/**
 * Where a hash aggregate builds its groups. Over a lake scan (through Filter and Project
 * nodes) whose expressions a worker can evaluate alone, the groups are built in the scan
 * workers: a partial aggregate per scan task, merged on the main thread, or — when the
 * aggregate is split by key ranges (key-range-aggregate.ts) — one range per worker, each
 * finishing its groups. Anything else (grouping sets, DISTINCT or ORDER BY inside an
 * aggregate, subqueries, outer references, a scan limit) aggregates on the main thread.
 */
function apply(node: PhysicalPlan): PhysicalPlan {
  if (node.kind !== 'hashAggregate' || node.strategy !== undefined) return node;
  if (aggregateShipment(node) === undefined) return node;
  return { ...node, strategy: node.keyRangeSplit !== undefined ? 'keyRanges' : 'partialPerTask' };
}

export const aggregateInWorkers: PhysicalRule = { name: 'aggregate-in-workers', apply };
