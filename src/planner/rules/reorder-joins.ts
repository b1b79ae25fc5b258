import { type Expr, Exprs } from '../../exec/index.js';
import { columnsUsed, conjunction, conjuncts, remapColumns } from '../expr-utils.js';
import { LogicalJoin } from '../logical/logical-join.js';
import type { LogicalPlan } from '../logical/logical-plan.js';
import { LogicalProject } from '../logical/logical-project.js';
import type { OptimizerRule, RuleResult } from '../optimizer-rule.js';

interface Region {
  /** Inputs of the inner-join tree, left to right. */
  readonly leaves: LogicalPlan[];
  /** Conditions over the leaves' concatenated columns. */
  readonly conds: Expr[];
}

class Opaque extends Error {}

function flatten(p: LogicalPlan): Region {
  if (p.kind !== 'join' || p.joinType !== 'inner') return { leaves: [p], conds: [] };
  const left = flatten(p.left);
  const right = flatten(p.right);
  const width = p.left.columns.length;
  const conds = [...left.conds, ...right.conds.map((c) => remapColumns(c, (i) => i + width))];
  for (const c of p.condition ? conjuncts(p.condition) : []) {
    if (columnsUsed(c) === undefined) throw new Opaque();
    conds.push(c);
  }
  return { leaves: [...left.leaves, ...right.leaves], conds };
}

/**
 * Join ordering basics: an inner-join tree is rebuilt left-deep so that every
 * join after the first has a condition linking it to what came before (no cross
 * product while a connected relation is left), keeping FROM order otherwise.
 * A projection restores the original column order.
 */
function apply(p: LogicalPlan): RuleResult {
  if (p.kind !== 'join' || p.joinType !== 'inner' || (p.left.kind !== 'join' && p.right.kind !== 'join')) return { plan: p, changed: false };
  let region: Region;
  try {
    region = flatten(p);
  } catch (e) {
    if (e instanceof Opaque) return { plan: p, changed: false };
    throw e;
  }
  const { leaves, conds } = region;
  if (leaves.length < 3) return { plan: p, changed: false };
  const offsets: number[] = [];
  let total = 0;
  for (const l of leaves) { offsets.push(total); total += l.columns.length; }
  const leafOf = (col: number): number => {
    let i = leaves.length - 1;
    while (offsets[i]! > col) i--;
    return i;
  };
  const condLeaves = conds.map((c) => new Set([...(columnsUsed(c) ?? [])].map(leafOf)));

  const order = [0];
  const placed = new Set([0]);
  while (order.length < leaves.length) {
    let next = -1;
    for (let i = 0; i < leaves.length && next < 0; i++) {
      if (placed.has(i)) continue;
      const links = condLeaves.some((s) => s.has(i) && s.size > 1 && [...s].every((l) => l === i || placed.has(l)));
      if (links) next = i;
    }
    if (next < 0) next = [...leaves.keys()].find((i) => !placed.has(i))!;
    order.push(next);
    placed.add(next);
  }
  if (order.every((l, i) => l === i)) return { plan: p, changed: false };

  // Rebuild left-deep in the new order; each condition joins as soon as its leaves are all present.
  const position = new Map<number, number>();
  let plan: LogicalPlan = leaves[order[0]!]!;
  const addLeaf = (leaf: number, start: number): void => {
    for (let c = 0; c < leaves[leaf]!.columns.length; c++) position.set(offsets[leaf]! + c, start + c);
  };
  addLeaf(order[0]!, 0);
  const used = new Set<number>();
  const inPlan = new Set([order[0]!]);
  for (const leaf of order.slice(1)) {
    addLeaf(leaf, plan.columns.length);
    inPlan.add(leaf);
    const ready: Expr[] = [];
    conds.forEach((c, k) => {
      if (used.has(k) || ![...condLeaves[k]!].every((l) => inPlan.has(l))) return;
      used.add(k);
      ready.push(remapColumns(c, (i) => position.get(i)!));
    });
    const condition = conjunction(ready);
    plan = LogicalJoin.create({
      joinType: 'inner', left: plan, right: leaves[leaf]!, ...(condition ? { condition } : {}),
      columns: [...plan.columns, ...leaves[leaf]!.columns],
    });
  }
  const exprs = p.columns.map((c, i) => Exprs.column(position.get(i)!, c.type, c.name));
  return { plan: LogicalProject.create({ input: plan, exprs, columns: p.columns }), changed: true };
}

export const reorderJoins: OptimizerRule = { name: 'reorder-joins', apply };
