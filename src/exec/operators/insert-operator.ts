import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { InsertPlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import {
  checkNotNull, dmlTarget, existingRowsByKey, keyOf, readsColumnsBelow, returningBatches, toColumns,
} from './dml-support.js';
import { inputBatches, meteredOperator } from './operator-support.js';
import { arbitratesUnique, insertOnUniqueConflict } from './insert-on-unique-conflict.js';
import { compileCheckConstraints } from './check-constraints.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';

/**
 * INSERT [ON CONFLICT DO NOTHING | DO UPDATE] through the context's lake
 * transaction. Plain INSERT is the lake's checked insert (keyed tables: 23505 for a
 * live key); ON CONFLICT looks up the existing rows this transaction sees, writes the
 * rows it updates as -U/+U pairs over their before-images and the new keys blind.
 */
export function createInsertOperator(plan: InsertPlan, input: Operator): Operator {
  const setExprs = plan.onConflict?.action === 'update' ? plan.onConflict.set.map((s) => ({ column: s.column, fn: compileExpr(s.expr) })) : [];
  const where = plan.onConflict?.action === 'update' && plan.onConflict.where ? compileExpr(plan.onConflict.where) : undefined;
  return meteredOperator(plan, async function* (run): AsyncGenerator<ColumnarBatch> {
    const t = dmlTarget(plan.table, plan.ref, run);
    const width = t.table.columns.length;
    const checks = compileCheckConstraints(plan.checks, t.table);
    if (input.columns.length !== width) {
      throw new FloeError(SqlState.internalError, `INSERT input has ${input.columns.length} columns, table "${t.table.name}" has ${width}`);
    }
    let rows: unknown[][] = [];
    for await (const b of inputBatches(input, run)) {
      for (let i = 0; i < b.numRows; i++) {
        const row = b.columns.map((c) => c[i]);
        checkNotNull(t, row);
        rows.push(row);
      }
    }
    // PostgreSQL checks every proposed row, even one that then conflicts (ExecInsert runs ExecConstraints first).
    await checks?.enforce(rows, run);
    const oc = plan.onConflict;
    if (oc && arbitratesUnique(t, oc.arbiter)) {
      rows = await insertOnUniqueConflict(t, rows, oc, setExprs, where, run);
    } else if (oc) {
      if (!t.keyed) throw new FloeError(SqlState.invalidColumnReference, 'there is no unique or exclusion constraint matching the ON CONFLICT specification');
      const existing = await existingRowsByKey(t, rows, run);
      const seen = new Set<string>();
      const out: unknown[][] = [];
      const updated: { before: unknown[]; after: unknown[] }[] = [];
      const toUpdate: { existing: unknown[]; excluded: unknown[]; at: number }[] = [];
      // rows written, in input order (RETURNING's order); undefined where WHERE skipped an update
      const written: (unknown[] | undefined)[] = [];
      for (const row of rows) {
        const k = keyOf(t, row);
        if (seen.has(k)) {
          if (oc.action === 'update') {
            throw new FloeError(SqlState.cardinalityViolation, 'ON CONFLICT DO UPDATE command cannot affect row a second time', {
              hint: 'Ensure that no rows proposed for insertion within the same command have duplicate constrained values.',
            });
          }
          continue;
        }
        seen.add(k);
        const cur = existing.get(k);
        if (!cur) { out.push(row); written.push(row); } else if (oc.action === 'update') {
          toUpdate.push({ existing: cur, excluded: row, at: written.length });
          written.push(undefined);
        }
      }
      if (toUpdate.length > 0 && oc.action === 'update') {
        const combined = { numRows: toUpdate.length, columns: toColumns(toUpdate.map((u) => [...u.existing, ...u.excluded]), width * 2) };
        const keep = where ? await where.evaluate(combined, run) : undefined;
        const newVals = [];
        for (const s of setExprs) newVals.push({ column: s.column, vals: await s.fn.evaluate(combined, run) });
        for (let i = 0; i < toUpdate.length; i++) {
          if (keep && keep[i] !== true) continue;
          const row = [...toUpdate[i]!.existing];
          for (const s of newVals) row[s.column] = s.vals[i] ?? null;
          checkNotNull(t, row);
          updated.push({ before: toUpdate[i]!.existing, after: row });
          written[toUpdate[i]!.at] = row;
        }
        const blind = !oc.where && oc.set.every((s) => !readsColumnsBelow(s.expr, width));
        if (!blind) t.txn.markReadModifyWrite(t.table, t.ref);
      }
      await checks?.enforce(updated.map((u) => u.after), run);
      if (updated.length > 0) {
        await t.txn.update(t.table, t.ref, toColumns(updated.map((u) => u.before), width), toColumns(updated.map((u) => u.after), width));
      }
      if (out.length > 0) await t.txn.upsert(t.table, t.ref, toColumns(out, width));
      rows = written.filter((r): r is unknown[] => r !== undefined);
    } else if (rows.length > 0) {
      await t.txn.insert(t.table, t.ref, toColumns(rows, width));
    }
    run.ctx.onRowsAffected?.(rows.length);
    yield* returningBatches(plan.returning, plan.columns, rows, run);
  });
}
