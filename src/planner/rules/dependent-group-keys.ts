import type { LogicalAggregate } from '../logical/logical-aggregate.js';
import type { LogicalPlan } from '../logical/logical-plan.js';
import type { OptimizerRule, RuleResult } from '../optimizer-rule.js';
import { determinedBy, equalColumns, originOf, type ColumnOrigin } from '../column-origin.js';

/**
 * GROUP BY keys that the other keys determine are marked dependent, so the
 * aggregate hashes only the rest (PostgreSQL's remove_useless_groupby_columns,
 * carried across equalities): a table instance whose whole primary key the
 * other keys give, directly or through column = column conditions of inner
 * joins and filters, determines all its columns. A GROUP BY c_custkey
 * and six columns it determines (n_name through c_nationkey = n_nationkey) hashes one key;
 * likewise o_orderdate follows from l_orderkey = o_orderkey. Keys are dropped one at a
 * time, each only while the keys still hashed determine it (two columns that
 * determine each other keep one), non-key columns before primary key columns.
 */
function apply(p: LogicalPlan): RuleResult {
  if (p.kind !== 'aggregate' || p.groupingSets !== undefined || p.groupBy.length < 2) return { plan: p, changed: false };
  const origins = p.groupBy.map((k) => (k.kind === 'column' ? originOf(p.input, k.index) : undefined));
  const equal = equalColumns(p.input);
  const isKeyColumn = (o: ColumnOrigin): boolean => o.scan.table.primaryKey.includes(o.column);
  const candidates = origins.map((o, i) => ({ o, i })).filter((c): c is { o: ColumnOrigin; i: number } => c.o !== undefined);
  candidates.sort((x, y) => Number(isKeyColumn(x.o)) - Number(isKeyColumn(y.o)) || x.i - y.i);
  const dropped = new Set<number>();
  for (const { o, i } of candidates) {
    const hashed = origins.filter((h, j): h is ColumnOrigin => h !== undefined && j !== i && !dropped.has(j));
    if (determinedBy(hashed, equal)(o)) dropped.add(i);
  }
  const dependentKeys = [...dropped].sort((a, b) => a - b);
  if (sameKeys(dependentKeys, p.dependentKeys ?? [])) return { plan: p, changed: false };
  const plan: LogicalAggregate = dependentKeys.length > 0 ? { ...p, dependentKeys } : withoutDependentKeys(p);
  return { plan, changed: true };
}

function sameKeys(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function withoutDependentKeys(p: LogicalAggregate): LogicalAggregate {
  const { dependentKeys: _, ...rest } = p;
  return rest;
}

export const dependentGroupKeys: OptimizerRule = { name: 'dependent-group-keys', apply };
