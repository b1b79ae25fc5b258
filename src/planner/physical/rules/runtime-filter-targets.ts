import type { Expr } from '../../../exec/index.js';
import type { HashJoinPlan, KeyLookupSpec, PhysicalPlan, RuntimeFilterTargetSpec } from '../../../exec/index.js';
import { planInputs } from '../../../exec/index.js';
import {
  dropsUnmatchedBuildRows, dropsUnmatchedProbeRows, runtimeFilterColumnKind, runtimeFilterKind, type RuntimeFilterKind,
} from '../../../exec/index.js';
import type { PhysicalRule } from '../physical-rule.js';

/**
 * Runtime join filters: which lake scans a hash join's keys can filter once one side
 * is known. `probe`: scans under the left input each key of the join can filter with
 * the built keys (joins that drop probe rows without a partner). `build`: scans under
 * the right input a small left input's keys can filter when the left holds the table
 * (joins that drop build rows without a partner).
 *
 * A key column is followed down through nodes where "the consumer only needs rows whose
 * column is in S and not NULL" can move below them: Filter, Sort, Project (a plain column
 * reference), a hash aggregate's plain GROUP BY column, and either side of a nested hash
 * join — plus, across that join's own `=` key, to the other side (its partner rows must
 * hold an equal value). Scans with a LIMIT, and scans the subtree reaches more than once
 * (a shared plan node, a subquery), are left out.
 */
function apply(node: PhysicalPlan): PhysicalPlan {
  if (node.kind !== 'hashJoin') return node;
  const probeFound = dropsUnmatchedProbeRows(node.joinType) ? targetsOf(node.left, node.leftKeys, node.rightKeys, node.nullEquals) : [];
  const build = dropsUnmatchedBuildRows(node.joinType) ? targetsOf(node.right, node.rightKeys, node.leftKeys, node.nullEquals).map(spec) : [];
  const probe = probeFound.map(spec);
  const lookups = keyLookups(probeFound);
  const decided = probe.length === 0 && build.length === 0 ? undefined : { probe, build, ...(lookups.length > 0 ? { lookups } : {}) };
  if (JSON.stringify(decided) === JSON.stringify(node.runtimeFilters)) return node;
  const { runtimeFilters: _old, ...rest } = node;
  return decided === undefined ? rest : { ...rest, runtimeFilters: decided };
}

interface Found {
  readonly scan: PhysicalPlan;
  readonly path: readonly number[];
  readonly column: number;
}

type FoundTarget = RuntimeFilterTargetSpec & { readonly scan: PhysicalPlan };

const spec = ({ path, column, key }: FoundTarget): RuntimeFilterTargetSpec => ({ path, column, key });

/**
 * Scans whose every primary-key column is a target: a row of such a scan reaches the
 * join's output only with its key's columns equal to the join keys that reach them (each
 * step of `follow` keeps a column's value), so its full key is one of the build's key tuples.
 */
function keyLookups(found: readonly FoundTarget[]): KeyLookupSpec[] {
  const out: KeyLookupSpec[] = [];
  const seen = new Set<PhysicalPlan>();
  for (const t of found) {
    const scan = t.scan;
    if (scan.kind !== 'lakeScan' || scan.primaryKey === undefined || seen.has(scan)) continue;
    seen.add(scan);
    const keys = scan.primaryKey.map((c) => found.find((x) => x.scan === scan && x.column === c)?.key);
    if (keys.every((k) => k !== undefined)) out.push({ path: t.path, keys: keys as number[] });
  }
  return out;
}

function targetsOf(side: PhysicalPlan, keys: readonly Expr[], otherKeys: readonly Expr[], nullEquals: readonly boolean[] | undefined): FoundTarget[] {
  const out: FoundTarget[] = [];
  for (let k = 0; k < keys.length; k++) {
    if (nullEquals?.[k]) continue;
    const mine = keys[k]!;
    const kind = runtimeFilterKind(mine.type, otherKeys[k]!.type);
    const column = valueKeepingColumn(mine);
    if (kind === undefined || column === undefined) continue;
    const found: Found[] = [];
    follow(side, [], column, kind, found, 0);
    for (const f of found) {
      if (!out.some((o) => o.scan === f.scan && o.column === f.column)) out.push({ scan: f.scan, path: f.path, column: f.column, key: k });
    }
  }
  if (out.length === 0) return [];
  const counts = occurrences(side, new Set(out.map((t) => t.scan)));
  return out.filter((t) => counts.get(t.scan) === 1);
}

