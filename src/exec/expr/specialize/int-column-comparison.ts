import { isValid } from '../../../lake/index.js';
import { intForm } from '../../arrow/int-form.js';
import type { IntForm } from '../../arrow/int-form.js';
import type { Expr } from '../expr.js';
import type { CallExpr, NodeFn } from '../node-fn.js';
import type { SpecializeContext } from './call-specialization.js';

export const name = 'int-column-comparison';

/** Both columns still in Arrow form as int32/int16 (dates, int4, int2): compared in their buffers; the general route otherwise. */
export function tryCompile(e: CallExpr, ctx: SpecializeContext): NodeFn | undefined {
  const typed = intColumnComparison(e);
  if (typed === undefined) return undefined;
  const general = ctx.general();
  return (b, ev, sel) => {
    const l = intForm(b, typed.left);
    const r = l === undefined ? undefined : intForm(b, typed.right);
    return l !== undefined && r !== undefined ? compareIntForms(l, r, typed.op, b.numRows, sel) : general(b, ev, sel);
  };
}

const INT_COMPARABLE = new Set(['int2', 'int4', 'date']);

/**
 * `col op col` over two int2/int4/date columns of the same type: the comparison a
 * scan's residual runs per row when it compares two date columns of one row (commit_date < receipt_date).
 * Dates order as their day numbers, ±infinity included (stored as the int32 extremes).
 */
function intColumnComparison(e: CallExpr): { op: string; left: number; right: number } | undefined {
  const m = /^(=|<>|<=|>=|<|>)\(/.exec(e.fn);
  if (!m || e.args.length !== 2) return undefined;
  const [a, b] = e.args as [Expr, Expr];
  if (a.kind !== 'column' || b.kind !== 'column' || a.type.kind !== b.type.kind || !INT_COMPARABLE.has(a.type.kind)) return undefined;
  return { op: m[1]!, left: a.index, right: b.index };
}

function compareIntForms(l: IntForm, r: IntForm, op: string, numRows: number, sel: Int32Array | undefined): unknown[] {
  const out = new Array<unknown>(numRows);
  const n = sel ? sel.length : numRows;
  for (let k = 0; k < n; k++) {
    const i = sel ? sel[k]! : k;
    const li = l.rows === undefined ? i : l.rows[i]!;
    const ri = r.rows === undefined ? i : r.rows[i]!;
    if (!isValid(l.nulls, l.offset, li) || !isValid(r.nulls, r.offset, ri)) { out[i] = null; continue; }
    const x = l.values[li]!;
    const y = r.values[ri]!;
    switch (op) {
      case '<': out[i] = x < y; break;
      case '<=': out[i] = x <= y; break;
      case '>': out[i] = x > y; break;
      case '>=': out[i] = x >= y; break;
      case '=': out[i] = x === y; break;
      default: out[i] = x !== y;
    }
  }
  return out;
}
