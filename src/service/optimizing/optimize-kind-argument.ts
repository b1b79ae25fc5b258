import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { OptimizeKind } from '../../lake/index.js';

/**
 * The kind of an optimize asked for by name (CALL optimize's second argument, the HTTP
 * API's "optimize now"). Without one it is major: everything that can be done is,
 * whatever the table's triggers say.
 */
export const DEFAULT_CALL_OPTIMIZE_KIND: OptimizeKind = 'major';

const KINDS: readonly OptimizeKind[] = ['minor', 'major', 'full'];

/** 22023 with a hint for anything but minor, major or full; null or nothing is the default. */
export function optimizeKindArgument(v: unknown): OptimizeKind {
  if (v === undefined || v === null) return DEFAULT_CALL_OPTIMIZE_KIND;
  const k = String(v).trim().toLowerCase();
  if ((KINDS as readonly string[]).includes(k)) return k as OptimizeKind;
  throw new FloeError(SqlState.invalidParameterValue, `invalid optimize kind: "${String(v)}"`, {
    hint: "The kind is 'minor' (fold change files), 'major' (also rewrite undersized and superseded base files; the default) or 'full' (rewrite every node).",
  });
}
