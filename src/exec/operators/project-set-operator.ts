import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { CompiledExpr } from '../expr/compile-expr.js';
import type { Expr } from '../expr/expr.js';
import { functionById } from '../functions/function-registry.js';
import type { SetImpl } from '../functions/function-registry.js';
import type { ProjectSetPlan, SetFunctionCall } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { BATCH_ROWS, inputBatches, emitBatches, metered } from './operator-support.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';

type Compiled =
  | { readonly kind: 'expr'; readonly e: CompiledExpr }
  | { readonly kind: 'set'; readonly impl: SetImpl; readonly strict: boolean; readonly args: readonly CompiledExpr[] };

/** Expands set-returning functions per input row (PostgreSQL's ProjectSet). */
export function createProjectSetOperator(plan: ProjectSetPlan, input: Operator): Operator {
  const width = plan.exprs.length + (plan.ordinality ? 1 : 0);
  if (plan.columns.length !== width) {
    throw new FloeError(SqlState.internalError, `projectSet has ${plan.columns.length} columns, expected ${width}`);
  }
  const compiled: Compiled[] = plan.exprs.map((x) => {
    if (x.kind !== 'setCall') return { kind: 'expr', e: compileExpr(x as Expr) };
    const call = x as SetFunctionCall;
    const f = functionById(call.fn);
    if (!f || f.kind !== 'set' || !f.set) throw new FloeError(SqlState.undefinedFunction, `set-returning function ${call.fn} does not exist`);
    return { kind: 'set', impl: f.set, strict: f.strict, args: call.args.map(compileExpr) };
  });
  return {
    plan,
    columns: plan.columns,
    execute(run) {
      return metered(plan, run, async function* (): AsyncGenerator<ColumnarBatch> {
        let out: unknown[][] = plan.columns.map(() => []);
        let n = 0;
        for await (const b of inputBatches(input, run)) {
          const cols: unknown[][][] = [];
          for (const c of compiled) {
            if (c.kind === 'expr') cols.push([await c.e.evaluate(b, run)]);
            else { const a: unknown[][] = []; for (const e of c.args) a.push(await e.evaluate(b, run)); cols.push(a); }
          }
          for (let i = 0; i < b.numRows; i++) {
            const results: (unknown[] | undefined)[] = compiled.map((c, k) => {
              if (c.kind === 'expr') return undefined;
              const args = cols[k]!.map((col) => col[i]);
              if (c.strict && args.some((v) => v === null)) return [];
              return [...c.impl(args, run.evalCtx)];
            });
            const rows = Math.max(0, ...results.map((r) => r?.length ?? 0));
            for (let r = 0; r < rows; r++) {
              for (let k = 0; k < compiled.length; k++) {
                const res = results[k];
                out[k]!.push(res ? (r < res.length ? res[r] ?? null : null) : cols[k]![0]![i]);
              }
              if (plan.ordinality) out[compiled.length]!.push(BigInt(r + 1));
              n++;
            }
            if (n >= BATCH_ROWS) {
              yield* emitBatches(out, n);
              out = plan.columns.map(() => []);
              n = 0;
            }
          }
        }
        yield* emitBatches(out, n);
      });
    },
  };
}
