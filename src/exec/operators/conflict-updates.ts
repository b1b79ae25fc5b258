import { compileExpr, type CompiledExpr } from '../expr/compile-expr.js';
import type { InsertPlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';
import { compileCheckConstraints } from './check-constraints.js';
import { checkNotNull, toColumns, type DmlTarget } from './dml-support.js';

type DoUpdate = Extract<NonNullable<InsertPlan['onConflict']>, { action: 'update' }>;

/** ON CONFLICT DO UPDATE's expressions and checks, compiled once per statement. */
export interface CompiledDoUpdate {
  readonly set: readonly { readonly column: number; readonly fn: CompiledExpr }[];
  readonly where: CompiledExpr | undefined;
  readonly conflictChecks: ReturnType<typeof compileCheckConstraints>;
  readonly updateChecks: ReturnType<typeof compileCheckConstraints>;
}

export function compileDoUpdate(oc: DoUpdate, table: DmlTarget['table']): CompiledDoUpdate {
  return {
    set: oc.set.map((s) => ({ column: s.column, fn: compileExpr(s.expr) })),
    where: oc.where === undefined ? undefined : compileExpr(oc.where),
    conflictChecks: compileCheckConstraints(oc.conflictChecks, table),
    updateChecks: compileCheckConstraints(oc.updateChecks, table),
  };
}

/**
 * The rows DO UPDATE writes for the proposed rows that met an existing one, in PostgreSQL's
 * order: the WHERE over existing ++ excluded; for the pairs it keeps, row security's test of
 * the existing row; then SET, NOT NULL, and the UPDATE's CHECK constraints and policies on
 * the new row. Returns each kept pair's index with its new row.
 */
export async function conflictUpdates(
  t: DmlTarget, pairs: readonly { readonly existing: readonly unknown[]; readonly excluded: readonly unknown[] }[],
  u: CompiledDoUpdate, run: RunState,
): Promise<{ at: number; after: unknown[] }[]> {
  if (pairs.length === 0) return [];
  const width = t.table.columns.length;
  const combined = { numRows: pairs.length, columns: toColumns(pairs.map((p) => [...p.existing, ...p.excluded]), width * 2) };
  const keep = u.where ? await u.where.evaluate(combined, run) : undefined;
  const kept = pairs.map((_p, i) => i).filter((i) => keep === undefined || keep[i] === true);
  await u.conflictChecks?.enforce(kept.map((i) => pairs[i]!.existing), run);
  const newValues: { column: number; values: readonly unknown[] }[] = [];
  for (const s of u.set) newValues.push({ column: s.column, values: await s.fn.evaluate(combined, run) });
  const out = kept.map((i) => {
    const row = [...pairs[i]!.existing];
    for (const s of newValues) row[s.column] = s.values[i] ?? null;
    checkNotNull(t, row);
    return { at: i, after: row };
  });
  await u.updateChecks?.enforce(out.map((o) => o.after), run);
  return out;
}
