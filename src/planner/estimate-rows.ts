import type { Expr } from '../exec/expr/expr.js';
import { conjuncts } from './expr-utils.js';
import { provenByScan } from './rules/push-filter-into-scan.js';
import type { LogicalPlan } from './logical/logical-plan.js';
import { coversPrimaryKey } from './column-origin.js';
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

/** A LIKE pattern keeps a twentieth (TPC-H's '%green%' keeps 5% of part), NOT LIKE the rest. */
const LIKE_SELECTIVITY = 0.05;

function conjunctSelectivity(c: Expr): number {
  if (c.kind === 'call' && c.fn.startsWith('=(')) return 0.1;
  if (c.kind === 'like') return c.negated ? 1 - LIKE_SELECTIVITY : LIKE_SELECTIVITY;
  return 1 / 3;
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
      let s = selectivity(p.residual);
      for (const f of p.filters) if (provenByScan(f, p)) s *= f.op === '=' ? 0.1 : 1 / 3;
      const rows = base * Math.max(s, 1e-4);
      return p.limit === undefined ? rows : Math.min(rows, p.limit);
    }
    case 'values': return p.rows.length;
    case 'cteScan': return p.rowEstimate;
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
          return keyed === Infinity ? Math.max(l, r) : keyed;
        }
      }
    }
    case 'setOp': return estimateRows(p.left) + estimateRows(p.right);
    case 'project': case 'sort': case 'window': case 'projectSet':
    case 'insert': case 'update': case 'delete': case 'merge':
      return estimateRows(p.input);
  }
}
