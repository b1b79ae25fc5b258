import { compileCheckConstraints } from './check-constraints.js';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { compileExpr, type CompiledExpr } from '../expr/compile-expr.js';
import type { MergePlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { checkNotNull, dmlTarget, keyOf, returningBatches, toColumns } from './dml-support.js';
import { inputBatches, meteredOperator, selectRows } from './operator-support.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';

/**
 * MERGE: for each joined row picks the first WHEN clause of its kind whose
 * condition holds, then writes updates, deletes and inserts through the lake
 * transaction (read-modify-write). A target row matched twice is 21000.
 */
export function createMergeOperator(plan: MergePlan, input: Operator): Operator {
  const actions = plan.actions.map((a): CompiledMergeClause => ({
    a,
    cond: a.condition ? compileExpr(a.condition) : undefined,
    set: a.action.kind === 'update' ? a.action.set.map((s) => ({ column: s.column, fn: compileExpr(s.expr) })) : [],
    values: a.action.kind === 'insert' ? a.action.values.map(compileExpr) : [],
  }));
  return meteredOperator(plan, (run) => mergedBatches(plan, input, actions, run));
}

/** A WHEN clause compiled: its condition, its SET expressions and its INSERT values. */
interface CompiledMergeClause {
  readonly a: MergePlan['actions'][number];
  readonly cond: CompiledExpr | undefined;
  readonly set: readonly { readonly column: number; readonly fn: CompiledExpr }[];
  readonly values: readonly CompiledExpr[];
}

/** Applies each source row's chosen WHEN clause to the target; RETURNING's rows. */
async function* mergedBatches(plan: MergePlan, input: Operator, actions: readonly CompiledMergeClause[], run: RunState): AsyncGenerator<ColumnarBatch> {
  const t = dmlTarget(plan.table, plan.ref, run);
  const width = t.table.columns.length;
  const sw = plan.sourceWidth;
  const before: unknown[][] = []; const after: unknown[][] = [];
  const deleted: unknown[][] = []; const inserted: unknown[][] = [];
  const delIds: bigint[] = [];
  const returned: unknown[][] = [];
  const touched = new Set<string>();
  for await (const b of inputBatches(input, run)) {
    const kindOf = (i: number): MergeMatch => {
      const src = b.columns[plan.sourcePresent]![i] === true;
      const tgt = b.columns[plan.targetPresent]![i] === true;
      return src && tgt ? 'matched' : src ? 'notMatchedByTarget' : 'notMatchedBySource';
    };
    const { clauseOf, rowsOf } = await chooseClauses(b, run, actions, kindOf);
    // Each clause's SET and VALUES run over the rows that chose it alone, as PostgreSQL
    // evaluates them: a value another row's clause would reject is never computed.
    const sets: { column: number; v: unknown[] }[][] = [];
    const vals: unknown[][][] = [];
    const at = new Int32Array(b.numRows);
    for (let j = 0; j < actions.length; j++) {
      const rows = rowsOf[j]!;
      rows.forEach((i, r) => { at[i] = r; });
      const sub = rows.length === 0 || (actions[j]!.set.length === 0 && actions[j]!.values.length === 0) ? undefined : selectRows(b, rows);
      const s: { column: number; v: unknown[] }[] = [];
      for (const e of actions[j]!.set) s.push({ column: e.column, v: sub === undefined ? [] : await e.fn.evaluate(sub, run) });
      sets.push(s);
      const v: unknown[][] = [];
      for (const e of actions[j]!.values) v.push(sub === undefined ? [] : await e.evaluate(sub, run));
      vals.push(v);
    }
    for (let i = 0; i < b.numRows; i++) {
      const k = clauseOf[i]!;
      if (k < 0) continue;
      const tgt = b.columns[plan.targetPresent]![i] === true;
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
        for (const s of sets[k]!) row[s.column] = s.v[at[i]!] ?? null;
        checkNotNull(t, row);
        before.push(old); after.push(row);
        if (!t.keyed) delIds.push(BigInt(full[sw + width] as bigint));
        returned.push([...full.slice(0, sw), ...row]);
      } else if (act.kind === 'delete') {
        deleted.push(old);
        if (!t.keyed) delIds.push(BigInt(full[sw + width] as bigint));
        returned.push(full.slice(0, sw + width));
      } else if (act.kind === 'insert') {
        const row = vals[k]!.map((c) => c[at[i]!] ?? null);
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
}

type MergeMatch = 'matched' | 'notMatchedByTarget' | 'notMatchedBySource';

/**
 * For each row, the first WHEN clause of its kind whose condition holds (-1: none), and each
 * clause's rows. A clause's condition is evaluated only over the rows no earlier clause took,
 * as PostgreSQL tries the clauses in order: a later condition never sees a row it would not.
 */
async function chooseClauses(
  b: ColumnarBatch, run: RunState,
  clauses: readonly { readonly a: { readonly match: MergeMatch }; readonly cond: CompiledExpr | undefined }[],
  kindOf: (i: number) => MergeMatch,
): Promise<{ clauseOf: Int32Array; rowsOf: number[][] }> {
  const clauseOf = new Int32Array(b.numRows).fill(-1);
  const rowsOf: number[][] = [];
  const kinds = Array.from({ length: b.numRows }, (_, i) => kindOf(i));
  let open = Array.from({ length: b.numRows }, (_, i) => i);
  for (let j = 0; j < clauses.length; j++) {
    const c = clauses[j]!;
    const candidates = open.filter((i) => kinds[i] === c.a.match);
    let taken = candidates;
    if (c.cond !== undefined && candidates.length > 0) {
      const holds = await c.cond.evaluate(selectRows(b, candidates), run);
      taken = candidates.filter((_, r) => holds[r] === true);
    }
    for (const i of taken) clauseOf[i] = j;
    rowsOf.push(taken);
    if (taken.length > 0) open = open.filter((i) => clauseOf[i] < 0);
  }
  return { clauseOf, rowsOf };
}
