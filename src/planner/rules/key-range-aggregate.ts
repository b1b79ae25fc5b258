import type { LogicalAggregate, KeyRangeSplit } from '../logical/logical-aggregate.js';
import type { LogicalPlan } from '../logical/logical-plan.js';
import type { LogicalScan } from '../logical/logical-scan.js';
import type { OptimizerRule, RuleResult } from '../optimizer-rule.js';

/** Tables smaller than this aggregate well enough with a partial per scan task. */
export const KEY_RANGE_MIN_ROWS = 1_000_000;

/** The leading key's [min, max] must span at least this share of the rows (a handful of regions is no key to split on). */
const MIN_SPAN_PER_ROW = 1 / 16;

const SPLITTABLE = new Set(['int2', 'int4', 'int8', 'date']);

/**
 * An aggregate over one scan (through Filter and Project nodes) that groups by the
 * table's leading primary-key column has about as many groups as that column has
 * values — a GROUP BY on an order-lines table's order key: 1.5M groups of 6M rows. A partial
 * aggregate per scan task then barely reduces anything and the merge of the
 * partials runs on one thread. Marked here, the executor splits the key's range
 * among its workers instead: each reads every task for the rows of its range, so
 * its groups are final. The column is NOT NULL (a key), so the ranges hold every row.
 */
function apply(p: LogicalPlan): RuleResult {
  if (p.kind !== 'aggregate' || p.keyRangeSplit !== undefined || p.groupingSets !== undefined || p.groupBy.length === 0) return unchanged(p);
  if (p.aggregates.some((a) => a.distinct || (a.orderBy !== undefined && a.orderBy.length > 0))) return unchanged(p);
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
    const split: KeyRangeSplit = { key, column, min: range[0], max: range[1] };
    const plan: LogicalAggregate = { ...p, keyRangeSplit: split };
    return { plan, changed: true };
  }
  return unchanged(p);
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

function unchanged(plan: LogicalPlan): RuleResult {
  return { plan, changed: false };
}

export const keyRangeAggregate: OptimizerRule = { name: 'key-range-aggregate', apply };
