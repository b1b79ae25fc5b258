import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { CompiledExpr } from '../expr/compile-expr.js';
import { functionById } from '../functions/function-registry.js';
import type { AggregateImpl } from '../functions/function-registry.js';
import type { HashAggregatePlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';
import { rowKey, valueKey } from '../types/value-ops.js';
import type { Operator } from './operator.js';
import { decodedInput, emitBatches, metered, recordMetric } from './operator-support.js';
import { compileSortKeys } from './sort-keys.js';

interface CompiledAggregate {
  readonly impl: AggregateImpl;
  readonly strict: boolean;
  readonly args: readonly CompiledExpr[];
  readonly argTypes: readonly SqlType[];
  readonly filter: CompiledExpr | undefined;
  readonly distinct: boolean;
  readonly ordered: ReturnType<typeof compileSortKeys> | undefined;
  readonly orderExprCount: number;
}

/** One group's running state; `pending` holds argument rows for DISTINCT/ORDER BY aggregates until finalize. */
interface GroupState {
  readonly keys: unknown[];
  readonly setIndex: number;
  readonly states: unknown[];
  readonly seen: (Set<string> | undefined)[];
  readonly pending: (unknown[][] | undefined)[];
}

/** Bytes charged per new group, beyond its key text. */
const GROUP_OVERHEAD = 160;

/**
 * GROUP BY with hash tables, in DuckDB's pipeline-breaker phases:
 *  sink — per input batch, evaluate keys/arguments and step group states;
 *  combine — merge partial tables (one per producer; a single producer today,
 *            worker-side partial aggregation plugs in here);
 *  finalize — run DISTINCT/ORDER BY buffers and final functions;
 *  source — emit the groups as batches.
 */
export function createHashAggregateOperator(plan: HashAggregatePlan, input: Operator): Operator {
  const keyExprs = plan.groupBy.map(compileExpr);
  const keyTypes = plan.groupBy.map((e) => e.type);
  const sets = plan.groupingSets ?? [plan.groupBy.map((_, i) => i)];
  const withGroupingId = plan.groupingSets !== undefined;
  const expectedCols = plan.groupBy.length + plan.aggregates.length + (withGroupingId ? 1 : 0);
  if (plan.columns.length !== expectedCols) {
    throw new FloeError(SqlState.internalError, `hashAggregate has ${plan.columns.length} columns, expected ${expectedCols}`);
  }
  const aggs: CompiledAggregate[] = plan.aggregates.map((a) => {
    const f = functionById(a.fn);
    if (!f || f.kind !== 'aggregate' || !f.aggregate) throw new FloeError(SqlState.undefinedFunction, `aggregate ${a.fn} does not exist`);
    const argTypes = a.args.map((x) => x.type);
    return {
      impl: f.aggregate(argTypes),
      strict: f.strict,
      args: a.args.map(compileExpr),
      argTypes,
      filter: a.filter ? compileExpr(a.filter) : undefined,
      distinct: a.distinct,
      ordered: a.orderBy && a.orderBy.length > 0 ? compileSortKeys(a.orderBy.map((k, i) => ({ ...k, expr: { kind: 'column', index: a.args.length + i, type: k.expr.type } }))) : undefined,
      orderExprCount: a.orderBy?.length ?? 0,
    };
  });
  const orderExprs = plan.aggregates.map((a) => (a.orderBy ?? []).map((k) => compileExpr(k.expr)));
  const needsBuffer = aggs.map((a) => a.distinct || a.ordered !== undefined);

  function newGroup(keys: unknown[], setIndex: number): GroupState {
    return {
      keys, setIndex,
      states: aggs.map((a) => a.impl.init()),
      seen: aggs.map((a) => (a.distinct && !a.ordered ? new Set<string>() : undefined)),
      pending: aggs.map((_, i) => (needsBuffer[i] && aggs[i]!.ordered ? [] : undefined)),
    };
  }

  /** The hash key of set `s`'s group when none of its keys is grouped (must match sink's keys). */
  function emptySetKey(s: number): string {
    const prefix = sets.length > 1 ? s + '|' : '';
    const nk = keyExprs.length;
    if (nk === 1) return prefix + '\u0000N';
    let key = prefix;
    for (let k = 0; k < nk; k++) key += '2:\u0000N';
    return key;
  }

  // ---- sink ----
  async function sink(run: RunState, table: Map<string, GroupState>, b: ColumnarBatch): Promise<number> {
    const keyCols: unknown[][] = [];
    for (const e of keyExprs) keyCols.push(await e.evaluate(b, run));
    const argCols: unknown[][][] = [];
    const filterCols: (unknown[] | undefined)[] = [];
    const orderCols: unknown[][][] = [];
    for (let a = 0; a < aggs.length; a++) {
      const ag = aggs[a]!;
      const cols: unknown[][] = [];
      for (const e of ag.args) cols.push(await e.evaluate(b, run));
      argCols.push(cols);
      filterCols.push(ag.filter ? await ag.filter.evaluate(b, run) : undefined);
      const oc: unknown[][] = [];
      for (const e of orderExprs[a]!) oc.push(await e.evaluate(b, run));
      orderCols.push(oc);
    }
    let added = 0;
    const nk = keyExprs.length;
    const scratch = aggs.map((ag) => new Array<unknown>(ag.args.length));
    for (let s = 0; s < sets.length; s++) {
      const set = sets[s]!;
      const inSet = keyExprs.map((_, k) => set.includes(k));
      const prefix = sets.length > 1 ? s + '|' : '';
      for (let i = 0; i < b.numRows; i++) {
        let key: string;
        if (nk === 1) key = prefix + (inSet[0] ? valueKey(keyCols[0]![i], keyTypes[0]!) : '\u0000N');
        else {
          key = prefix;
          for (let k = 0; k < nk; k++) {
            const kk = inSet[k] ? valueKey(keyCols[k]![i], keyTypes[k]!) : '\u0000N';
            key += kk.length + ':' + kk;
          }
        }
        let g = table.get(key);
        if (!g) {
          g = newGroup(keyExprs.map((_, k) => (inSet[k] ? keyCols[k]![i] : null)), s);
          table.set(key, g);
          added += GROUP_OVERHEAD + key.length * 2;
        }
        for (let a = 0; a < aggs.length; a++) {
          const ag = aggs[a]!;
          const f = filterCols[a];
          if (f && f[i] !== true) continue;
          const cols = argCols[a]!;
          const args = scratch[a]!;
          let hasNull = false;
          for (let c = 0; c < cols.length; c++) { const v = cols[c]![i]; if (v === null) hasNull = true; args[c] = v; }
          if (ag.strict && hasNull) continue;
          const pend = g.pending[a];
          if (pend) {
            pend.push([...args, ...orderCols[a]!.map((c) => c[i])]);
            added += 16 * (args.length + 1);
            continue;
          }
          const seen = g.seen[a];
          if (seen) {
            const k = rowKey(args, ag.argTypes);
            if (seen.has(k)) continue;
            seen.add(k);
            added += k.length * 2 + 32;
          }
          g.states[a] = ag.impl.step(g.states[a], args);
        }
      }
    }
    run.memory.reserve(added, 'hash aggregate');
    return added;
  }

  // ---- combine ----
  function combine(into: Map<string, GroupState>, from: Map<string, GroupState>): void {
    for (const [k, g] of from) {
      const t = into.get(k);
      if (!t) { into.set(k, g); continue; }
      for (let a = 0; a < aggs.length; a++) {
        const pend = g.pending[a];
        if (pend) { t.pending[a]!.push(...pend); continue; }
        const seen = g.seen[a];
        if (seen) {
          // Distinct partials cannot merge states; distinct aggregates stay single-producer.
          throw new FloeError(SqlState.internalError, 'cannot combine partial DISTINCT aggregates');
        }
        t.states[a] = aggs[a]!.impl.combine(t.states[a], g.states[a]);
      }
    }
  }

  // ---- finalize ----
  function finalize(g: GroupState): unknown[] {
    return aggs.map((ag, a) => {
      const pend = g.pending[a];
      let state = g.states[a];
      if (pend) {
        const n = ag.args.length;
        const cols: unknown[][] = Array.from({ length: n + ag.orderExprCount }, (_, c) => pend.map((r) => r[c]));
        const idx = pend.map((_, i) => i);
        idx.sort(ag.ordered!.comparator(cols.slice(n)));
        const seen = ag.distinct ? new Set<string>() : undefined;
        for (const i of idx) {
          const args = pend[i]!.slice(0, n);
          if (seen) {
            const k = rowKey(args, ag.argTypes);
            if (seen.has(k)) continue;
            seen.add(k);
          }
          state = ag.impl.step(state, args);
        }
      }
      const v = ag.impl.final(state);
      return v === undefined ? null : v;
    });
  }

  return {
    plan,
    columns: plan.columns,
    execute(run) {
      return metered(plan, run, async function* (): AsyncGenerator<RecordBatch> {
        const global = new Map<string, GroupState>();
        const local = new Map<string, GroupState>();
        let reserved = 0;
        try {
          for await (const b of decodedInput(input, run)) reserved += await sink(run, local, b);
          combine(global, local);
          // A grand total (no keys) yields one row even on empty input.
          for (let s = 0; s < sets.length; s++) {
            if (sets[s]!.length === 0) {
              const key = emptySetKey(s);
              if (!global.has(key)) global.set(key, newGroup(keyExprs.map(() => null), s));
            }
          }
          recordMetric(plan, run, 'groups', global.size);
          // ---- source ----
          const out: unknown[][] = plan.columns.map(() => []);
          let n = 0;
          for (const g of global.values()) {
            const vals = finalize(g);
            let c = 0;
            for (const k of g.keys) out[c++]!.push(k);
            for (const v of vals) out[c++]!.push(v);
            if (withGroupingId) {
              const set = sets[g.setIndex]!;
              let id = 0;
              for (let k = 0; k < keyExprs.length; k++) if (!set.includes(k)) id |= 1 << (keyExprs.length - 1 - k);
              out[c++]!.push(id);
            }
            n++;
          }
          yield* emitBatches(plan.columns, out, n);
        } finally {
          run.memory.release(reserved);
        }
      });
    },
  };
}
