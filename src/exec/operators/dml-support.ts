import type { Vector } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import type { LakeTransaction, ScanFilter, TableMetadata } from '../../lake/index.js';
import { vectorToValues } from '../arrow/vector-values.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { Expr } from '../expr/expr.js';
import { exprChildren } from '../expr/expr.js';
import type { LakeTableRef, OutputColumn, PhysicalPlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';
import { rowKey } from '../types/value-ops.js';
import { runTasks } from './lake-scan-operator.js';
import { emitValues } from './operator-support.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';

export interface DmlTarget {
  readonly table: TableMetadata;
  readonly txn: LakeTransaction;
  readonly ref: string;
  readonly keyed: boolean;
  /** Indexes of the primary-key columns in table order. */
  readonly keyIndexes: readonly number[];
  readonly types: readonly SqlType[];
}

export function dmlTarget(ref: LakeTableRef, branch: string | undefined, run: RunState): DmlTarget {
  const wh = run.ctx.warehouse;
  if (!wh) throw new FloeError(SqlState.internalError, 'DML needs a warehouse in the execution context');
  const txn = run.ctx.txn;
  if (!txn) throw new FloeError(SqlState.internalError, 'DML needs a lake transaction in the execution context');
  const table = wh.getTableById(ref.id);
  if (!table) throw new FloeError(SqlState.undefinedTable, `relation "${ref.namespace}.${ref.name}" does not exist`);
  const keyIndexes = table.primaryKey.map((k) => table.columns.findIndex((c) => c.name === k));
  return { table, txn, ref: branch ?? 'main', keyed: table.primaryKey.length > 0, keyIndexes, types: table.columns.map((c) => c.type) };
}

/** NOT NULL columns: 23502 with PostgreSQL's message. */
export function checkNotNull(t: DmlTarget, row: readonly unknown[]): void {
  for (let c = 0; c < t.table.columns.length; c++) {
    const col = t.table.columns[c]!;
    if (row[c] === null && (!col.nullable || t.keyIndexes.includes(c))) {
      throw new FloeError(SqlState.notNullViolation, `null value in column "${col.name}" of relation "${t.table.name}" violates not-null constraint`, {
        detail: `Failing row contains (${row.map((v) => (v === null ? 'null' : String(v))).join(', ')}).`,
        objects: { schema: t.table.namespace, table: t.table.name, column: col.name },
      });
    }
  }
}

export function keyOf(t: DmlTarget, row: readonly unknown[]): string {
  return rowKey(t.keyIndexes.map((i) => row[i]), t.keyIndexes.map((i) => t.types[i]!));
}

/** Rows → one array per column (the lake's write shape). */
export function toColumns(rows: readonly (readonly unknown[])[], width: number): unknown[][] {
  const cols: unknown[][] = Array.from({ length: width }, () => new Array<unknown>(rows.length));
  for (let r = 0; r < rows.length; r++) for (let c = 0; c < width; c++) cols[c]![r] = rows[r]![c] ?? null;
  return cols;
}

/**
 * Current rows of the target (as this transaction sees them) whose key is among
 * `keys`, by key. Single-column keys are pushed down as an IN filter.
 */
export async function existingRowsByKey(t: DmlTarget, keyRows: readonly (readonly unknown[])[], run: RunState): Promise<Map<string, unknown[]>> {
  const out = new Map<string, unknown[]>();
  if (keyRows.length === 0) return out;
  const wanted = new Set(keyRows.map((r) => keyOf(t, r)));
  const filters: ScanFilter[] = [];
  if (t.keyIndexes.length === 1) {
    const ki = t.keyIndexes[0]!;
    const vals = [...new Map(keyRows.map((r) => [keyOf(t, r), r[ki]])).values()];
    filters.push({ column: t.table.columns[ki]!.name, op: 'in', values: vals });
  }
  const plan = await run.ctx.warehouse!.planScan({
    table: t.table, txn: t.txn, projection: t.table.columns.map((c) => c.name), filters,
  });
  for await (const { batch: b } of runTasks(plan.tasks, run)) {
    const cols = t.table.columns.map((c, i) => vectorToValues((b.getChild(c.name) ?? b.getChildAt(i)) as Vector, c.type));
    for (let r = 0; r < b.numRows; r++) {
      const row = cols.map((c) => c[r]);
      const k = keyOf(t, row);
      if (wanted.has(k)) out.set(k, row);
    }
  }
  return out;
}

/** Evaluates RETURNING expressions over rows and yields them as batches. */
export async function* returningBatches(
  exprs: readonly Expr[] | undefined, columns: readonly OutputColumn[], rows: readonly (readonly unknown[])[], run: RunState,
): AsyncGenerator<ColumnarBatch> {
  if (!exprs || exprs.length === 0 || rows.length === 0) return;
  const width = rows[0]!.length;
  const batch = { numRows: rows.length, columns: toColumns(rows, width) };
  const cols: unknown[][] = [];
  for (const e of exprs) cols.push(await compileExpr(e).evaluate(batch, run));
  yield* emitValues(cols, rows.length);
}

/** True when an expression reads any input column below `limit` (e.g. the existing row in ON CONFLICT). */
export function readsColumnsBelow(e: Expr, limit: number): boolean {
  if (e.kind === 'column') return e.index < limit;
  return exprChildren(e).some((c) => readsColumnsBelow(c, limit));
}

/** A DELETE/UPDATE input that only selects rows by full primary-key equality is a blind write. */
export function isKeyEqualityScan(input: PhysicalPlan, t: DmlTarget): boolean {
  if (input.kind !== 'lakeScan' || input.residual) return false;
  const eqCols = new Set(input.filters.filter((f) => f.op === '=' || f.op === 'in').map((f) => f.column));
  return t.table.primaryKey.every((k) => eqCols.has(k)) && input.filters.every((f) => f.op === '=' || f.op === 'in');
}
