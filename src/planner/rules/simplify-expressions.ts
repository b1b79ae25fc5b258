import { LogicalFilter } from '../logical/logical-filter.js';
import type { LogicalPlan } from '../logical/logical-plan.js';
import type { OptimizerRule, RuleResult } from '../optimizer-rule.js';
import { exprEquals } from './expr-equals.js';
import { isBool, simplifyExpr } from '../simplify-expr.js';

/** simplifyExpr over a node's filter, join condition, LIMIT/OFFSET and projections. */
function apply(p: LogicalPlan): RuleResult {
  switch (p.kind) {
    case 'filter': {
      const predicate = simplifyExpr(p.predicate);
      if (isBool(predicate, true)) return { plan: p.input, changed: true };
      if (exprEquals(predicate, p.predicate)) return { plan: p, changed: false };
      return { plan: LogicalFilter.create({ input: p.input, predicate, columns: p.columns, ...(p.barrier ? { barrier: true } : {}) }), changed: true };
    }
    case 'join': {
      if (!p.condition) return { plan: p, changed: false };
      const condition = simplifyExpr(p.condition);
      if (exprEquals(condition, p.condition)) return { plan: p, changed: false };
      if (isBool(condition, true)) {
        const { condition: _drop, ...rest } = p;
        void _drop;
        return { plan: rest, changed: true };
      }
      return { plan: { ...p, condition }, changed: true };
    }
    case 'limit': {
      const limit = p.limit ? simplifyExpr(p.limit) : undefined;
      const offset = p.offset ? simplifyExpr(p.offset) : undefined;
      if (exprEquals([limit, offset], [p.limit, p.offset])) return { plan: p, changed: false };
      return { plan: { ...p, ...(limit ? { limit } : {}), ...(offset ? { offset } : {}) }, changed: true };
    }
    case 'project': {
      const exprs = p.exprs.map(simplifyExpr);
      if (exprEquals(exprs, p.exprs)) return { plan: p, changed: false };
      return { plan: { ...p, exprs }, changed: true };
    }
    default:
      return { plan: p, changed: false };
  }
}

export const simplifyExpressions: OptimizerRule = { name: 'simplify-expressions', apply };
