import type { Expr } from '../../exec/index.js';
import { conjunction, conjuncts, hasCorrelatedSubquery } from '../expr-utils.js';
import { sideOf } from './join-sides.js';
import { isVolatile } from './push-filter-through-project.js';

/**
 * What an OR across both join inputs implies for each input alone. When every
 * branch has conjuncts reading only the left input, the OR of those conjunct
 * groups holds for every row the OR keeps, so it may filter the left input
 * before the join (likewise the right):
 *   (n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY') OR (n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE')
 * implies n1.n_name = 'FRANCE' OR n1.n_name = 'GERMANY', and three brand/container
 * branches imply a filter on part alone. The OR itself still runs at the join;
 * PostgreSQL derives the same restrictions (its "OR clause" extraction).
 * Both come back in the join's column numbering.
 */
export function orImpliedFilters(c: Expr, leftWidth: number): { left?: Expr; right?: Expr } {
  if (c.kind !== 'or' || isVolatile(c) || hasCorrelatedSubquery(c)) return {};
  const implied = (side: 'left' | 'right'): Expr | undefined => {
    const branches: Expr[] = [];
    for (const b of c.args) {
      const own = conjunction(conjuncts(b).filter((x) => sideOf(x, leftWidth) === side));
      if (own === undefined) return undefined;
      branches.push(own);
    }
    return { kind: 'or', args: branches, type: { kind: 'bool' } };
  };
  const left = implied('left');
  const right = implied('right');
  return { ...(left ? { left } : {}), ...(right ? { right } : {}) };
}
