import { randomUUID } from 'node:crypto';
import type { SqlType } from '../../common/sql-type.js';
import { IntHashTable } from './joins/int-hash-table.js';
import { int32Values } from './int32-column.js';
import { IntKeySet } from './joins/int-key-set.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { Expr } from '../expr/expr.js';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { planAtPath } from '../plan/physical-plan.js';
import type { JoinType, LakeScanPlan, PhysicalPlan, RuntimeFilterTargetSpec } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';

/**
 * Runtime join filters ("sideways information passing"): once a hash join has
 * built its table, the distinct build keys become a set filter on the lake
 * scans that feed its probe side, evaluated in the scan workers, so probe rows
 * that cannot find a partner never reach this thread.
 *
 * A filter is only an optimisation: a scan that ignores it (in-thread tasks,
 * tasks launched before it was installed) still returns a correct superset.
 */

/** How values compare: int-like as JS numbers (int8 normalised), text as is. */
export type RuntimeFilterKind = 'int' | 'string';

/** One set filter on one scan column, plain data so it travels with scan tasks. */
export interface RuntimeFilter {
  /** Unique per build, so a worker builds the Set once and reuses it for the query's other tasks. */
  readonly id: string;
  /** Index into the scan's columns (and so into a decoded scan batch). */
  readonly column: number;
  readonly kind: RuntimeFilterKind;
  readonly values: Float64Array | readonly string[];
}

/**
 * Where a hash join puts a filter for one scan: created when the join starts
 * (so the probe subtree's run can see it), filled after the build.
 */
export interface RuntimeFilterSlot {
  filter?: RuntimeFilter;
  /** For EXPLAIN ANALYZE: "l_partkey IN (…)". */
  readonly columnName: string;
}

/** A scan column a join key reaches through row-preserving nodes. */
export interface RuntimeFilterTarget {
  readonly scan: LakeScanPlan;
  readonly column: number;
  /** Which of the join's key columns it filters by. */
  readonly key: number;
}

/** Builds with more distinct keys than this get no filter (shipping and hashing them costs more than it saves). */
export const RUNTIME_FILTER_MAX_KEYS = 1_000_000;

/** Session setting that turns runtime filters off (`SET floe.runtime_filters = off`). */
export const RUNTIME_FILTERS_SETTING = 'floe.runtime_filters';

/** Session setting overriding RUNTIME_FILTER_MAX_KEYS (a tuning knob, and how tests reach the cap). */
export const RUNTIME_FILTER_MAX_KEYS_SETTING = 'floe.runtime_filter_max_keys';

export function runtimeFilterMaxKeys(run: RunState): number {
  // Unset or reset to its default (''), the setting means the built-in cap.
  const raw = run.evalCtx.settings.get(RUNTIME_FILTER_MAX_KEYS_SETTING)?.trim();
  const v = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isInteger(v) && v >= 0 ? v : RUNTIME_FILTER_MAX_KEYS;
}

export function runtimeFiltersEnabled(run: RunState): boolean {
  const v = run.evalCtx.settings.get(RUNTIME_FILTERS_SETTING)?.trim().toLowerCase();
  return !(v === 'off' || v === 'false' || v === '0' || v === 'no' || v === 'f' || v === 'n');
}

const INT_KINDS = new Set<SqlType['kind']>(['int2', 'int4', 'int8']);
const TEXT_KINDS = new Set<SqlType['kind']>(['text', 'varchar', 'name']);

/** The filter kind for a key compared as `a = b`, or undefined when the types are not supported (bpchar, numeric, float, …). */
export function runtimeFilterKind(a: SqlType, b: SqlType): RuntimeFilterKind | undefined {
  if (INT_KINDS.has(a.kind) && INT_KINDS.has(b.kind)) return 'int';
  if (a.kind === 'date' && b.kind === 'date') return 'int';
  if (TEXT_KINDS.has(a.kind) && TEXT_KINDS.has(b.kind)) return 'string';
  return undefined;
}

/** The filter kind a scan column of type `t` can take. */
export function runtimeFilterColumnKind(t: SqlType): RuntimeFilterKind | undefined {
  if (INT_KINDS.has(t.kind) || t.kind === 'date') return 'int';
  if (TEXT_KINDS.has(t.kind)) return 'string';
  return undefined;
}

/** Join types that drop probe (left) rows without a partner, so dropping them earlier changes nothing. */
export function dropsUnmatchedProbeRows(jt: JoinType): boolean {
  return jt === 'inner' || jt === 'semi' || jt === 'right';
}

/** Join types that drop build (right) rows without a partner (mark joins read the build's NULL keys and emptiness). */
export function dropsUnmatchedBuildRows(jt: JoinType): boolean {
  return jt === 'inner' || jt === 'left' || jt === 'semi' || jt === 'anti';
}

/**
 * The scans a planned target list names under `side` (one input of a hash join),
 * each found by following its path through planInputs. A path that does not end
 * at a lake scan whose column has the key's filter kind is the planner's error (XX000).
 */
