import type { Expr } from '../../exec/expr/expr.js';
import { columnsUsed } from '../expr-utils.js';

/** Which join input a predicate reads: left only, right only, both, or none (constants). Undefined when opaque. */
export function sideOf(e: Expr, leftWidth: number): 'left' | 'right' | 'both' | 'none' | undefined {
  const used = columnsUsed(e);
  if (used === undefined) return undefined;
  if (used.size === 0) return 'none';
  const all = [...used];
  if (all.every((i) => i < leftWidth)) return 'left';
  if (all.every((i) => i >= leftWidth)) return 'right';
  return 'both';
}
