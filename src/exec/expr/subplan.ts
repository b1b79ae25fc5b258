import type { PhysicalPlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';
import { buildOperator } from '../operators/build-operator.js';

/** Runs a subplan inside the current run and returns its first column's values (up to `limit` rows). */
export async function runSubplan(plan: PhysicalPlan, run: RunState, limit?: number): Promise<unknown[]> {
  const op = buildOperator(plan);
  const out: unknown[] = [];
  for await (const batch of op.execute(run)) {
    if (batch.numRows === 0) continue;
    if (plan.columns.length === 0) {
      for (let i = 0; i < batch.numRows; i++) out.push(true);
    } else {
      const vals = batch.columns[0]!;
      for (let i = 0; i < batch.numRows; i++) out.push(vals[i]);
    }
    if (limit !== undefined && out.length >= limit) break;
  }
  return limit !== undefined ? out.slice(0, limit) : out;
}