export function resolveRuntimeFilterTargets(
  side: PhysicalPlan, specs: readonly RuntimeFilterTargetSpec[], keys: readonly Expr[], otherKeys: readonly Expr[],
): RuntimeFilterTarget[] {
  return specs.map((spec) => {
    const node = planAtPath(side, spec.path);
    if (node === undefined) throw new FloeError(SqlState.internalError, 'runtime filter target path leaves the plan');
    const kind = keys[spec.key] && otherKeys[spec.key] ? runtimeFilterKind(keys[spec.key]!.type, otherKeys[spec.key]!.type) : undefined;
    const c = node.kind === 'lakeScan' ? node.columns[spec.column] : undefined;
    if (node.kind !== 'lakeScan' || c === undefined || kind === undefined || runtimeFilterColumnKind(c.type) !== kind) {
      throw new FloeError(SqlState.internalError, 'runtime filter target is not a lake scan column of the key\'s kind');
    }
    return { scan: node, column: spec.column, key: spec.key };
  });
}

/**
 * The distinct non-NULL values of one build key column as a filter, or
 * undefined past `maxKeys` or for an int8 beyond 2^53 (kept exact by not filtering).
 */
export function buildRuntimeFilter(
  values: Iterable<unknown>, kind: RuntimeFilterKind, column: number, maxKeys = RUNTIME_FILTER_MAX_KEYS, distinctKnown = false,
): RuntimeFilter | undefined {
  if (kind === 'int') {
    const out = intValues(values);
    if (out === undefined) return undefined;
    return intRuntimeFilter(distinctKnown ? out : distinctInts(out), column, maxKeys);
  }
  const set = new Set<string>();
  for (const v of values) {
    if (v === null || v === undefined) continue;
    if (typeof v !== 'string') return undefined;
    set.add(v);
    if (set.size > maxKeys) return undefined;
  }
  return { id: randomUUID(), column, kind, values: [...set] };
}

/**
 * An int runtime filter over distinct numbers (a join table's keys), or undefined past
 * `maxKeys`. The keys live in shared memory: each scan task's message to a worker then
 * carries a view of them, where an ordinary buffer was copied into every task (a join's
 * 730k order keys, 5.8 MB, 2-6 ms of this thread a task).
 */
export function intRuntimeFilter(distinct: Float64Array | readonly number[], column: number, maxKeys = RUNTIME_FILTER_MAX_KEYS): RuntimeFilter | undefined {
  if (distinct.length > maxKeys) return undefined;
  const values = new Float64Array(new SharedArrayBuffer(distinct.length * Float64Array.BYTES_PER_ELEMENT));
  values.set(distinct);
  return { id: randomUUID(), column, kind: 'int', values };
}

/**
 * The non-NULL values as numbers (-0 as 0), or undefined when one is not a safe
 * integer's number. Typed, like what is made of them: a JS array pushed to value by
 * value was this thread's largest allocation across a 22-query analytic benchmark.
 */
function intValues(values: Iterable<unknown>): Float64Array | undefined {
  // An array (a composite join's key column: 800k build rows) is read by index:
  // for…of allocated an iterator result per value there.
  const list = Array.isArray(values) ? values : [...values];
  const out = new Float64Array(list.length);
  let n = 0;
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (v === null || v === undefined) continue;
    if (typeof v === 'number') out[n++] = v === 0 ? 0 : v;
    else if (typeof v === 'bigint' && v >= -9007199254740991n && v <= 9007199254740991n) out[n++] = Number(v);
    else return undefined;
  }
  return out.subarray(0, n);
}

/** Dense ranges (generated surrogate keys) wider than this many bits per value dedupe through a table instead of a bitmap. */
const BITMAP_SPREAD = 16;

/** The distinct values in first-seen order: a bitmap over [min, max] when the values are dense integers, else a typed hash table. */
function distinctInts(values: Float64Array): Float64Array {
  const n = values.length;
  if (n === 0) return values;
  let min = Infinity;
  let max = -Infinity;
  let integral = true;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
    if (!Number.isInteger(v)) integral = false;
  }
  const out = new Float64Array(n);
  let m = 0;
  const range = max - min + 1;
  if (integral && range <= n * BITMAP_SPREAD && range <= 1 << 28) {
    const seen = new Uint8Array(Math.ceil(range / 8));
    for (let i = 0; i < n; i++) {
      const v = values[i]!;
      const o = v - min;
      const bit = 1 << (o & 7);
      const byte = o >>> 3;
      if ((seen[byte]! & bit) !== 0) continue;
      seen[byte] = seen[byte]! | bit;
      out[m++] = v;
    }
    return out.subarray(0, m);
  }
  const seen = new IntHashTable(Math.min(n, 1 << 20));
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (seen.push(v, 0) === -1) out[m++] = v;
  }
  return out.subarray(0, m);
}

/** A filter's set as built in one thread, and whether it still earns its keep there. */
interface ActiveFilter {
  readonly set: IntKeySet | Set<string>;
  checked: number;
  removed: number;
  off: boolean;
}

