import type { Expr } from '../expr.js';
import type { CallExpr, NodeFn } from '../node-fn.js';

/** What a specialized route may use of the compiler for the call it compiles. */
export interface SpecializeContext {
  /** Compiles a sub-expression (an argument, or an equivalent rewritten expression). */
  readonly compile: (x: Expr) => NodeFn;
  /** The general route for this call, compiled on first use: a route that covers only some batches falls back to it. */
  readonly general: () => NodeFn;
}

/**
 * A faster way to compute some function calls, with the same results as the
 * general route. `tryCompile` gives undefined for a call it does not cover.
 */
export interface CallSpecialization {
  /** How tests and diagnostics name it, to turn it off (see compileExprWith). */
  readonly name: string;
  tryCompile(e: CallExpr, ctx: SpecializeContext): NodeFn | undefined;
}
