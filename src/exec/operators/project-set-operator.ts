import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { CompiledExpr } from '../expr/compile-expr.js';
import type { Expr } from '../expr/expr.js';
import { functionById } from '../functions/function-registry.js';
import type { SetImpl } from '../functions/function-registry.js';
import type { ProjectSetPlan, SetFunctionCall } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { BATCH_ROWS, emitValues, inputBatches, meteredOperator } from './operator-support.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { EvalContext } from '../expr/eval-context.js';
import type { RunState } from '../run-state.js';

type Compiled =
  | { readonly kind: 'expr'; readonly e: CompiledExpr; readonly out: number }
  | { readonly kind: 'set'; readonly impl: SetImpl; readonly strict: boolean; readonly args: readonly CompiledExpr[]; readonly out: number; readonly width: number };

/**
 * Expands set-returning functions per input row (PostgreSQL's ProjectSet).
 * The functions' results are pulled lazily, a batch at a time, so
 * `generate_series(1, 50000000)` streams in constant memory, and the run
 * checks for cancellation between batches.
 */
export function createProjectSetOperator(plan: ProjectSetPlan, input: Operator): Operator {
  let out = 0;
  const compiled: Compiled[] = plan.exprs.map((x) => {
    const at = out;
    if (x.kind !== 'setCall') { out++; return { kind: 'expr', e: compileExpr(x as Expr), out: at }; }
    const call = x as SetFunctionCall;
    const f = functionById(call.fn);
    if (!f || f.kind !== 'set' || !f.set) throw new FloeError(SqlState.undefinedFunction, `set-returning function ${call.fn} does not exist`);
    const width = call.width ?? 1;
    out += width;
    return { kind: 'set', impl: f.set, strict: f.strict, args: call.args.map(compileExpr), out: at, width };
  });
  const width = out + (plan.ordinality ? 1 : 0);
  if (plan.columns.length !== width) {
    throw new FloeError(SqlState.internalError, `projectSet has ${plan.columns.length} columns, expected ${width}`);
  }
  return meteredOperator(plan, (run) => projectSetBatches(plan, input, compiled, out, run));
}

/** Each input row expanded by its set-returning functions. */
async function* projectSetBatches(plan: ProjectSetPlan, input: Operator, compiled: readonly Compiled[], out: number, run: RunState): AsyncGenerator<ColumnarBatch> {
  let cols: unknown[][] = plan.columns.map(() => []);
  let n = 0;
  for await (const b of inputBatches(input, run)) {
    const values: unknown[][][] = [];
    for (const c of compiled) {
      if (c.kind === 'expr') values.push([await c.e.evaluate(b, run)]);
      else { const a: unknown[][] = []; for (const e of c.args) a.push(await e.evaluate(b, run)); values.push(a); }
    }
    const state: Expansion = { values, numRows: b.numRows, row: 0, iterators: undefined, ordinal: 0 };
    while (state.row < state.numRows) {
      n += expand(compiled, out, Boolean(plan.ordinality), state, cols, BATCH_ROWS - n, run.evalCtx);
      if (n >= BATCH_ROWS) {
        yield* emitValues(cols, n);
        cols = plan.columns.map(() => []);
        n = 0;
      }
    }
  }
  yield* emitValues(cols, n);
}

/** Where the expansion of one input batch stands: the row, and that row's set functions mid-way. */
interface Expansion {
  readonly values: readonly (readonly (readonly unknown[])[])[];
  readonly numRows: number;
  row: number;
  iterators: (Iterator<unknown> | undefined)[] | undefined;
  ordinal: number;
}

/**
 * Appends up to `room` output rows to `cols`, going on from `state`; returns how
 * many. A plain function, not the generator, runs the per-row loop, so V8 optimizes it.
 */
function expand(
  compiled: readonly Compiled[], width: number, ordinality: boolean, state: Expansion, cols: unknown[][], room: number, evalCtx: EvalContext,
): number {
  let n = 0;
  while (n < room && state.row < state.numRows) {
    const i = state.row;
    if (state.iterators === undefined) {
      state.iterators = compiled.map((c, k) => {
        if (c.kind === 'expr') return undefined;
        const args = state.values[k]!.map((col) => col[i]);
        if (c.strict && args.some((v) => v === null)) return undefined;
        return c.impl(args, evalCtx)[Symbol.iterator]();
      });
      state.ordinal = 0;
    }
    const iterators = state.iterators;
    // One output row per step while any set function still yields; finished ones give NULL.
    const step: unknown[] = new Array(compiled.length);
    let any = false;
    for (let k = 0; k < compiled.length; k++) {
      const it = iterators[k];
      if (it === undefined) continue;
      const r = it.next();
      if (r.done) { iterators[k] = undefined; continue; }
      step[k] = r.value;
      any = true;
    }
    if (!any) { state.row++; state.iterators = undefined; continue; }
    for (let k = 0; k < compiled.length; k++) {
      const c = compiled[k]!;
      if (c.kind === 'expr') { cols[c.out]!.push(state.values[k]![0]![i]); continue; }
      const v = step[k];
      if (c.width === 1) { cols[c.out]!.push(v === undefined ? null : v); continue; }
      const tuple = v as readonly unknown[] | undefined;
      for (let w = 0; w < c.width; w++) cols[c.out + w]!.push(tuple?.[w] ?? null);
    }
    if (ordinality) cols[width]!.push(BigInt(++state.ordinal));
    n++;
  }
  return n;
}
