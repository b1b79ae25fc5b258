import type { AggregateCall, Expr, SortKey, WindowCall } from '../exec/index.js';

/*
 * Walks and rewrites over EXEC's expression IR. Column references are input
 * indexes, so moving an expression across operators means remapping them.
 * Subplans (subquery expressions) are opaque: their outerColumn references
 * point at the evaluating operator's input row, so expressions that hold a
 * correlated subquery must not be moved or have their input re-shaped.
 */

/**
 * `e` with every (depth-0) column reference replaced by `f(ref)`. A subtree in which nothing
 * changed is returned as it was, not copied: a remap that moves no column (the usual case
 * for a query without window functions) allocates nothing.
 */
export function mapColumns(e: Expr, f: (index: number, ref: Extract<Expr, { kind: 'column' }>) => Expr): Expr {
  const m = (x: Expr): Expr => mapColumns(x, f);
  switch (e.kind) {
    case 'column': return f(e.index, e);
    case 'outerColumn': case 'literal': case 'param': case 'scalarSubquery': case 'exists':
      return e;
    case 'call': case 'and': case 'or': case 'coalesce': case 'greatest': case 'least': {
      const args = mapAll(e.args, m);
      return args === e.args ? e : { ...e, args } as Expr;
    }
    case 'cast': case 'not': case 'isNull': case 'isNotNull': case 'isTruth': case 'inSubquery': {
      const arg = m(e.arg);
      return arg === e.arg ? e : { ...e, arg } as Expr;
    }
    case 'case': {
      const operand = e.operand ? m(e.operand) : undefined;
      let whensChanged = false;
      const whens = e.whens.map((w) => {
        const when = m(w.when);
        const then = m(w.then);
        if (when === w.when && then === w.then) return w;
        whensChanged = true;
        return { when, then };
      });
      const otherwise = e.else ? m(e.else) : undefined;
      if (operand === e.operand && !whensChanged && otherwise === e.else) return e;
      return { ...e, ...(operand ? { operand } : {}), whens: whensChanged ? whens : e.whens, ...(otherwise ? { else: otherwise } : {}) };
    }
    case 'isDistinctFrom': case 'nullif': {
      const left = m(e.left);
      const right = m(e.right);
      return left === e.left && right === e.right ? e : { ...e, left, right } as Expr;
    }
    case 'inList': {
      const arg = m(e.arg);
      const list = mapAll(e.list, m);
      return arg === e.arg && list === e.list ? e : { ...e, arg, list };
    }
    case 'like': {
      const arg = m(e.arg);
      const pattern = m(e.pattern);
      const escape = e.escape ? m(e.escape) : undefined;
      return arg === e.arg && pattern === e.pattern && escape === e.escape ? e : { ...e, arg, pattern, ...(escape ? { escape } : {}) };
    }
    case 'array': {
      const elements = mapAll(e.elements, m);
      return elements === e.elements ? e : { ...e, elements };
    }
    case 'subscript': {
      const arg = m(e.arg);
      const index = m(e.index);
      return arg === e.arg && index === e.index ? e : { ...e, arg, index };
    }
  }
}

/** `xs` mapped, or `xs` itself when every element maps to itself. */
function mapAll(xs: readonly Expr[], m: (x: Expr) => Expr): readonly Expr[] {
  let out: Expr[] | undefined;
  for (let i = 0; i < xs.length; i++) {
    const y = m(xs[i]!);
    if (out === undefined && y !== xs[i]) out = xs.slice(0, i);
    out?.push(y);
  }
  return out ?? xs;
}

/** Remaps column indexes through `mapping` (old index → new index). */
export function remapColumns(e: Expr, mapping: (index: number) => number): Expr {
  return mapColumns(e, (i, ref) => (mapping(i) === i ? ref : { ...ref, index: mapping(i) }));
}

/** Calls `visit` on every node of `e` (not descending into subplans). */
export function walkExpr(e: Expr, visit: (node: Expr) => void): void {
  visit(e);
  switch (e.kind) {
    case 'column': case 'outerColumn': case 'literal': case 'param': case 'scalarSubquery': case 'exists':
      return;
    case 'call': case 'and': case 'or': case 'coalesce': case 'greatest': case 'least':
      for (const a of e.args) walkExpr(a, visit);
      return;
    case 'cast': case 'not': case 'isNull': case 'isNotNull': case 'isTruth':
      walkExpr(e.arg, visit);
      return;
    case 'case':
      if (e.operand) walkExpr(e.operand, visit);
      for (const w of e.whens) { walkExpr(w.when, visit); walkExpr(w.then, visit); }
      if (e.else) walkExpr(e.else, visit);
      return;
    case 'isDistinctFrom': case 'nullif':
      walkExpr(e.left, visit); walkExpr(e.right, visit);
      return;
    case 'inList':
      walkExpr(e.arg, visit);
      for (const a of e.list) walkExpr(a, visit);
      return;
    case 'like':
      walkExpr(e.arg, visit); walkExpr(e.pattern, visit);
      if (e.escape) walkExpr(e.escape, visit);
      return;
    case 'array':
      for (const a of e.elements) walkExpr(a, visit);
      return;
    case 'subscript':
      walkExpr(e.arg, visit); walkExpr(e.index, visit);
      return;
    case 'inSubquery':
      walkExpr(e.arg, visit);
      return;
  }
}