const WIDER_INTS: Readonly<Record<string, readonly string[]>> = { int2: ['int2', 'int4', 'int8'], int4: ['int4', 'int8'], int8: ['int8'] };

/**
 * The input column a join key is, itself or through a cast that keeps every value as it
 * is (an integer widened, `int4_col::int8` where the other side is bigint; text as text):
 * "key in S" is then "column in S" under the filter's comparison (ints as numbers).
 */
function valueKeepingColumn(e: Expr): number | undefined {
  if (e.kind === 'column') return e.index;
  if (e.kind !== 'cast' || e.arg.kind !== 'column') return undefined;
  const from = e.arg.type.kind;
  const to = e.type.kind;
  if (WIDER_INTS[from]?.includes(to)) return e.arg.index;
  return (from === 'text' || from === 'varchar') && to === 'text' ? e.arg.index : undefined;
}

const MAX_DEPTH = 32;

function follow(node: PhysicalPlan, path: readonly number[], col: number, kind: RuntimeFilterKind, out: Found[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  // Inputs by their index in planInputs: [input] for one-input nodes, [left, right] for joins.
  const into = (i: number, c: number): void => follow(planInputs(node)[i]!, [...path, i], c, kind, out, depth + 1);
  switch (node.kind) {
    case 'lakeScan': {
      const c = node.columns[col];
      // A LIMIT picks rows before the join would: filtering first would pick others.
      if (c && node.limit === undefined && runtimeFilterColumnKind(c.type) === kind) out.push({ scan: node, path, column: col });
      return;
    }
    case 'filter': case 'sort':
      into(0, col);
      return;
    case 'project': {
      const e = node.exprs[col];
      if (e?.kind === 'column') into(0, e.index);
      return;
    }
    case 'hashAggregate': {
      // A filter on a group key commutes with the aggregate (one group per key value).
      if (node.groupingSets !== undefined || col >= node.groupBy.length) return;
      const e = node.groupBy[col]!;
      if (e.kind === 'column') into(0, e.index);
      return;
    }
    case 'hashJoin': {
      const lw = node.left.columns.length;
      if (col < lw) {
        into(0, col);
        crossKey(node, node.leftKeys, node.rightKeys, col, kind, (c) => into(1, c));
        return;
      }
      // semi/anti output only left columns; mark's extra column is the mark.
      if (node.joinType === 'semi' || node.joinType === 'anti' || node.joinType === 'mark') return;
      const rc = col - lw;
      into(1, rc);
      crossKey(node, node.rightKeys, node.leftKeys, rc, kind, (c) => into(0, c));
      return;
    }
    default:
      return;
  }
}

/**
 * A nested join's `=` key pairing column `col` of one side with a plain column of
 * the other: rows of the other side whose value is outside the set can only pair
 * with rows the consumer drops (or go unmatched and be NULL-padded, then dropped
 * for their NULL key), whatever the join type.
 */
function crossKey(node: HashJoinPlan, mine: readonly Expr[], theirs: readonly Expr[], col: number, kind: RuntimeFilterKind, go: (c: number) => void): void {
  for (let i = 0; i < mine.length; i++) {
    if (node.nullEquals?.[i]) continue;
    const a = mine[i]!;
    const b = theirs[i]!;
    if (a.kind !== 'column' || a.index !== col || b.kind !== 'column') continue;
    if (runtimeFilterKind(a.type, b.type) !== kind) continue;
    go(b.index);
  }
}

/** How many times each of `scans` occurs under `root`, subquery plans included (plans are plain data). */
function occurrences(root: PhysicalPlan, scans: ReadonlySet<PhysicalPlan>): Map<PhysicalPlan, number> {
  const counts = new Map<PhysicalPlan, number>();
  const seen = new Set<object>();
  const visit = (v: unknown): void => {
    if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) return;
    if (scans.has(v as PhysicalPlan)) counts.set(v as PhysicalPlan, (counts.get(v as PhysicalPlan) ?? 0) + 1);
    // A node shared within the tree is reached again through each parent: count it, but walk it once.
    if (seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) { for (const x of v) visit(x); return; }
    for (const x of Object.values(v)) visit(x);
  };
  visit(root);
  return counts;
}

export const runtimeFilterTargets: PhysicalRule = { name: 'runtime-filter-targets', apply };
