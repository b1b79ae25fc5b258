import type { PhysicalPlan, UnplannedSubquery } from '../../exec/index.js';

function isPlainObject(v: object): v is Record<string, unknown> {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * `value` with every subquery expression's logical plan replaced by the physical
 * plan `planSubquery` makes of it. Expressions sit in many fields of many node
 * kinds, so the walk is structural — every array and plain object, as EXPLAIN's
 * subplan listing finds them — and copies only the paths that lead to a subquery.
 * `memo` maps each object met to its result (shared across one statement), so an
 * object reached twice stays one object, and one subquery is planned once.
 */
export function lowerSubqueries<T>(value: T, planSubquery: (s: UnplannedSubquery) => PhysicalPlan, memo: Map<object, unknown>): T {
  const visit = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (memo.has(v)) return memo.get(v);
    let out: unknown = v;
    if (Array.isArray(v)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const x = visit(v[i]);
        if (x !== v[i]) (copy ??= v.slice())[i] = x;
      }
      if (copy) out = Object.isFrozen(v) ? Object.freeze(copy) : copy;
    } else if (isPlainObject(v)) {
      if (v.kind === 'unplannedSubquery') {
        out = planSubquery(v as unknown as UnplannedSubquery);
      } else {
        let copy: Record<string, unknown> | undefined;
        for (const k of Object.keys(v)) {
          const x = visit(v[k]);
          if (x !== v[k]) (copy ??= { ...v })[k] = x;
        }
        if (copy) out = Object.isFrozen(v) ? Object.freeze(copy) : copy;
      }
    }
    memo.set(v, out);
    return out;
  };
  return visit(value) as T;
}