/** Input columns `e` reads; `undefined` when it holds a correlated subquery (it may read any of them). */
export function columnsUsed(e: Expr, into: Set<number> = new Set()): Set<number> | undefined {
  let opaque = false;
  walkExpr(e, (n) => {
    if (n.kind === 'column') into.add(n.index);
    else if ((n.kind === 'scalarSubquery' || n.kind === 'exists' || n.kind === 'inSubquery') && n.correlated) opaque = true;
  });
  return opaque ? undefined : into;
}

export function hasCorrelatedSubquery(e: Expr): boolean {
  return columnsUsed(e) === undefined;
}

/** Whether `e` reads no columns, parameters or volatile state: a candidate for folding. */
export function isConstantExpr(e: Expr): boolean {
  let constant = true;
  walkExpr(e, (n) => {
    if (n.kind === 'column' || n.kind === 'outerColumn' || n.kind === 'param' || n.kind === 'scalarSubquery'
      || n.kind === 'exists' || n.kind === 'inSubquery') constant = false;
  });
  return constant;
}

/** Splits a predicate into its AND-ed parts. */
export function conjuncts(e: Expr): Expr[] {
  if (e.kind === 'and') return e.args.flatMap(conjuncts);
  return [e];
}

export function conjunction(parts: readonly Expr[]): Expr | undefined {
  if (parts.length === 0) return undefined;
  if (parts.length === 1) return parts[0]!;
  return { kind: 'and', args: parts, type: { kind: 'bool' } };
}

export function mapSortKey(k: SortKey, f: (e: Expr) => Expr): SortKey {
  return { ...k, expr: f(k.expr) };
}

export function mapAggregateCall(a: AggregateCall, f: (e: Expr) => Expr): AggregateCall {
  return {
    ...a, args: a.args.map(f), ...(a.filter ? { filter: f(a.filter) } : {}),
    ...(a.orderBy ? { orderBy: a.orderBy.map((k) => mapSortKey(k, f)) } : {}),
  };
}

export function mapWindowCall(w: WindowCall, f: (e: Expr) => Expr): WindowCall {
  return {
    ...w, args: w.args.map(f), partitionBy: w.partitionBy.map(f), orderBy: w.orderBy.map((k) => mapSortKey(k, f)),
    ...(w.filter ? { filter: f(w.filter) } : {}),
  };
}

/** Rebuilds `e` with each direct child replaced by `f(child)` (subplans untouched). */
export function mapChildren(e: Expr, f: (child: Expr) => Expr): Expr {
  switch (e.kind) {
    case 'column': case 'outerColumn': case 'literal': case 'param': case 'scalarSubquery': case 'exists':
      return e;
    case 'call': case 'and': case 'or': case 'coalesce': case 'greatest': case 'least':
      return { ...e, args: e.args.map(f) } as Expr;
    case 'cast': case 'not': case 'isNull': case 'isNotNull': case 'isTruth':
      return { ...e, arg: f(e.arg) } as Expr;
    case 'case':
      return {
        ...e, ...(e.operand ? { operand: f(e.operand) } : {}),
        whens: e.whens.map((w) => ({ when: f(w.when), then: f(w.then) })), ...(e.else ? { else: f(e.else) } : {}),
      };
    case 'isDistinctFrom': case 'nullif':
      return { ...e, left: f(e.left), right: f(e.right) } as Expr;
    case 'inList': return { ...e, arg: f(e.arg), list: e.list.map(f) };
    case 'like': return { ...e, arg: f(e.arg), pattern: f(e.pattern), ...(e.escape ? { escape: f(e.escape) } : {}) };
    case 'array': return { ...e, elements: e.elements.map(f) };
    case 'subscript': return { ...e, arg: f(e.arg), index: f(e.index) };
    case 'inSubquery': return { ...e, arg: f(e.arg) };
  }
}
