import type { Expr } from '../../exec/index.js';
import { columnsUsed, conjuncts, remapColumns } from '../expr-utils.js';

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

/** Splits a join condition into equi-key pairs (left expr = right expr) and the rest. */
export function equiKeys(condition: Expr | undefined, leftWidth: number): { left: Expr[]; right: Expr[]; residual: Expr[] } {
  const left: Expr[] = [];
  const right: Expr[] = [];
  const residual: Expr[] = [];
  for (const c of condition ? conjuncts(condition) : []) {
    if (c.kind === 'call' && c.args.length === 2 && isEqualityFn(c.fn)) {
      const a = columnsUsed(c.args[0]!);
      const b = columnsUsed(c.args[1]!);
      const side = (s: Set<number> | undefined): 'l' | 'r' | undefined => {
        if (s === undefined || s.size === 0) return undefined;
        const all = [...s];
        if (all.every((i) => i < leftWidth)) return 'l';
        if (all.every((i) => i >= leftWidth)) return 'r';
        return undefined;
      };
      const sa = side(a);
      const sb = side(b);
      const shift = (e: Expr): Expr => remapColumns(e, (i) => i - leftWidth);
      if (sa === 'l' && sb === 'r') { left.push(c.args[0]!); right.push(shift(c.args[1]!)); continue; }
      if (sa === 'r' && sb === 'l') { left.push(c.args[1]!); right.push(shift(c.args[0]!)); continue; }
    }
    residual.push(c);
  }
  return { left, right, residual };
}

/** Registry ids of `=` operators start with "=(" (function-registry.ts names operators by symbol). */
export function isEqualityFn(fn: string): boolean {
  return fn.startsWith('=(');
}

/**
 * A join condition's column = column pairs (right columns numbered within the
 * right input); `complete` when the condition is nothing else.
 */
export function equiColumns(condition: Expr, leftWidth: number): { left: number[]; right: number[]; complete: boolean } {
  const keys = equiKeys(condition, leftWidth);
  const left: number[] = [];
  const right: number[] = [];
  keys.left.forEach((l, i) => {
    const r = keys.right[i]!;
    if (l.kind === 'column' && r.kind === 'column') { left.push(l.index); right.push(r.index); }
  });
  return { left, right, complete: keys.residual.length === 0 && left.length === keys.left.length };
}
