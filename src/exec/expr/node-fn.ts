import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';
import type { Expr } from './expr.js';

/** Per-batch evaluation context: the run, plus results of correlated subqueries computed before the pass. */
export interface Ev {
  readonly run: RunState;
  readonly subResults: Map<Expr, unknown[]>;
}

/** Computes a node for the rows in `sel` (all rows when undefined); other positions are left unset. */
export type NodeFn = (b: ColumnarBatch, ev: Ev, sel: Int32Array | undefined) => unknown[];

export type CallExpr = Expr & { kind: 'call' };
