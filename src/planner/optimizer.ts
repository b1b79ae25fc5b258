import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { logicalInputs, withInputs, type LogicalPlan } from './logical/logical-plan.js';
import type { OptimizerRule } from './optimizer-rule.js';
import { simplifyExpressions } from './rules/simplify-expressions.js';
import { foldConstants } from './rules/fold-constants.js';
import { mergeFilters } from './rules/merge-filters.js';
import { pushFilterThroughProject } from './rules/push-filter-through-project.js';
import { pushFilterIntoJoin } from './rules/push-filter-into-join.js';
import { pushJoinConditionDown } from './rules/push-join-condition-down.js';
import { pushFilterIntoScan } from './rules/push-filter-into-scan.js';
import { pushLimitIntoScan } from './rules/push-limit-into-scan.js';
import { pruneColumns } from './rules/prune-columns.js';
import { removeIdentityProject } from './rules/remove-identity-project.js';
import { reorderJoins } from './rules/reorder-joins.js';
import { dependentGroupKeys } from './rules/dependent-group-keys.js';
import { mergeProjectIntoAggregate } from './rules/merge-project-into-aggregate.js';
import { aggregateBelowJoin } from './rules/aggregate-below-join.js';

/** Node-level rules, in the order each pass applies them (every node, children first). */
export const nodeRules: readonly OptimizerRule[] = [
  simplifyExpressions,
  foldConstants,
  mergeFilters,
  pushFilterThroughProject,
  pushFilterIntoJoin,
  pushJoinConditionDown,
  reorderJoins,
  pushFilterIntoScan,
  pushLimitIntoScan,
  removeIdentityProject,
  mergeProjectIntoAggregate,
  aggregateBelowJoin,
  dependentGroupKeys,
];

/** Whole-plan rules, run once after the node rules reach their fixed point. */
export const planRules: readonly OptimizerRule[] = [pruneColumns];

export interface OptimizeOptions {
  /** Rule names to skip (for tests and for diagnosing a bad rewrite). */
  readonly disabled?: ReadonlySet<string>;
  readonly maxPasses?: number;
  /** Replaces the node rules (tests, experiments). */
  readonly rules?: readonly OptimizerRule[];
}

export interface OptimizeResult {
  readonly plan: LogicalPlan;
  readonly passes: number;
  /** Names of the rules that changed the plan, in order of first change. */
  readonly applied: readonly string[];
}

function sameSchema(a: LogicalPlan, b: LogicalPlan): boolean {
  if (a.columns.length !== b.columns.length) return false;
  return a.columns.every((c, i) => c.type.kind === b.columns[i]!.type.kind);
}

function checked(rule: OptimizerRule, before: LogicalPlan, after: LogicalPlan): LogicalPlan {
  if (!sameSchema(before, after)) {
    throw new FloeError(SqlState.internalError, `optimizer rule ${rule.name} changed the output schema of a ${before.kind} node`);
  }
  return after;
}

function applyEverywhere(rule: OptimizerRule, plan: LogicalPlan): { plan: LogicalPlan; changed: boolean } {
  let changed = false;
  const visit = (p: LogicalPlan): LogicalPlan => {
    const inputs = logicalInputs(p);
    const next = inputs.map(visit);
    const rebuilt = next.some((n, i) => n !== inputs[i]) ? withInputs(p, next) : p;
    const r = rule.apply(rebuilt);
    if (r.changed) {
      changed = true;
      return checked(rule, rebuilt, r.plan);
    }
    return rebuilt;
  };
  return { plan: visit(plan), changed };
}

/** Runs the rules to a fixed point (bounded by maxPasses), then the whole-plan rules. */
export function optimizeLogicalPlan(plan: LogicalPlan, opts: OptimizeOptions = {}): OptimizeResult {
  const maxPasses = opts.maxPasses ?? 10;
  const applied: string[] = [];
  let current = plan;
  let passes = 0;
  const runNodeRules = (): void => {
    for (let pass = 0; pass < maxPasses; pass++, passes++) {
      let changed = false;
      for (const rule of opts.rules ?? nodeRules) {
        if (opts.disabled?.has(rule.name)) continue;
        const r = applyEverywhere(rule, current);
        if (r.changed) {
          changed = true;
          current = r.plan;
          if (!applied.includes(rule.name)) applied.push(rule.name);
        }
      }
      if (!changed) break;
    }
  };
  runNodeRules();
  let planChanged = false;
  for (const rule of planRules) {
    if (opts.disabled?.has(rule.name)) continue;
    const r = rule.apply(current);
    if (r.changed) {
      planChanged = true;
      current = checked(rule, current, r.plan);
      if (!applied.includes(rule.name)) applied.push(rule.name);
    }
  }
  // Pruning can leave pass-through projections behind: one more round cleans them up.
  if (planChanged) runNodeRules();
  return { plan: current, passes, applied };
}