/** Sets built in this thread, by filter id: a query's tasks share them. */
const active = new Map<string, ActiveFilter>();

/** After this many rows, a filter removing less than MIN_REMOVED_SHARE of them stops being applied in this thread. */
const ADAPT_AFTER_ROWS = 100_000;
const MIN_REMOVED_SHARE = 0.05;

function activeFilter(f: RuntimeFilter): ActiveFilter {
  let a = active.get(f.id);
  if (!a) {
    if (active.size >= 16) active.delete(active.keys().next().value!);
    const set = f.kind === 'int' ? new IntKeySet(f.values as Float64Array) : new Set<string>(f.values as readonly string[]);
    a = { set, checked: 0, removed: 0, off: false };
    active.set(f.id, a);
  }
  return a;
}

/**
 * Rows of `b` that pass every filter: undefined when all pass, else the kept row
 * indexes (possibly none). `removed` counts what the filters dropped.
 */
export function runtimeFilterSelection(b: ColumnarBatch, filters: readonly RuntimeFilter[], stats: { removed: number }): Int32Array | undefined {
  let sel: Int32Array | undefined;
  for (const f of filters) {
    const a = activeFilter(f);
    if (a.off) continue;
    const n = sel ? sel.length : b.numRows;
    const keep = new Int32Array(n);
    let k = 0;
    // int4 without NULLs straight from its Arrow buffer (through the rows a scan filter
    // kept, when it did): the column is neither decoded nor gathered here.
    const ints = f.kind === 'int' ? int32Values(b, f.column) : undefined;
    if (ints) {
      k = (a.set as IntKeySet).selectInt32(ints.values, ints.rows, sel, n, keep);
    } else if (f.kind === 'int') {
      const col = b.columns[f.column]!;
      const set = a.set as IntKeySet;
      for (let j = 0; j < n; j++) {
        const i = sel ? sel[j]! : j;
        const v = col[i];
        if (typeof v === 'number') { if (set.has(v)) keep[k++] = i; }
        // int8 arrives as bigint; one beyond 2^53 cannot equal a (safe) set member.
        else if (typeof v === 'bigint' && v >= -9007199254740991n && v <= 9007199254740991n && set.has(Number(v))) keep[k++] = i;
      }
    } else {
      const col = b.columns[f.column]!;
      const set = a.set as Set<string>;
      for (let j = 0; j < n; j++) {
        const i = sel ? sel[j]! : j;
        const v = col[i];
        if (typeof v === 'string' && set.has(v)) keep[k++] = i;
      }
    }
    a.checked += n;
    a.removed += n - k;
    stats.removed += n - k;
    if (a.checked >= ADAPT_AFTER_ROWS && a.removed < a.checked * MIN_REMOVED_SHARE) a.off = true;
    if (k === n && sel === undefined) continue;
    sel = keep.subarray(0, k);
    if (k === 0) break;
  }
  return sel;
}

/** The filters installed so far in `slots`. */
export function installedFilters(slots: readonly RuntimeFilterSlot[] | undefined): RuntimeFilter[] {
  const out: RuntimeFilter[] = [];
  for (const s of slots ?? []) if (s.filter) out.push(s.filter);
  // Smallest sets first: usually the most selective, so later filters see fewer rows.
  return out.sort((a, b) => a.values.length - b.values.length);
}

/**
 * Whether an int filter's keys are every integer from their least to their
 * greatest and `range`, the [min, max] of a column of `type` (int2/int4/int8;
 * dates are not compared), lies within: then no row of that column can miss the
 * keys and the filter would only cost time (a join of all 150k customer keys against
 * the orders' customer column).
 */
export function coversRange(f: RuntimeFilter, type: SqlType, range: readonly [number, number] | undefined): boolean {
  if (range === undefined || f.kind !== 'int' || !INT_KINDS.has(type.kind) || f.values.length === 0) return false;
  const v = f.values as Float64Array;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    if (!Number.isInteger(x)) return false;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  // The keys are distinct: as many as the span holds means every integer in it.
  return hi - lo + 1 === v.length && lo <= range[0] && range[1] <= hi;
}

/** EXPLAIN ANALYZE text for a scan's installed filters; `covering`: those left out because their keys cover the column's range. */
export function runtimeFilterLabel(slots: readonly RuntimeFilterSlot[], covering?: (f: RuntimeFilter) => boolean): string | undefined {
  const parts: string[] = [];
  for (const s of slots) {
    if (!s.filter) continue;
    const skipped = covering?.(s.filter) ? ' (keys cover the column\'s range: not applied)' : '';
    parts.push(`${s.columnName} IN (${s.filter.values.length.toLocaleString('en-US')} keys from Hash Join)${skipped}`);
  }
  return parts.length === 0 ? undefined : parts.join(', ');
}

/** Schema metadata key under which a worker reports the rows its runtime filters removed from a task. */
export const RUNTIME_FILTER_REMOVED_KEY = 'floe.runtime_filter_removed';
