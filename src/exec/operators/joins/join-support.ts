import { columnSource } from '../../arrow/columnar-batch.js';
import { selectColumn, valuesColumn } from '../../arrow/column-source.js';
import type { ColumnarBatch } from '../../arrow/columnar-batch.js';
import type { ColumnSource } from '../../arrow/column-source.js';
import type { CompiledExpr } from '../../expr/compile-expr.js';
import type { Expr } from '../../expr/expr.js';
import { exprChildren } from '../../expr/expr.js';
import type { JoinType } from '../../plan/physical-plan.js';
import type { RunState } from '../../run-state.js';
import { BATCH_ROWS, emitBatches } from '../operator-support.js';

/** The materialized build side of a join. */
export interface BuildSide {
  readonly columns: readonly (readonly unknown[])[];
  readonly numRows: number;
}

/** Output width checks shared by hash and nested-loop joins. */
export function expectedJoinWidth(joinType: JoinType, left: number, right: number): number {
  if (joinType === 'semi' || joinType === 'anti') return left;
  if (joinType === 'mark') return left + 1;
  return left + right;
}

/**
 * Which columns of `left ++ right` a join condition reads, or undefined for all
 * (a subquery inside may read the whole pair as its outer row).
 */
export function columnsUsed(e: Expr): Set<number> | undefined {
  const used = new Set<number>();
  const walk = (x: Expr): boolean => {
    if (x.kind === 'scalarSubquery' || x.kind === 'exists' || x.kind === 'inSubquery') return false;
    if (x.kind === 'column') used.add(x.index);
    return exprChildren(x).every(walk);
  };
  return walk(e) ? used : undefined;
}

const UNUSED: unknown[] = [];

/**
 * Evaluates a residual/condition over candidate pairs k in [start, end) (left row
 * li[k] with right row ri[k]) as one batch of left ++ right columns; only the
 * columns in `used` (all when undefined) are gathered.
 */
export async function evalPairs(
  cond: CompiledExpr, probe: ColumnarBatch, build: BuildSide, li: Int32Array, ri: Int32Array, start: number, end: number,
  run: RunState, used?: ReadonlySet<number>,
): Promise<unknown[]> {
  const n = end - start;
  const cols: unknown[][] = [];
  const lw = probe.columns.length;
  for (let c = 0; c < lw; c++) cols.push(used && !used.has(c) ? UNUSED : gather(probe.columns[c]!, li, start, end));
  for (let c = 0; c < build.columns.length; c++) cols.push(used && !used.has(lw + c) ? UNUSED : gather(build.columns[c]!, ri, start, end));
  return cond.evaluate({ numRows: n, columns: cols }, run);
}

/** src[idx[k]] for k in [start, end); a negative index reads NULL. */
function gather(src: readonly unknown[], idx: Int32Array, start: number, end: number): unknown[] {
  const out = new Array<unknown>(end - start);
  for (let k = start; k < end; k++) {
    const i = idx[k]!;
    out[k - start] = i < 0 ? null : src[i];
  }
  return out;
}

/** A growable pair of row-index arrays (left, right), -1 meaning "no row: NULLs". */
export class PairBuffer {
  li = new Int32Array(1024);
  ri = new Int32Array(1024);
  n = 0;
  push(i: number, j: number): void {
    if (this.n === this.li.length) {
      const li = new Int32Array(this.n * 2); li.set(this.li); this.li = li;
      const ri = new Int32Array(this.n * 2); ri.set(this.ri); this.ri = ri;
    }
    this.li[this.n] = i;
    this.ri[this.n++] = j;
  }
  clear(): void { this.n = 0; }
}

/**
 * Join output state shared by the hash and nested-loop joins: the verdict of each
 * candidate pair, the per-probe-row bookkeeping (matched, saw a NULL verdict) and
 * the rows each join type emits for them — matched pairs; then, per probe batch,
 * unmatched probe rows padded with NULLs (left/full), probe rows alone (semi,
 * anti) or with their mark (mark: IN's three-valued result); finally unmatched
 * build rows (right/full). Rows are kept as index pairs and gathered column by
 * column when a batch is emitted.
 */
export class JoinOutput {
  readonly #jt: JoinType;
  readonly #lw: number;
  readonly #rw: number;
  #build: BuildSide;
  readonly #rows = new PairBuffer();
  #marks: (boolean | null)[] = [];
  #probe: ColumnarBatch | undefined;
  #matched = new Uint8Array(0);
  #sawNull = new Uint8Array(0);
  /** Build rows that matched some probe row (right and full joins). */
  readonly #buildMatched: Uint8Array | undefined;
  /** Pairs a residual accepted (or no residual) are output pairs; semi/anti/mark only need the verdict. */
  readonly #emitPairs: boolean;

  constructor(joinType: JoinType, leftWidth: number, rightWidth: number, build: BuildSide) {
    this.#jt = joinType;
    this.#lw = leftWidth;
    this.#rw = rightWidth;
    this.#build = build;
    this.#buildMatched = joinType === 'right' || joinType === 'full' ? new Uint8Array(build.numRows) : undefined;
    this.#emitPairs = joinType !== 'semi' && joinType !== 'anti' && joinType !== 'mark';
  }

