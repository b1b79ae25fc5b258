import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import {
  CHANGELOG_PROPERTIES, DEFAULT_OPTIMIZER_GROUP, ICEBERG_PROPERTIES, LOG_PROPERTIES, MERGE_ENGINE_PROPERTIES, OPTIMIZING_PROPERTIES, checkChangelogProperty, checkLogProperty,
  checkOptimizingProperty, isMergeEngineProperty,
} from '../lake/index.js';

/**
 * The table property keys Floe knows. A key nobody reads is almost always a typo
 * (`write.target-filesize`), and silently storing it hides the mistake, so
 * anything else is refused with a hint naming the nearest known keys. The merge
 * engine's keys are src/lake's (MERGE_ENGINE_PROPERTIES and its `fields.<col>.…` keys). The
 * self-optimizing and housekeeping keys (and their value rules) are src/lake's
 * OPTIMIZING_PROPERTIES, the log store's LOG_PROPERTIES, CHANGELOG_PROPERTIES, ICEBERG_PROPERTIES; `write.target-file-size` is the old name of
 * `self-optimizing.target-size`.
 */
export const KNOWN_TABLE_PROPERTIES: Readonly<Record<string, string>> = {
  'merge-engine': MERGE_ENGINE_PROPERTIES['merge-engine']!,
  comment: 'free text describing the table',
  ...Object.fromEntries(Object.entries(OPTIMIZING_PROPERTIES).map(([k, d]) => [k, `${d.description}; default ${d.defaultText}`])),
  ...Object.fromEntries(Object.entries(LOG_PROPERTIES).map(([k, d]) => [k, `${d.description}; default ${d.defaultText}`])),
  ...Object.fromEntries(Object.entries(CHANGELOG_PROPERTIES).map(([k, d]) => [k, `${d.description}; default ${d.defaultText}`])),
  ...Object.fromEntries(Object.entries(ICEBERG_PROPERTIES).map(([k, d]) => [k, `${d.description}; default ${d.defaultText}`])),
  ...MERGE_ENGINE_PROPERTIES,
};

const valueRules: Readonly<Record<string, (v: string) => boolean>> = {};

export interface TablePropertyChecks {
  /** Whether an optimizer group exists (`self-optimizing.group` must name one). */
  readonly groupExists?: (name: string) => boolean;
}

/** Throws 22023 for an unknown key (hint: the nearest known keys) or a value a key does not accept. */
export function validateTableProperties(
  keys: readonly string[], values?: Readonly<Record<string, string>>, checks: TablePropertyChecks = {},
): void {
  for (const key of keys) {
    // The merge engine's per-column keys (fields.<col>.aggregate-function, …) are checked against the columns by src/lake.
    if (!Object.hasOwn(KNOWN_TABLE_PROPERTIES, key) && !isMergeEngineProperty(key)) {
      throw new FloeError(SqlState.invalidParameterValue, `unrecognized table property "${key}"`, { hint: nearestKeysHint(key) });
    }
    const v = values?.[key];
    if (v !== undefined) { checkOptimizingProperty(key, v); checkLogProperty(key, v); checkChangelogProperty(key, v); }
    if (key === 'self-optimizing.group' && v !== undefined && v !== DEFAULT_OPTIMIZER_GROUP && checks.groupExists?.(v) === false) {
      throw new FloeError(SqlState.undefinedObject, `optimizer group "${v}" does not exist`, {
        hint: `Create it first with CREATE OPTIMIZER GROUP ${v} WITH (threads = 1), or use the default group.`,
      });
    }
    const rule = valueRules[key];
    if (v !== undefined && rule && !rule(v)) {
      throw new FloeError(SqlState.invalidParameterValue, `invalid value for ${key}: "${v}"`, { hint: `${key}: ${KNOWN_TABLE_PROPERTIES[key]}.` });
    }
  }
}

function nearestKeysHint(key: string): string {
  const known = Object.keys(KNOWN_TABLE_PROPERTIES);
  const scored = known.map((k) => ({ k, d: levenshtein(key, k) })).sort((a, b) => a.d - b.d || a.k.localeCompare(b.k));
  const best = scored[0]!.d;
  const near = scored.filter((s) => s.d <= Math.max(best, 2) && s.d <= Math.max(3, Math.floor(key.length / 2)));
  if (near.length === 0) return `Known table properties: ${known.join(', ')}.`;
  return `Did you mean ${near.slice(0, 3).map((s) => `"${s.k}"`).join(' or ')}? Known table properties: ${known.join(', ')}.`;
}

export function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
