import type { LogicalAggregate } from '../logical/logical-aggregate.js';
import type { LogicalPlan } from '../logical/logical-plan.js';
import type { OptimizerRule, RuleResult } from '../optimizer-rule.js';

/** Where a column of a plan's output comes from: one scan in the tree (named by its path) and a column it reads. */
interface ColumnOrigin {
  /** The join sides taken from the aggregate's input down to the scan: each scan in a tree has its own. */
  readonly path: string;
  readonly primaryKey: readonly string[];
  readonly column: string;
}

/**
 * The table column that output column `index` of `p` passes through unchanged,
 * if any. The path, not the scan object, names the table instance: a CTE read
 * twice is one plan object under two join sides.
 */
function originOf(p: LogicalPlan, index: number, path = ''): ColumnOrigin | undefined {
  switch (p.kind) {
    case 'scan': {
      const column = p.projection[index];
      return column === undefined ? undefined : { path, primaryKey: p.table.primaryKey, column };
    }
    case 'filter': case 'sort': case 'limit': case 'distinct':
      return originOf(p.input, index, path);
    case 'project': {
      const e = p.exprs[index];
      return e?.kind === 'column' ? originOf(p.input, e.index, path) : undefined;
    }
    case 'join': {
      const leftWidth = p.left.columns.length;
      if (index < leftWidth) return originOf(p.left, index, `${path}l`);
      const rightOutput = p.joinType !== 'semi' && p.joinType !== 'anti' && p.joinType !== 'mark';
      return rightOutput ? originOf(p.right, index - leftWidth, `${path}r`) : undefined;
    }
    default:
      return undefined;
  }
}

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
  const keyed = new Set<string>();
  for (const o of origins) if (o !== undefined && o.primaryKey.length > 0) keyed.add(o.path);
  const determined = new Set<string>();
  for (const path of keyed) {
    const grouped = new Set(origins.filter((o) => o?.path === path).map((o) => o!.column));
    const { primaryKey } = origins.find((o) => o?.path === path)!;
    if (primaryKey.every((c) => grouped.has(c))) determined.add(path);
  }
  const dependentKeys: number[] = [];
  origins.forEach((o, i) => {
    if (o !== undefined && determined.has(o.path) && !o.primaryKey.includes(o.column)) dependentKeys.push(i);
  });
  if (dependentKeys.length === 0) return { plan: p, changed: false };
  const plan: LogicalAggregate = { ...p, dependentKeys };
  return { plan, changed: true };
}

export const dependentGroupKeys: OptimizerRule = { name: 'dependent-group-keys', apply };