  /** Rows waiting to be emitted. */
  get pending(): number { return this.#rows.n; }

  /** Starts a probe batch; the previous one's rows must have been drained. */
  beginProbe(probe: ColumnarBatch): void {
    this.#probe = probe;
    if (this.#matched.length < probe.numRows) {
      this.#matched = new Uint8Array(probe.numRows);
      this.#sawNull = new Uint8Array(probe.numRows);
    } else {
      this.#matched.fill(0, 0, probe.numRows);
      this.#sawNull.fill(0, 0, probe.numRows);
    }
  }

  /**
   * Inner joins only: the rows pair a fixed left side (`beginProbe`) with a new
   * right batch; pending rows must have been drained.
   */
  useBuild(build: BuildSide): void {
    this.#build = build;
  }

  /** A probe row whose comparison was unknown (NULL key): a mark join yields NULL for it unless matched. */
  unknown(i: number): void { this.#sawNull[i] = 1; }

  /** Verdicts for candidate pairs k in [start, end): ok[k - start] (absent: all true). */
  accept(li: Int32Array, ri: Int32Array, start: number, end: number, ok?: readonly unknown[]): void {
    const matched = this.#matched;
    if (ok === undefined && !this.#emitPairs) {
      for (let k = start; k < end; k++) matched[li[k]!] = 1;
      return;
    }
    const bm = this.#buildMatched;
    for (let k = start; k < end; k++) {
      const r = ok === undefined ? true : ok[k - start];
      const i = li[k]!;
      if (r === true) {
        matched[i] = 1;
        if (!this.#emitPairs) continue;
        const j = ri[k]!;
        if (bm) bm[j] = 1;
        this.#rows.push(i, j);
      } else if (r === null) this.#sawNull[i] = 1;
    }
  }

  /**
   * Ends the probe batch: adds its unmatched (left/full, anti), matched (semi) or
   * marked (mark) rows. `allUnknown`: every unmatched row's mark is NULL (the build
   * side held a NULL key). `buildEmpty`: marks are false whatever the probe key.
   */
  endProbe(allUnknown = false, buildEmpty = false): void {
    const n = this.#probe!.numRows;
    const matched = this.#matched;
    switch (this.#jt) {
      case 'left': case 'full': case 'anti':
        for (let i = 0; i < n; i++) if (!matched[i]) this.#rows.push(i, -1);
        break;
      case 'semi':
        for (let i = 0; i < n; i++) if (matched[i]) this.#rows.push(i, -1);
        break;
      case 'mark':
        for (let i = 0; i < n; i++) {
          this.#rows.push(i, -1);
          this.#marks.push(matched[i] ? true : buildEmpty ? false : allUnknown || this.#sawNull[i] ? null : false);
        }
        break;
      default:
        break;
    }
  }

  /** Right/full joins: adds the build rows no probe row matched. */
  endBuild(): void {
    const bm = this.#buildMatched;
    if (!bm) return;
    for (let j = 0; j < bm.length; j++) if (!bm[j]) this.#rows.push(-1, j);
  }

  /** Emits the pending rows as record batches (gathered from the current probe batch and the build side). */
  *drain(): Generator<ColumnarBatch> {
    const n = this.#rows.n;
    if (n === 0) return;
    const { li, ri } = this.#rows;
    const cols: ColumnSource[] = [];
    const probe = this.#probe;
    // Probe columns nobody decoded move as Arrow data, unless a row is NULL-extended (index -1).
    let probeAll = probe !== undefined;
    for (let k = 0; k < n && probeAll; k++) if (li[k]! < 0) probeAll = false;
    // Every probe row once, in order (a 1:1 join keeping all rows): its columns pass through as they are.
    let probeSame = probe !== undefined && n === probe.numRows;
    for (let k = 0; k < n && probeSame; k++) if (li[k] !== k) probeSame = false;
    for (let c = 0; c < this.#lw; c++) {
      if (!probe) { cols.push(valuesColumn(new Array<unknown>(n).fill(null))); continue; }
      const src = columnSource(probe, c);
      if (probeSame) cols.push(src);
      else cols.push(src.kind !== 'values' && probeAll ? selectColumn(src, li.subarray(0, n)) : valuesColumn(gather(probe.columns[c]!, li, 0, n)));
    }
    if (this.#jt === 'mark') cols.push(valuesColumn(this.#marks));
    else if (this.#emitPairs) {
      const build = this.#build;
      let buildAll = true;
      for (let k = 0; k < n && buildAll; k++) if (ri[k]! < 0) buildAll = false;
      for (let c = 0; c < this.#rw; c++) {
        const src = columnSource(build, c);
        cols.push(src.kind !== 'values' && buildAll ? selectColumn(src, ri.subarray(0, n)) : valuesColumn(gather(build.columns[c]!, ri, 0, n)));
      }
    }
    this.#rows.clear();
    this.#marks = [];
    yield* emitBatches(cols, n);
  }
}

/** Candidate pairs are verdicted in slices of this many, so a many-to-many key never builds one giant batch. */
export const PAIR_SLICE = BATCH_ROWS;
