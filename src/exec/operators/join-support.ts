import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { CompiledExpr } from '../expr/compile-expr.js';
import type { JoinType, OutputColumn } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';

/** The materialized build side of a join. */
export interface BuildSide {
  readonly columns: unknown[][];
  readonly numRows: number;
}

/** Output width checks shared by hash and nested-loop joins. */
export function expectedJoinWidth(joinType: JoinType, left: number, right: number): number {
  if (joinType === 'semi' || joinType === 'anti') return left;
  if (joinType === 'mark') return left + 1;
  return left + right;
}

/**
 * Evaluates a residual/condition over candidate pairs (left row li[k] with right
 * row ri[k]) as one batch of left ++ right columns; returns the per-pair result.
 */
export async function evalPairs(
  cond: CompiledExpr, probe: ColumnarBatch, build: BuildSide, li: readonly number[], ri: readonly number[], run: RunState,
): Promise<unknown[]> {
  const n = li.length;
  const cols: unknown[][] = [];
  for (const c of probe.columns) { const o = new Array<unknown>(n); for (let k = 0; k < n; k++) o[k] = c[li[k]!]; cols.push(o); }
  for (const c of build.columns) { const o = new Array<unknown>(n); for (let k = 0; k < n; k++) o[k] = c[ri[k]!]; cols.push(o); }
  return cond.evaluate({ numRows: n, columns: cols }, run);
}

/**
 * Assembles join output for one probe batch: matched pairs, then (left/full)
 * unmatched probe rows padded with NULLs, or (semi/anti/mark) probe rows alone.
 */
export class JoinOutput {
  cols: unknown[][];
  n = 0;
  constructor(readonly columns: readonly OutputColumn[]) {
    this.cols = columns.map(() => []);
  }
  pair(probe: ColumnarBatch, i: number, build: BuildSide | undefined, j: number | undefined, leftWidth: number, rightWidth: number): void {
    for (let c = 0; c < leftWidth; c++) this.cols[c]!.push(i < 0 ? null : probe.columns[c]![i]);
    for (let c = 0; c < rightWidth; c++) this.cols[leftWidth + c]!.push(j === undefined || !build ? null : build.columns[c]![j]);
    this.n++;
  }
  leftOnly(probe: ColumnarBatch, i: number, leftWidth: number, mark?: boolean | null): void {
    for (let c = 0; c < leftWidth; c++) this.cols[c]!.push(probe.columns[c]![i]);
    if (mark !== undefined) this.cols[leftWidth]!.push(mark);
    this.n++;
  }
  rightOnly(build: BuildSide, j: number, leftWidth: number, rightWidth: number): void {
    for (let c = 0; c < leftWidth; c++) this.cols[c]!.push(null);
    for (let c = 0; c < rightWidth; c++) this.cols[leftWidth + c]!.push(build.columns[c]![j]);
    this.n++;
  }
  /** Starts fresh arrays: emitted batches keep (and the decode cache shares) the old ones. */
  reset(): void {
    this.cols = this.columns.map(() => []);
    this.n = 0;
  }
}
