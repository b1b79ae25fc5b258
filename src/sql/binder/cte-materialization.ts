import { functionById } from '../../exec/index.js';
import { LogicalCte, type LogicalPlan } from '../../planner/index.js';
import type { Raw } from './ast.js';

/**
 * How many FROM items of `statement` name `name` without a schema: the WITH
 * query's readers, in PostgreSQL's sense of its reference count. An inner WITH
 * of the same name counts too, which can only make a query run once more than
 * needed, never wrong.
 */
export function cteReferenceCount(statement: Raw, name: string): number {
  let byName = referenceCounts.get(statement);
  if (byName === undefined) referenceCounts.set(statement, byName = unqualifiedRelationNames(statement));
  return byName.get(name) ?? 0;
}

/**
 * Counts by statement, each made in one walk: a statement with many WITH queries (a
 * materialized view's refresh has several) is asked once per query. Parse trees are never
 * changed once made (parse-statements.ts), so a count cannot go stale.
 */
const referenceCounts = new WeakMap<Raw, Map<string, number>>();

function unqualifiedRelationNames(statement: Raw): Map<string, number> {
  const counts = new Map<string, number>();
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) { for (const x of node) visit(x); return; }
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === 'RangeVar') {
        const rv = value as Raw;
        if (typeof rv.relname === 'string' && rv.schemaname === undefined && rv.catalogname === undefined) counts.set(rv.relname, (counts.get(rv.relname) ?? 0) + 1);
        continue;
      }
      visit(value);
    }
  };
  visit(statement);
  return counts;
}

/** Whether the bound plan calls a volatile function (random(), nextval): such a WITH query must run once. */
export function callsVolatile(plan: LogicalPlan): boolean {
  let found = false;
  const seen = new Set<object>();
  const visit = (node: unknown): void => {
    if (found || node === null || typeof node !== 'object' || ArrayBuffer.isView(node) || seen.has(node)) return;
    seen.add(node);
    const n = node as { kind?: unknown; fn?: unknown };
    if (n.kind === 'call' && typeof n.fn === 'string' && functionById(n.fn)?.volatile) { found = true; return; }
    for (const v of Object.values(node)) visit(v);
  };
  visit(plan);
  return found;
}

/**
 * PostgreSQL's rule: a WITH query is computed once, apart from the query that
 * reads it, when it says MATERIALIZED, is read more than once, or calls a
 * volatile function (the planner then plans it on its own, once); otherwise
 * (and always for NOT MATERIALIZED) its plan is folded into the reader's, where
 * filters and column pruning reach into it.
 */
export function materializeCte(name: string, materialized: unknown, references: number, plan: LogicalPlan): LogicalCte | undefined {
  if (materialized === 'CTEMaterializeNever') return undefined;
  if (materialized !== 'CTEMaterializeAlways' && references <= 1 && !callsVolatile(plan)) return undefined;
  return LogicalCte.create({ name, plan });
}
