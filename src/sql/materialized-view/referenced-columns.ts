import { str, unwrap, type Raw } from '../binder/ast.js';
import type { BaseRelation, ViewArm } from './view-shape.js';

/**
 * The columns of one base relation an arm's query can read, in the table's order, its
 * primary key always among them. A refresh reads ΔR through these alone, so a change to a
 * column the view never names (a stock level, a balance) is a before-image and an
 * after-image that project alike and cancel before any join.
 *
 * Found from the parse tree, erring on the side of more: a name is the relation's when it
 * is unqualified or qualified by this relation's name (or by a name no relation of the arm
 * has); `*`, `r.*` and a whole-row `r` (or `schema.table`) take every column; USING names its
 * columns on both sides.
 */
export function referencedColumns(arm: ViewArm, r: BaseRelation): string[] {
  const others = new Set(arm.relations.filter((o) => o.rangeName !== r.rangeName).map((o) => o.rangeName));
  const named = new Set<string>(r.primaryKey);
  let all = false;
  const visit = (node: Raw): void => {
    if (all || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) { for (const x of node) visit(x); return; }
    const [tag, body] = unwrap(node);
    if (tag === 'ColumnRef') {
      const fields = body.fields as Raw[];
      const last = fields[fields.length - 1];
      const qualifier = fields.length >= 2 ? str(fields[fields.length - 2]) : undefined;
      const mine = qualifier === undefined || qualifier === r.rangeName || !others.has(qualifier);
      if (!mine) return;
      if (unwrap(last)[0] === 'A_Star') { all = true; return; }
      const name = str(last);
      // A whole-row reference: `r`, or `schema.table`.
      if ((name === r.rangeName || name === r.name) && !r.columns.includes(name)) all = true;
      else named.add(name);
      return;
    }
    if (tag === 'JoinExpr' && Array.isArray(body.usingClause)) for (const u of body.usingClause as Raw[]) named.add(str(u));
    for (const v of Object.values(node)) visit(v);
  };
  visit(arm.select);
  return all ? [...r.columns] : r.columns.filter((c) => named.has(c));
}
