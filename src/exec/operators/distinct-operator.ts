import { compileExpr } from '../expr/compile-expr.js';
import type { CompiledExpr } from '../expr/compile-expr.js';
import type { SqlType } from '../../common/sql-type.js';
import type { DistinctPlan } from '../plan/physical-plan.js';
import { rowKey } from '../types/value-ops.js';
import type { Operator } from './operator.js';
import { inputBatches, meteredOperator, selectRows, typesOf } from './operator-support.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';

/** DISTINCT / DISTINCT ON: streams the first row of each key (NULLs are equal here, as SQL's DISTINCT says). */
export function createDistinctOperator(plan: DistinctPlan, input: Operator): Operator {
  const on = plan.on?.map(compileExpr);
  const keyTypes = plan.on ? plan.on.map((e) => e.type) : typesOf(plan.columns);
  return meteredOperator(plan, (run) => distinctBatches(input, on, keyTypes, run));
}

/** The first input row of each key. */
async function* distinctBatches(input: Operator, on: readonly CompiledExpr[] | undefined, keyTypes: readonly SqlType[], run: RunState): AsyncGenerator<ColumnarBatch> {
  const seen = new Set<string>();
  for await (const b of inputBatches(input, run)) {
    const keyCols = on ? await Promise.all(on.map((e) => e.evaluate(b, run))) : b.columns;
    const sel: number[] = [];
    let added = 0;
    for (let i = 0; i < b.numRows; i++) {
      const k = rowKey(keyCols.map((c) => c[i]), keyTypes);
      if (!seen.has(k)) { seen.add(k); sel.push(i); added += k.length * 2 + 48; }
    }
    run.memory.reserve(added, 'DISTINCT');
    if (sel.length > 0) yield selectRows(b, sel);
  }
}
