import { type Expr, functionById } from '../../exec/index.js';
import { LogicalFilter } from '../logical/logical-filter.js';
import type { LogicalPlan } from '../logical/logical-plan.js';
import { LogicalProject } from '../logical/logical-project.js';
import type { OptimizerRule, RuleResult } from '../optimizer-rule.js';
import { conjunction, conjuncts, hasCorrelatedSubquery, mapColumns, walkExpr } from '../expr-utils.js';

/** Volatile calls (random(), nextval) must run exactly as often as the query says: never duplicate them. */
export function isVolatile(e: Expr): boolean {
  let v = false;
  walkExpr(e, (n) => {
    if (n.kind === 'call' && functionById(n.fn)?.volatile) v = true;
  });
  return v;
}

/** filter(project(x)) → project(filter(x)) for the conjuncts whose inputs the projection computes purely. */
function apply(p: LogicalPlan): RuleResult {
  if (p.kind !== 'filter' || p.input.kind !== 'project' || p.barrier || p.input.barrier) return { plan: p, changed: false };
  const project = p.input;
  const down: Expr[] = [];
  const stay: Expr[] = [];
  for (const c of conjuncts(p.predicate)) {
    if (hasCorrelatedSubquery(c)) { stay.push(c); continue; }
    let ok = true;
    const substituted = mapColumns(c, (i) => {
      const source = project.exprs[i]!;
      if (hasCorrelatedSubquery(source) || isVolatile(source)) ok = false;
      return source;
    });
    if (ok) down.push(substituted); else stay.push(c);
  }
  if (down.length === 0) return { plan: p, changed: false };
  const input = LogicalFilter.create({ input: project.input, predicate: conjunction(down)!, columns: project.input.columns });
  const moved = LogicalProject.create({ input, exprs: project.exprs, columns: project.columns });
  const rest = conjunction(stay);
  return { plan: rest ? LogicalFilter.create({ input: moved, predicate: rest, columns: p.columns }) : moved, changed: true };
}

export const pushFilterThroughProject: OptimizerRule = { name: 'push-filter-through-project', apply };
