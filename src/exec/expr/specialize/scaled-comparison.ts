import { compileScaledComparison } from '../compile-scaled.js';
import type { CallExpr, NodeFn } from '../node-fn.js';
import type { SpecializeContext } from './call-specialization.js';

export const name = 'scaled-comparison';

/** A numeric comparison over exact scaled integers, for batches whose operands have that form; the general route for the rest. */
export function tryCompile(e: CallExpr, ctx: SpecializeContext): NodeFn | undefined {
  const scaledComparison = compileScaledComparison(e);
  if (scaledComparison === undefined) return undefined;
  const general = ctx.general();
  return (b, ev, sel) => scaledComparison(b, sel) ?? general(b, ev, sel);
}
