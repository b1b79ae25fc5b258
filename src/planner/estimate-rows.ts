import type { Expr, ScanFilterSpec } from '../exec/index.js';
import { conjuncts } from './expr-utils.js';
import { provenByScan } from './rules/push-filter-into-scan.js';
import type { LogicalPlan } from './logical/logical-plan.js';
import type { LogicalProjectSet } from './logical/logical-project-set.js';
import type { ScanTable } from './logical/scan-table.js';
import { coversPrimaryKey, originOf } from './column-origin.js';
import { equiColumns } from './rules/join-sides.js';

/** What a table or relation of unknown size is taken to hold. */
const UNKNOWN_ROWS = 1000;

/**
 * Fraction of rows a predicate keeps, by the classic fixed guesses (no
 * histograms yet): an equality keeps 10%, anything else a third, and each
 * further conjunct multiplies in.
 */
function selectivity(predicate: Expr | undefined): number {
  if (predicate === undefined) return 1;
  let s = 1;
  for (const c of conjuncts(predicate)) s *= conjunctSelectivity(c);
  return Math.max(s, 1e-4);
}

/** A LIKE pattern keeps a twentieth (a '%word%' over generated names kept 5%), NOT LIKE the rest. */
const LIKE_SELECTIVITY = 0.05;

function conjunctSelectivity(c: Expr): number {
  if (c.kind === 'call' && c.fn.startsWith('=(')) return 0.1;
  if (c.kind === 'like') return c.negated ? 1 - LIKE_SELECTIVITY : LIKE_SELECTIVITY;
  if (c.kind === 'inList') return c.negated ? 1 - inListSelectivity(c.list.length) : inListSelectivity(c.list.length);
  // Branches taken as independent: three brand/container/size branches over a part table keep
  // about 3% of part, where a flat third made part look larger than lineitem's share.
  if (c.kind === 'or') return 1 - c.args.reduce((keep, branch) => keep * (1 - selectivity(branch)), 1);
  return 1 / 3;
}

/** An IN list keeps what its equalities would, each 10%, up to a half. */
function inListSelectivity(n: number): number {
  return Math.min(0.5, 0.1 * n);
}

/** A value as a finite number (ints, int8, numeric text, days, microseconds); undefined otherwise. */
export function finiteNumberOf(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : typeof v === 'string' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Share of rows the scan's exact filters keep. Range bounds on a column whose span
 * the table's statistics give keep the part of the span between them (uniform
 * values assumed): three months of a seven-year order date keep 4% of orders, where
 * the fixed guess of a third per bound said 11% and built a hash table on all of
 * customer instead. Other filters keep the fixed guesses (equality 10%, else a third).
 */
function scanFilterSelectivity(filters: readonly ScanFilterSpec[], ranges: ScanTable['columnRanges']): number {
  let s = 1;
  const bounds = new Map<string, { lo: number; hi: number }>();
  for (const f of filters) {
    const span = ranges?.[f.column];
    const v = finiteNumberOf(f.value);
    if (span !== undefined && span[1] > span[0] && v !== undefined && (f.op === '<' || f.op === '<=' || f.op === '>' || f.op === '>=')) {
      const b = bounds.get(f.column) ?? { lo: span[0], hi: span[1] };
      if (f.op === '>' || f.op === '>=') b.lo = Math.max(b.lo, v);
      else b.hi = Math.min(b.hi, v);
      bounds.set(f.column, b);
      continue;
    }
    s *= f.op === '=' ? 0.1 : f.op === 'in' ? inListSelectivity(f.values?.length ?? 3) : 1 / 3;
  }
  for (const [column, b] of bounds) {
    const [min, max] = ranges![column]!;
    s *= Math.min(1, Math.max(0, b.hi - b.lo) / (max - min));
  }
  return s;
}

/**
 * When `side` is one table (filtered, projected) joined on its whole primary key,
 * each row of the other side meets at most one of its rows: the share of the
 * table's rows the side keeps, else undefined.
 */
function keyedShare(side: LogicalPlan, columns: readonly number[], sideRows: number): number | undefined {
  const origin = coversPrimaryKey(side, columns);
  if (origin === undefined || origin.path !== '') return undefined;
  const tableRows = origin.scan.table.rowEstimate;
  return tableRows === undefined || tableRows <= 0 ? undefined : Math.min(1, sideRows / tableRows);
}

/** Rows each of a few rows is taken to find when it meets a table on a leading part of its key (an order's lines). */
const KEY_PREFIX_FANOUT = 10;

/** At most this many rows count as few for KEY_PREFIX_FANOUT. */
const FEW_ROWS = 1000;

/**
 * When `side` is one table (filtered, projected) joined on leading columns of its primary
 * key but not all of them, and the other side has few rows: KEY_PREFIX_FANOUT rows of the
 * table for each of them, else Infinity. A refresh term's handful of changed orders meets
 * order_line so, where "about the larger side" took the join for all of order_line and
 * built a hash table on each table joined after it.
 */
