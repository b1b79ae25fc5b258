import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RecursiveUnionPlan } from '../plan/physical-plan.js';
import { rowKey } from '../types/value-ops.js';
import type { Operator } from './operator.js';
import { estimateBytes, inputBatches, meteredOperator, selectRows, typesOf } from './operator-support.js';
import type { RunState } from '../run-state.js';
import type { SqlType } from '../../common/sql-type.js';

/**
 * WITH RECURSIVE's loop: the non-recursive term's rows seed the work table;
 * each pass of the recursive term reads only the previous pass's new rows and
 * its own new rows become the next work table, until a pass adds nothing.
 * Rows stream out as they are found. The work table and, for UNION, the rows
 * seen so far are charged to the query's memory, so a runaway recursion ends
 * in 53200; between batches the run checks for cancellation.
 */
export function createRecursiveUnionOperator(plan: RecursiveUnionPlan, left: Operator, right: Operator): Operator {
  if (left.columns.length !== plan.columns.length || right.columns.length !== plan.columns.length) {
    throw new FloeError(SqlState.internalError, `recursive union of ${left.columns.length} and ${right.columns.length} columns, expected ${plan.columns.length}`);
  }
  const types = typesOf(plan.columns);
  const what = `WITH RECURSIVE query "${plan.workTable.name}"`;
  const prepared: PreparedRecursiveUnion = { plan, left, right, types, what };
  return meteredOperator(plan, (run) => recursiveUnionBatches(prepared, run));
}

/** A recursive union's two terms, its row types, and what its memory errors name. */
interface PreparedRecursiveUnion {
  readonly plan: RecursiveUnionPlan;
  readonly left: Operator;
  readonly right: Operator;
  readonly types: readonly SqlType[];
  readonly what: string;
}

/** The non-recursive term's rows, then each iteration's new rows until one adds none. */
async function* recursiveUnionBatches(prepared: PreparedRecursiveUnion, run: RunState): AsyncGenerator<ColumnarBatch> {
  const { plan, left, right, types, what } = prepared;
  const seen = plan.all ? undefined : new Set<string>();
  let seenBytes = 0;
  /** The batch's rows not produced before (all of them for UNION ALL). */
  const fresh = (b: ColumnarBatch): ColumnarBatch | undefined => {
    if (!seen) return b;
    const sel: number[] = [];
    for (let i = 0; i < b.numRows; i++) {
      const k = rowKey(b.columns.map((c) => c[i]), types);
      if (!seen.has(k)) { seen.add(k); sel.push(i); seenBytes += 64 + k.length * 2; run.memory.reserve(64 + k.length * 2, what); }
    }
    if (sel.length === 0) return undefined;
    return sel.length === b.numRows ? b : selectRows(b, sel);
  };
  let work: ColumnarBatch[] = [];
  let workBytes = 0;
  const previous = run.workTables.get(plan.workTable);
  try {
    let source = left;
    for (;;) {
      const next: ColumnarBatch[] = [];
      let nextBytes = 0;
      if (source === right) run.workTables.set(plan.workTable, work);
      for await (const b of inputBatches(source, run)) {
        const kept = fresh(b);
        if (kept === undefined) continue;
        const bytes = estimateBytes(kept);
        run.memory.reserve(bytes, what);
        nextBytes += bytes;
        next.push(kept);
        yield kept;
      }
      run.memory.release(workBytes);
      work = next;
      workBytes = nextBytes;
      if (work.length === 0) break;
      source = right;
    }
  } finally {
    run.memory.release(workBytes + seenBytes);
    if (previous === undefined) run.workTables.delete(plan.workTable);
    else run.workTables.set(plan.workTable, previous);
  }
}
