import type { Expr } from '../../exec/index.js';
import { unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindCondition, bindExpr } from './bind-expr.js';
import { comparison } from './bind-operator.js';
import { unify } from './common-type.js';
import type { ExprScope } from './expr-scope.js';

export function bindCase(ctx: BindContext, n: Raw, es: ExprScope): Expr {
  const whens = (n.args as Raw[]).map((w) => unwrap(w)[1]);
  const results = unify(ctx, [
    ...whens.map((w: Raw) => bindExpr(ctx, w.result, es)),
    ...(n.defresult ? [bindExpr(ctx, n.defresult, es)] : []),
  ], 'CASE', n);
  const type = results[0]!.type;
  if (n.arg) {
    const values = unify(ctx, [bindExpr(ctx, n.arg, es), ...whens.map((w: Raw) => bindExpr(ctx, w.expr, es))], 'CASE/WHEN', n);
    const c = comparison(ctx, '=', values[0]!, values[1]!, n);
    return {
      kind: 'case', operand: values[0]!, eqFn: c.fn,
      whens: whens.map((_w: Raw, i: number) => ({ when: values[i + 1]!, then: results[i]! })),
      ...(n.defresult ? { else: results[whens.length]! } : {}), type,
    };
  }
  return {
    kind: 'case',
    whens: whens.map((w: Raw, i: number) => ({ when: bindCondition(ctx, w.expr, { ...es, clause: 'CASE/WHEN' }), then: results[i]! })),
    ...(n.defresult ? { else: results[whens.length]! } : {}), type,
  };
}