function keyPrefixRows(side: LogicalPlan, columns: readonly number[], otherRows: number): number {
  if (otherRows > FEW_ROWS || columns.length === 0) return Infinity;
  const origins = columns.map((c) => originOf(side, c));
  const first = origins[0];
  if (first === undefined || first.path !== '' || origins.some((o) => o?.scan !== first.scan || o.path !== '')) return Infinity;
  const key = first.scan.table.primaryKey;
  const held = new Set(origins.map((o) => o!.column));
  return key.length > 0 && held.has(key[0]!) ? otherRows * KEY_PREFIX_FANOUT : Infinity;
}

/**
 * A rough row count for a logical plan, from the tables' live row counts (the
 * binder's `rowEstimate`) and fixed selectivities. Only used to choose which
 * side of a join to build a hash table on, where being off by a small factor
 * costs little and being off by 100x (building on lineitem) costs seconds.
 */
export function estimateRows(p: LogicalPlan): number {
  switch (p.kind) {
    case 'scan': {
      const base = p.table.rowEstimate ?? UNKNOWN_ROWS;
      // The lake's filters count too: the ones it decides exactly are no longer in the
      // residual, and keep what the same conjunct kept there (equality 10%, else a third).
      const s = selectivity(p.residual) * scanFilterSelectivity(p.filters.filter((f) => provenByScan(f, p)), p.table.columnRanges);
      const rows = base * Math.max(s, 1e-4);
      return p.limit === undefined ? rows : Math.min(rows, p.limit);
    }
    case 'values': return p.rows.length;
    case 'cteScan': return p.rowEstimate ?? UNKNOWN_ROWS;
    case 'virtualScan': return UNKNOWN_ROWS;
    case 'filter': return estimateRows(p.input) * selectivity(p.predicate);
    case 'aggregate': return p.groupBy.length === 0 ? 1 : Math.max(1, estimateRows(p.input) / 10);
    case 'distinct': return Math.max(1, estimateRows(p.input) / 2);
    case 'limit': {
      const n = p.limit?.kind === 'literal' ? Number(p.limit.value) : NaN;
      const rows = estimateRows(p.input);
      return Number.isFinite(n) ? Math.min(rows, n) : rows;
    }
    case 'join': {
      const l = estimateRows(p.left);
      const r = estimateRows(p.right);
      switch (p.joinType) {
        case 'semi': case 'anti': return l * 0.5;
        case 'mark': return l;
        default: {
          if (p.condition === undefined) return l * r;
          if (p.joinType !== 'inner') return Math.max(l, r);
          // A join on one side's primary key keeps the other side's rows that find theirs
          // (lineitem ⋈ part filtered to 5%: 5% of lineitem); any other join about the larger side.
          const cols = equiColumns(p.condition, p.left.columns.length);
          const rightShare = keyedShare(p.right, cols.right, r);
          const leftShare = keyedShare(p.left, cols.left, l);
          const keyed = Math.min(rightShare === undefined ? Infinity : l * rightShare, leftShare === undefined ? Infinity : r * leftShare);
          if (keyed !== Infinity) return keyed;
          return Math.min(Math.max(l, r), keyPrefixRows(p.right, cols.right, l), keyPrefixRows(p.left, cols.left, r));
        }
      }
    }
    case 'setOp': return estimateRows(p.left) + estimateRows(p.right);
    // Unknown until run: a recursive query's depth, a lateral side's rows per input row.
    case 'recursiveUnion': case 'workTableScan': return UNKNOWN_ROWS;
    case 'lateralJoin': return estimateRows(p.input) * (p.joinType === 'left' ? 1 : 2);
    case 'projectSet': return estimateRows(p.input) * seriesLength(p.exprs);
    case 'project': case 'sort': case 'window':
    case 'insert': case 'update': case 'delete': case 'merge':
      return estimateRows(p.input);
  }
}

/**
 * Rows a ProjectSet makes of each input row, when a set call is generate_series
 * over integer constants (the only length known before running); 1 otherwise.
 */
function seriesLength(exprs: LogicalProjectSet['exprs']): number {
  let most = 1;
  for (const e of exprs) {
    if (e.kind !== 'setCall' || !e.fn.startsWith('generate_series(int')) continue;
    const [a, b, step] = e.args.map((x) => (x.kind === 'literal' && (typeof x.value === 'number' || typeof x.value === 'bigint') ? Number(x.value) : undefined));
    const by = e.args.length === 3 ? step : 1;
    if (a === undefined || b === undefined || by === undefined || by === 0) continue;
    most = Math.max(most, Math.floor((b - a) / by) + 1);
  }
  return most;
}
