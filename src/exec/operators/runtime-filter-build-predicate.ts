import type { Expr } from '../expr/expr.js';
import { exprChildren } from '../expr/expr.js';

/**
 * A predicate on the build (right) input alone that every build row must pass
 * to satisfy `residual` with some probe row; like the residual it reads
 * left ++ right columns (only right ones), so it is evaluated over the build
 * columns behind `leftWidth` unused ones. Undefined when the residual implies none. From an AND, the conjuncts that imply something; from an OR,
 * the OR of what each disjunct implies (all of them must imply something):
 * `(p_brand = … AND p_container IN … AND l_quantity …) OR (…)` over a part–lineitem join
 * keeps only the parts one of the brand/container/size groups can match —
 * PostgreSQL extracts the same restriction from OR clauses.
 */
export function buildSideImplied(residual: Expr, leftWidth: number): Expr | undefined {
  return derive(residual, leftWidth);
}

function derive(e: Expr, lw: number): Expr | undefined {
  if (e.kind === 'and') {
    const parts = e.args.map((a) => derive(a, lw)).filter((a): a is Expr => a !== undefined);
    if (parts.length === 0) return undefined;
    return parts.length === 1 ? parts[0] : { ...e, args: parts };
  }
  if (e.kind === 'or') {
    const parts: Expr[] = [];
    for (const a of e.args) {
      const d = derive(a, lw);
      if (d === undefined) return undefined;
      parts.push(d);
    }
    return { ...e, args: parts };
  }
  return rightOnly(e, lw) ? e : undefined;
}

/** Reads only right-side columns (at least one), with no subqueries or outer references. */
function rightOnly(e: Expr, lw: number): boolean {
  let sawColumn = false;
  const walk = (x: Expr): boolean => {
    if (x.kind === 'scalarSubquery' || x.kind === 'exists' || x.kind === 'inSubquery' || x.kind === 'outerColumn') return false;
    if (x.kind === 'column') {
      if (x.index < lw) return false;
      sawColumn = true;
    }
    return exprChildren(x).every(walk);
  };
  return walk(e) && sawColumn;
}
