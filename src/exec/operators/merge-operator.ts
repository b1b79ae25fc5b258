import { compileCheckConstraints } from './check-constraints.js';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { MergePlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { checkNotNull, dmlTarget, keyOf, returningBatches, toColumns } from './dml-support.js';
import { inputBatches, metered } from './operator-support.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';

/**
 * MERGE: for each joined row picks the first WHEN clause of its kind whose
 * condition holds, then writes updates, deletes and inserts through the lake
 * transaction (read-modify-write). A target row matched twice is 21000.
 */
export function createMergeOperator(plan: MergePlan, input: Operator): Operator {
  const actions = plan.actions.map((a) => ({
    a,
    cond: a.condition ? compileExpr(a.condition) : undefined,
    set: a.action.kind === 'update' ? a.action.set.map((s) => ({ column: s.column, fn: compileExpr(s.expr) })) : [],
    values: a.action.kind === 'insert' ? a.action.values.map(compileExpr) : [],
  }));
  return {
    plan,
    columns: plan.columns,
    execute(run) {
      return metered(plan, run, async function* (): AsyncGenerator<ColumnarBatch> {
        const t = dmlTarget(plan.table, plan.ref, run);
        const width = t.table.columns.length;
        const sw = plan.sourceWidth;
        const before: unknown[][] = []; const after: unknown[][] = [];
        const deleted: unknown[][] = []; const inserted: unknown[][] = [];
        const delIds: bigint[] = [];
        const returned: unknown[][] = [];
        const touched = new Set<string>();
        for await (const b of inputBatches(input, run)) {
          const conds: (unknown[] | undefined)[] = [];
          for (const x of actions) conds.push(x.cond ? await x.cond.evaluate(b, run) : undefined);
          const sets = [];
          for (const x of actions) { const s = []; for (const e of x.set) s.push({ column: e.column, v: await e.fn.evaluate(b, run) }); sets.push(s); }
          const vals = [];
          for (const x of actions) { const s = []; for (const e of x.values) s.push(await e.evaluate(b, run)); vals.push(s); }
          for (let i = 0; i < b.numRows; i++) {
            const src = b.columns[plan.sourcePresent]![i] === true;
            const tgt = b.columns[plan.targetPresent]![i] === true;
            const kind = src && tgt ? 'matched' : src ? 'notMatchedByTarget' : 'notMatchedBySource';
            const k = actions.findIndex((x, j) => x.a.match === kind && (!conds[j] || conds[j]![i] === true));
            if (k < 0) continue;
            const act = actions[k]!.a.action;
            const full = b.columns.map((c) => c[i]);
            const old = full.slice(sw, sw + width);
            if (tgt && act.kind !== 'nothing') {
              const id = t.keyed ? keyOf(t, old) : String(full[sw + width]);
              if (touched.has(id)) {
                throw new FloeError(SqlState.cardinalityViolation, 'MERGE command cannot affect row a second time', {
                  hint: 'Ensure that not more than one source row matches any one target row.',
                });
              }
              touched.add(id);
            }
            if (act.kind === 'update') {
              const row = [...old];
              for (const s of sets[k]!) row[s.column] = s.v[i] ?? null;
              checkNotNull(t, row);
              before.push(old); after.push(row);
              if (!t.keyed) delIds.push(BigInt(full[sw + width] as bigint));
              returned.push([...full.slice(0, sw), ...row]);
            } else if (act.kind === 'delete') {
              deleted.push(old);
              if (!t.keyed) delIds.push(BigInt(full[sw + width] as bigint));
              returned.push(full.slice(0, sw + width));
            } else if (act.kind === 'insert') {
              const row = vals[k]!.map((c) => c[i] ?? null);
              checkNotNull(t, row);
              inserted.push(row);
              returned.push([...full.slice(0, sw), ...row]);
            }
          }
        }
        await compileCheckConstraints(plan.checks, t.table)?.enforce([...after, ...inserted], run);
        t.txn.markReadModifyWrite(t.table, t.ref);
        if (t.keyed) {
          // Deletes first, then updates (a moved key is checked as an insert), then the
          // checked inserts: keys are judged unique at the end of the statement.
          if (deleted.length > 0) await t.txn.deleteKeys(t.table, t.ref, t.keyIndexes.map((ki) => deleted.map((r) => r[ki])));
          if (after.length > 0) await t.txn.update(t.table, t.ref, toColumns(before, width), toColumns(after, width));
          if (inserted.length > 0) await t.txn.insert(t.table, t.ref, toColumns(inserted, width));
        } else {
          if (delIds.length > 0) await t.txn.deleteRows(t.table, t.ref, delIds);
          const ins = [...after, ...inserted];
          if (ins.length > 0) await t.txn.insert(t.table, t.ref, toColumns(ins, width));
        }
        run.ctx.onRowsAffected?.(after.length + deleted.length + inserted.length);
        yield* returningBatches(plan.returning, plan.columns, returned, run);
      });
    },
  };
}
