import type { Expr } from './expr.js';

/** A literal, or casts of one (such as 'AIR'::character(10)): evaluated once per query where it matters. */
export function isConstant(x: Expr): boolean {
  return x.kind === 'literal' || (x.kind === 'cast' && isConstant(x.arg));
}
