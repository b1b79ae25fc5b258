import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { planAtPath } from '../plan/physical-plan.js';
import type { KeyLookupSpec, LakeScanPlan, PhysicalPlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';

/**
 * Key lookups: a hash join whose build keys give every primary-key column of a keyed scan
 * on its probe side (planner/physical/rules/runtime-filter-targets.ts) hands that scan its
 * distinct build keys once it has built. The lake then reads only the bucket nodes, files
 * and row groups those keys hash into, and finds their rows by key hash, through the
 * row-group cache: what a point read does for one key, for a few thousand. An incremental
 * refresh's delta joins (a few changed rows joined to a large table by its key) are the case.
 *
 * Like a runtime filter, only an optimisation: a scan planned before the slot is filled
 * reads as before.
 */

/** Builds with more rows than this look nothing up (the per-column runtime filters still apply). */
export const KEY_LOOKUP_MAX_KEYS = 4096;

/** Where a hash join puts the keys for one scan: created when the join starts, filled after the build. */
export interface KeyLookupSlot {
  /** Full keys, values in the scan's primary-key order; NULL-free, distinct. */
  keys?: readonly (readonly unknown[])[];
  /** Build rows, when there were too many to look up (EXPLAIN ANALYZE says why none was made). */
  tooMany?: number;
}

export interface KeyLookupTarget {
  readonly scan: LakeScanPlan;
  readonly keys: readonly number[];
}

/** The scans the planned specs name under `side`; a path that does not end at a keyed scan reading its key is the planner's error (XX000). */
export function resolveKeyLookupTargets(side: PhysicalPlan, specs: readonly KeyLookupSpec[]): KeyLookupTarget[] {
  return specs.map((spec) => {
    const node = planAtPath(side, spec.path);
    if (node?.kind !== 'lakeScan' || node.primaryKey?.length !== spec.keys.length) {
      throw new FloeError(SqlState.internalError, 'key lookup target is not a keyed lake scan reading its whole key');
    }
    return { scan: node, keys: spec.keys };
  });
}

/** A run for the probe input with an empty key lookup slot per target scan. */
export function runWithKeyLookups(run: RunState, targets: readonly KeyLookupTarget[]): { run: RunState; slots: { target: KeyLookupTarget; slot: KeyLookupSlot }[] } {
  const map = new Map<LakeScanPlan, KeyLookupSlot>(run.keyLookups ?? []);
  const slots = targets.map((target) => {
    const slot: KeyLookupSlot = {};
    map.set(target.scan, slot);
    return { target, slot };
  });
  return { run: { ...run, keyLookups: map }, slots };
}

/**
 * Fills a slot from the build: `column(k)` is join key k's values, one per build row.
 * Rows with a NULL in a key column find no partner and are left out.
 */
export function fillKeyLookup(
  slot: KeyLookupSlot, target: KeyLookupTarget, numRows: number, column: (k: number) => ArrayLike<unknown>, maxKeys = KEY_LOOKUP_MAX_KEYS,
): void {
  if (numRows > maxKeys) {
    slot.tooMany = numRows;
    return;
  }
  const columns = target.keys.map(column);
  const seen = new Set<string>();
  const keys: unknown[][] = [];
  for (let r = 0; r < numRows; r++) {
    const key = columns.map((c) => c[r]);
    if (key.some((v) => v === null || v === undefined)) continue;
    const id = key.map(String).join('\u0000');
    if (seen.has(id)) continue;
    seen.add(id);
    keys.push(key);
  }
  slot.keys = keys;
}

/** What EXPLAIN ANALYZE says of a scan's key lookup. */
export function keyLookupLabel(slot: KeyLookupSlot): string | undefined {
  if (slot.keys !== undefined) return `${slot.keys.length.toLocaleString('en-US')} key${slot.keys.length === 1 ? '' : 's'}`;
  if (slot.tooMany !== undefined) return `not applied (${slot.tooMany.toLocaleString('en-US')} build rows > ${KEY_LOOKUP_MAX_KEYS.toLocaleString('en-US')})`;
  return undefined;
}
