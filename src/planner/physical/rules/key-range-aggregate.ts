import { aggregateShipment } from '../../../exec/index.js';
import { shippable } from '../../../exec/index.js';
import type { HashAggregatePlan, KeyRangeSplit, PhysicalPlan } from '../../../exec/index.js';
import type { LogicalAggregate } from '../../logical/logical-aggregate.js';
import type { LogicalPlan } from '../../logical/logical-plan.js';
import type { LogicalScan } from '../../logical/logical-scan.js';
import type { PhysicalRule } from '../physical-rule.js';

/** Tables smaller than this aggregate well enough with a partial per scan task. */
export const KEY_RANGE_MIN_ROWS = 1_000_000;

/** The leading key's [min, max] must span at least this share of the rows (a handful of regions is no key to split on). */
const MIN_SPAN_PER_ROW = 1 / 16;

const SPLITTABLE = new Set(['int2', 'int4', 'int8', 'date']);

/**
 * An aggregate over one scan (through Filter and Project nodes) that groups by the
 * table's leading primary-key column has about as many groups as that column has
 * values — 1.5M groups of 6M rows for GROUP BY l_orderkey. A partial aggregate per
 * scan task then barely reduces anything and the merge of the partials runs on one
 * thread. Split here, the executor divides the key's range among its workers instead:
 * each reads every task for the rows of its range, so its groups are final. The column
 * is NOT NULL (a key), so the ranges hold every row. Only an aggregate whose input
 * ships to the workers is split.
 *
 * A HAVING without subqueries over a split aggregate runs inside it: in the workers,
 * on their final groups, so only the groups kept cross back.
 */
function apply(node: PhysicalPlan, from: LogicalPlan | undefined): PhysicalPlan {
  if (node.kind === 'filter') {
    const input = node.input;
    if (input.kind === 'hashAggregate' && input.keyRangeSplit !== undefined && input.having === undefined && shippable(node.predicate)) {
      return { ...input, having: node.predicate };
    }
    return node;
  }
  if (node.kind !== 'hashAggregate' || node.keyRangeSplit !== undefined || from?.kind !== 'aggregate') return node;
  const split = keyRangeSplitOf(from);
  if (split === undefined || aggregateShipment(node) === undefined) return node;
  const decided: HashAggregatePlan = { ...node, keyRangeSplit: split };
  return decided;
}

function keyRangeSplitOf(p: LogicalAggregate): KeyRangeSplit | undefined {
  if (p.groupingSets !== undefined || p.groupBy.length === 0) return undefined;
  if (p.aggregates.some((a) => a.distinct || (a.orderBy !== undefined && a.orderBy.length > 0))) return undefined;
  for (let key = 0; key < p.groupBy.length; key++) {
    const k = p.groupBy[key]!;
    if (k.kind !== 'column') continue;
    const origin = scanColumnOf(p.input, k.index);
    if (origin === undefined) continue;
    const { scan, column } = origin;
    const table = scan.table;
    const type = table.columns.find((c) => c.name === column)?.type.kind;
    const range = table.columnRanges?.[column];
    const rows = table.rowEstimate;
    if (column !== table.primaryKey[0] || type === undefined || !SPLITTABLE.has(type) || range === undefined || rows === undefined) continue;
    if (rows < KEY_RANGE_MIN_ROWS || range[1] - range[0] + 1 < rows * MIN_SPAN_PER_ROW) continue;
    return { key, column, min: range[0], max: range[1] };
  }
  return undefined;
}

/** The scan column that output `index` of a Filter/Project chain over one scan (no limit) passes through unchanged. */
function scanColumnOf(p: LogicalPlan, index: number): { scan: LogicalScan; column: string } | undefined {
  switch (p.kind) {
    case 'scan': {
      const column = p.projection[index];
      return column === undefined || p.limit !== undefined ? undefined : { scan: p, column };
    }
    case 'filter':
      return scanColumnOf(p.input, index);
    case 'project': {
      const e = p.exprs[index];
      return e?.kind === 'column' ? scanColumnOf(p.input, e.index) : undefined;
    }
    default:
      return undefined;
  }
}

export const keyRangeAggregate: PhysicalRule = { name: 'key-range-aggregate', apply };
