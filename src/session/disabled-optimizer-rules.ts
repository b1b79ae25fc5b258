import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { nodeRules, physicalRules, planRules, type PlanStatementOptions } from '../planner/index.js';

/**
 * Session setting naming optimizer rules to skip, comma-separated
 * (`SET floe.disabled_optimizer_rules = 'reorder-joins, prune-columns'`), as DuckDB's
 * `disabled_optimizers`: for diagnosing a bad rewrite and for tests.
 */
export const DISABLED_OPTIMIZER_RULES = 'floe.disabled_optimizer_rules';

const ruleNames = new Set([...nodeRules, ...planRules, ...physicalRules].map((r) => r.name));

function namesIn(value: string): string[] {
  return value.split(',').map((n) => n.trim().toLowerCase()).filter((n) => n !== '');
}

/** Refuses a SET that names no rule, as PostgreSQL refuses a bad value for its own parameters (22023). */
export function checkDisabledOptimizerRules(name: string, value: string): void {
  if (name !== DISABLED_OPTIMIZER_RULES) return;
  const unknown = namesIn(value).find((n) => !ruleNames.has(n));
  if (unknown !== undefined) {
    throw new FloeError(SqlState.invalidParameterValue, `invalid value for parameter "${name}": "${value}"`, {
      detail: `There is no optimizer rule "${unknown}".`, hint: `Rules: ${[...ruleNames].join(', ')}.`,
    });
  }
}

/** The planner's options under the session's settings. */
export function planOptions(settings: ReadonlyMap<string, string>): PlanStatementOptions {
  const value = settings.get(DISABLED_OPTIMIZER_RULES);
  const names = value === undefined ? [] : namesIn(value);
  return names.length === 0 ? {} : { disabledRules: new Set(names) };
}
