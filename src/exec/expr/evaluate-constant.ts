import type { RunState } from '../run-state.js';
import { compileExpr } from './compile-expr.js';
import type { Expr } from './expr.js';

const oneRow = { numRows: 1, columns: [] };

/** An expression of no columns (a parameter, a clock, a cast of either), evaluated once with the statement's parameters. */
export function evaluateConstant(e: Expr, run: RunState): unknown {
  return compileExpr(e).evaluateSync(oneRow, run)[0];
}
