import type { Expr } from '../../exec/index.js';
import type { LogicalPlan } from '../logical/logical-plan.js';
import type { OptimizerRule, RuleResult } from '../optimizer-rule.js';

function constantCount(e: Expr | undefined): number | undefined {
  if (e === undefined) return 0;
  if (e.kind !== 'literal') return undefined;
  if (e.value === null) return undefined;
  const n = Number(e.value as number | bigint);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * limit(scan) with constant LIMIT/OFFSET and no residual predicate: the lake may
 * stop after limit+offset rows. The limit node stays; the scan limit is a hint.
 */
function apply(p: LogicalPlan): RuleResult {
  if (p.kind !== 'limit' || p.input.kind !== 'scan' || p.input.residual || !p.limit) return { plan: p, changed: false };
  const limit = constantCount(p.limit);
  const offset = constantCount(p.offset);
  if (limit === undefined || offset === undefined) return { plan: p, changed: false };
  const want = limit + offset;
  if (p.input.limit !== undefined && p.input.limit <= want) return { plan: p, changed: false };
  return { plan: { ...p, input: { ...p.input, limit: want } }, changed: true };
}

export const pushLimitIntoScan: OptimizerRule = { name: 'push-limit-into-scan', apply };
