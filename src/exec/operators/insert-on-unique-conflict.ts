import type { Vector } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { ROW_ID_COLUMN } from '../../lake/index.js';
import type { ScanFilter } from '../../lake/index.js';
import { vectorToValues } from '../arrow/vector-values.js';
import type { ConflictArbiter, InsertPlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';
import { rowKey } from '../types/value-ops.js';
import { toColumns } from './dml-support.js';
import { conflictUpdates, type CompiledDoUpdate } from './conflict-updates.js';
import type { DmlTarget } from './dml-support.js';
import { runTasks } from './lake-scan-operator.js';

/** Column indexes of each unique key an arbiter stands for. */
function arbiterKeys(t: DmlTarget, arbiter: ConflictArbiter): number[][] {
  switch (arbiter.kind) {
    case 'primaryKey': return [[...t.keyIndexes]];
    case 'unique': return [[...arbiter.columns]];
    case 'any': {
      const out: number[][] = t.keyed ? [[...t.keyIndexes]] : [];
      for (const c of t.table.constraints ?? []) {
        if (c.kind === 'unique') out.push(c.columns.map((n) => t.table.columns.findIndex((col) => col.name === n)));
      }
      return out;
    }
  }
}

/** Whether this arbiter needs the general path (a UNIQUE constraint), not the primary key's. */
export function arbitratesUnique(t: DmlTarget, arbiter: ConflictArbiter | undefined): boolean {
  if (arbiter === undefined || arbiter.kind === 'primaryKey') return false;
  return arbiter.kind === 'unique' || (t.table.constraints ?? []).some((c) => c.kind === 'unique') || !t.keyed;
}

interface ExistingRow {
  readonly row: unknown[];
  readonly rowId: bigint | undefined;
}

/** A key of the row's values at `cols`; undefined when one is NULL (NULLs never conflict). */
function keyAt(t: DmlTarget, cols: readonly number[], row: readonly unknown[]): string | undefined {
  const values = cols.map((i) => row[i]);
  if (values.some((v) => v === null || v === undefined)) return undefined;
  return rowKey(values, cols.map((i) => t.types[i]!));
}

/** The rows of the target, as this transaction sees them, holding one of the proposed keys at `cols`. */
async function existingRows(t: DmlTarget, cols: readonly number[], proposed: readonly (readonly unknown[])[], run: RunState): Promise<Map<string, ExistingRow>> {
  const out = new Map<string, ExistingRow>();
  const wanted = new Set<string>();
  const firstValues = new Map<string, unknown>();
  for (const r of proposed) {
    const k = keyAt(t, cols, r);
    if (k === undefined) continue;
    wanted.add(k);
    firstValues.set(rowKey([r[cols[0]!]], [t.types[cols[0]!]!]), r[cols[0]!]);
  }
  if (wanted.size === 0) return out;
  const filters: ScanFilter[] = [{ column: t.table.columns[cols[0]!]!.name, op: 'in', values: [...firstValues.values()] }];
  const projection = [...t.table.columns.map((c) => c.name), ...(t.keyed ? [] : [ROW_ID_COLUMN])];
  const plan = await run.ctx.warehouse!.planScan({ table: t.table, txn: t.txn, projection, filters, ...(t.ref === 'main' ? {} : { at: { kind: 'ref', name: t.ref } }) });
  for await (const { batch: b } of runTasks(plan.tasks, run)) {
    const values = t.table.columns.map((c) => vectorToValues(b.getChild(c.name) as Vector, c.type));
    const ids = t.keyed ? undefined : vectorToValues(b.getChild(ROW_ID_COLUMN) as Vector, { kind: 'int8' });
    for (let r = 0; r < b.numRows; r++) {
      const row = values.map((v) => v[r]);
      const k = keyAt(t, cols, row);
      if (k !== undefined && wanted.has(k)) out.set(k, { row, rowId: ids === undefined ? undefined : (ids[r] as bigint) });
    }
  }
  return out;
}

/**
 * INSERT … ON CONFLICT on a UNIQUE constraint (or, for DO NOTHING without a target, on
 * any unique key). It reads the rows holding the proposed values, so it is
 * read-modify-write, never a blind upsert. Conflicting rows are skipped (DO NOTHING) or
 * updated in place (DO UPDATE: keyed tables write -U/+U, append tables delete by row id
 * and insert); the rest are inserted, and the lake checks every other key on them.
 * Returns the rows written, for the count and RETURNING.
 */
export async function insertOnUniqueConflict(
  t: DmlTarget, rows: readonly unknown[][], oc: NonNullable<InsertPlan['onConflict']>, doUpdate: CompiledDoUpdate | undefined, run: RunState,
): Promise<unknown[][]> {
  const width = t.table.columns.length;
  const keys = arbiterKeys(t, oc.arbiter ?? { kind: 'any' });
  const existing: Map<string, ExistingRow>[] = [];
  for (const cols of keys) existing.push(await existingRows(t, cols, rows, run));
  const claimed = keys.map(() => new Set<string>());
  const inserted: unknown[][] = [];
  const toUpdate: { existing: ExistingRow; excluded: unknown[] }[] = [];
  for (const row of rows) {
    const rowKeys = keys.map((cols) => keyAt(t, cols, row));
    if (oc.action === 'nothing') {
      if (rowKeys.some((k, a) => k !== undefined && (existing[a]!.has(k) || claimed[a]!.has(k)))) continue;
      rowKeys.forEach((k, a) => { if (k !== undefined) claimed[a]!.add(k); });
      inserted.push(row);
      continue;
    }
    const k = rowKeys[0];
    if (k !== undefined && claimed[0]!.has(k)) {
      throw new FloeError(SqlState.cardinalityViolation, 'ON CONFLICT DO UPDATE command cannot affect row a second time', {
        hint: 'Ensure that no rows proposed for insertion within the same command have duplicate constrained values.',
      });
    }
    if (k !== undefined) claimed[0]!.add(k);
    const cur = k === undefined ? undefined : existing[0]!.get(k);
    if (cur === undefined) inserted.push(row);
    else toUpdate.push({ existing: cur, excluded: row });
  }
  const before: unknown[][] = [];
  const after: unknown[][] = [];
  const rowIds: bigint[] = [];
  if (toUpdate.length > 0 && oc.action === 'update' && doUpdate !== undefined) {
    const pairs = toUpdate.map((u) => ({ existing: u.existing.row, excluded: u.excluded }));
    for (const { at, after: row } of await conflictUpdates(t, pairs, doUpdate, run)) {
      const u = toUpdate[at]!;
      before.push(u.existing.row);
      after.push(row);
      if (u.existing.rowId !== undefined) rowIds.push(u.existing.rowId);
    }
  }
  t.txn.markReadModifyWrite(t.table, t.ref);
  if (after.length > 0) {
    if (t.keyed) await t.txn.update(t.table, t.ref, toColumns(before, width), toColumns(after, width));
    else await t.txn.deleteRows(t.table, t.ref, rowIds);
  }
  const appended = t.keyed ? inserted : [...after, ...inserted];
  if (appended.length > 0) await t.txn.insert(t.table, t.ref, toColumns(appended, width));
  return [...after, ...inserted];
}
