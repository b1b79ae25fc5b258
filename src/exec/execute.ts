import type { RecordBatch } from 'apache-arrow';
import type { PhysicalPlan } from './plan/physical-plan.js';
import type { ExecContext } from './exec-context.js';
import { encodeColumnar } from './arrow/columnar-batch.js';
import { buildOperator } from './operators/build-operator.js';
import { createRunState } from './run-state.js';
import type { Operator } from './operators/operator.js';

export type { ExecContext } from './exec-context.js';

/**
 * Runs a physical plan: a lazy stream of Arrow record batches whose columns are
 * the plan's output columns (Arrow types per src/exec/arrow/arrow-types.ts).
 * DML plans report their affected row count through ctx.onRowsAffected and
 * stream their RETURNING rows. Stops early when the consumer stops or
 * ctx.signal aborts (FloeError 57014).
 */
export function executePlan(plan: PhysicalPlan, ctx: ExecContext): AsyncIterable<RecordBatch> {
  const op = buildOperator(plan);
  return { [Symbol.asyncIterator]: () => planBatches(plan, op, ctx) };
}

async function* planBatches(plan: PhysicalPlan, op: Operator, ctx: ExecContext): AsyncGenerator<RecordBatch> {
  const run = createRunState(ctx);
  // Only what the plan returns is gathered and encoded as Arrow (see Operator).
  for await (const b of op.execute(run)) yield encodeColumnar(plan.columns, b);
}
