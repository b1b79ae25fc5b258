import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { DataModifyingCtesPlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';
import { materialize } from './cte-scan-operator.js';
import type { Operator } from './operator.js';
import { inputBatches, meteredOperator } from './operator-support.js';

/**
 * A statement whose WITH holds INSERT/UPDATE/DELETE: as in PostgreSQL, each of them
 * runs exactly once, to completion, whether or not anything reads it; their
 * RETURNING rows are kept for the CTE scans that read them. Their row counts stay
 * out of the statement's command tag, which counts the main statement's rows.
 */
export function createDataModifyingCtesOperator(plan: DataModifyingCtesPlan, input: Operator): Operator {
  return meteredOperator(plan, (run) => afterDataModifyingCtes(plan, input, run));
}

/** Runs the data-modifying WITH queries, then streams the main query's rows. */
async function* afterDataModifyingCtes(plan: DataModifyingCtesPlan, input: Operator, run: RunState): AsyncGenerator<ColumnarBatch> {
  const quiet: RunState = { ...run, ctx: { ...run.ctx, onRowsAffected: undefined } };
  for (const cte of plan.ctes) await materialize(cte, quiet);
  for await (const b of inputBatches(input, run)) {
    if (plan.countRows) run.ctx.onRowsAffected?.(b.numRows);
    yield b;
  }
}
