import type { Expr } from '../expr.js';
import { isConstant } from '../is-constant.js';
import type { CallExpr, NodeFn } from '../node-fn.js';
import type { SpecializeContext } from './call-specialization.js';

export const name = 'equality-as-in-list';

/** `l_shipinstruct = 'DELIVER IN PERSON'`: a one-item IN, tested on the column's bytes. */
export function tryCompile(e: CallExpr, ctx: SpecializeContext): NodeFn | undefined {
  const asIn = equalityAsInList(e);
  return asIn === undefined ? undefined : ctx.compile(asIn);
}

/**
 * `col = constant` / `col <> constant` (either order) over a text, varchar or bpchar
 * column as the one-item [NOT] IN that means the same, or undefined.
 */
function equalityAsInList(e: CallExpr): Expr | undefined {
  const m = /^(=|<>)\((text|varchar|bpchar),\2\)$/.exec(e.fn);
  if (!m || e.args.length !== 2) return undefined;
  const [a, b] = e.args as [Expr, Expr];
  const column = a.kind === 'column' && isConstant(b) ? a : b.kind === 'column' && isConstant(a) ? b : undefined;
  const constant = column === a ? b : a;
  if (column === undefined || column.type.kind !== m[2] || constant.type.kind !== m[2]) return undefined;
  return { kind: 'inList', arg: column, list: [constant], eqFn: `=(${m[2]},${m[2]})`, negated: m[1] === '<>', type: e.type };
}
