import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { InsertPlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import {
  checkNotNull, dmlTarget, existingRowsByKey, keyOf, readsColumnsBelow, returningBatches, toColumns,
} from './dml-support.js';
import { inputBatches, meteredOperator } from './operator-support.js';
import { arbitratesUnique, insertOnUniqueConflict } from './insert-on-unique-conflict.js';
import { compileCheckConstraints } from './check-constraints.js';
import { compileDoUpdate, conflictUpdates } from './conflict-updates.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';

/**
 * INSERT [ON CONFLICT DO NOTHING | DO UPDATE] through the context's lake
 * transaction. Plain INSERT is the lake's checked insert (keyed tables: 23505 for a
 * live key); ON CONFLICT looks up the existing rows this transaction sees, writes the
 * rows it updates as -U/+U pairs over their before-images and the new keys blind.
 */
export function createInsertOperator(plan: InsertPlan, input: Operator): Operator {
  return meteredOperator(plan, (run) => insertedBatches(plan, input, run));
}

/** Inserts the input's rows; RETURNING's rows. */
async function* insertedBatches(plan: InsertPlan, input: Operator, run: RunState): AsyncGenerator<ColumnarBatch> {
  const t = dmlTarget(plan.table, plan.ref, run);
  const width = t.table.columns.length;
  const checks = compileCheckConstraints(plan.checks, t.table);
  const doUpdate = plan.onConflict?.action === 'update' ? compileDoUpdate(plan.onConflict, t.table) : undefined;
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
    rows = await insertOnUniqueConflict(t, rows, oc, doUpdate, run);
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
    if (toUpdate.length > 0 && oc.action === 'update' && doUpdate !== undefined) {
      for (const { at, after } of await conflictUpdates(t, toUpdate, doUpdate, run)) {
        updated.push({ before: toUpdate[at]!.existing, after });
        written[toUpdate[at]!.at] = after;
      }
      const blind = !oc.where && oc.set.every((s) => !readsColumnsBelow(s.expr, width));
      if (!blind) t.txn.markReadModifyWrite(t.table, t.ref);
    }
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
}
