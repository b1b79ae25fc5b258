import { FloeError } from '../../../common/floe-error.js';
import { SqlState } from '../../../common/sqlstate.js';
import { compileExpr, truthySelection } from '../../expr/compile-expr.js';
import type { CompiledExpr } from '../../expr/compile-expr.js';
import type { Expr } from '../../expr/expr.js';
import type { HashJoinPlan, LakeScanPlan } from '../../plan/physical-plan.js';
import type { Operator } from '../operator.js';
import { JoinOutput, PAIR_SLICE, PairBuffer, columnsUsed, evalPairs, expectedJoinWidth } from './join-support.js';
import type { BuildSide } from './join-support.js';
import { BATCH_ROWS, breathe, inputBatches, metered, recordMetric, selectRows } from '../operator-support.js';
import type { ColumnarBatch } from '../../arrow/columnar-batch.js';
import type { RunState } from '../../run-state.js';
import { int32Column } from '../int32-column.js';
import type { JoinKeyIndex } from './int-hash-table.js';
import { buildSideImplied } from '../runtime-filter-build-predicate.js';
import { buildRuntimeFilter, intRuntimeFilter, dropsUnmatchedBuildRows, dropsUnmatchedProbeRows, resolveRuntimeFilterTargets, runtimeFilterKind, runtimeFilterMaxKeys, runtimeFiltersEnabled } from '../runtime-filter.js';
import type { RuntimeFilterSlot, RuntimeFilterTarget } from '../runtime-filter.js';
import { concatBatches, drainBuffered, readUpTo } from './buffered-input.js';
import type { Buffered } from './buffered-input.js';
import { buildSideRule, type BuildSideRule } from './build-side.js';
import { fillKeyLookup, KEY_LOOKUP_MAX_KEYS, resolveKeyLookupTargets, runWithKeyLookups } from '../key-lookup.js';
import type { JoinReadAhead } from './build-side.js';
import { hashTable, markDone, probeLeftTable, probeRightTable } from './join-hash-table.js';
import { joinKeyKind, joinKeys } from './join-keys.js';

/**
 * Equi-join: builds a hash table over the right input (accounted against the
 * memory limit), then streams the left input through it. Supports inner, left,
 * right, full, semi, anti and mark (IN with three-valued NULL semantics).
 * The planner's build-side policy may build on a small left input instead, and
 * its runtime filter targets name the scans the keys filter; both are checked here.
 */
export function createHashJoinOperator(plan: HashJoinPlan, left: Operator, right: Operator): Operator {
  if (plan.leftKeys.length !== plan.rightKeys.length || plan.leftKeys.length === 0) {
    throw new FloeError(SqlState.internalError, 'hash join needs the same, non-zero number of keys on both sides');
  }
  const lw = left.columns.length;
  const rw = right.columns.length;
  if (plan.columns.length !== expectedJoinWidth(plan.joinType, lw, rw)) {
    throw new FloeError(SqlState.internalError, `hash join (${plan.joinType}) has ${plan.columns.length} columns for inputs of ${lw} and ${rw}`);
  }
  const lk = plan.leftKeys.map(compileExpr);
  const rk = plan.rightKeys.map(compileExpr);
  // Both sides key with the left side's types (a general key normalizes by type).
  const keyTypes = plan.leftKeys.map((e) => e.type);
  const kinds = plan.leftKeys.map((e, i) => joinKeyKind(e.type, plan.rightKeys[i]!.type));
  const nullEq = plan.leftKeys.map((_, i) => plan.nullEquals?.[i] ?? false);
  const singleIntKey = kinds.length === 1 && kinds[0] === 'int' && !nullEq[0];
  const residual = plan.residual ? compileExpr(plan.residual) : undefined;
  const used = plan.residual ? columnsUsed(plan.residual) : undefined;
  // Scan columns of the probe side that the build keys can filter (runtime filters), as the planner placed them…
  const rtfTargets = resolveRuntimeFilterTargets(plan.left, plan.runtimeFilters?.probe ?? [], plan.leftKeys, plan.rightKeys);
  // …and, when the probe side turns out small, build-side scan columns its keys can filter.
  const buildTargets = resolveRuntimeFilterTargets(plan.right, plan.runtimeFilters?.build ?? [], plan.rightKeys, plan.leftKeys);
  // …and probe-side scans whose full primary key the build keys give, looked up by key when the build is small.
  const lookupTargets = resolveKeyLookupTargets(plan.left, plan.runtimeFilters?.lookups ?? []);
  // Build rows the residual rules out whatever the probe row (join types that drop unmatched build rows).
  const implied = plan.residual && dropsUnmatchedBuildRows(plan.joinType) ? buildSideImplied(plan.residual, lw) : undefined;
  const buildPredicate = implied ? compileExpr(implied) : undefined;
  // Which input holds the table: decided per run by reading ahead, by the policy the planner chose.
  const buildSide = buildSideRule(plan.buildSide ?? 'right', plan.joinType);
  return {
    plan,
    columns: plan.columns,
    execute(run) {
      const enabled = runtimeFiltersEnabled(run);
      const rtf = enabled && rtfTargets.length > 0 ? runWithSlots(run, rtfTargets) : undefined;
      const lookups = enabled && lookupTargets.length > 0 ? runWithKeyLookups(rtf?.run ?? run, lookupTargets) : undefined;
      const probeRun = lookups?.run ?? rtf?.run ?? run;
      // The probe side's own filters need the build first; only without them does the probe side go first
      // (or when a semi/anti/left build turns out too big for its filter, see below).
      const buildRtf = enabled && buildTargets.length > 0 ? runWithSlots(run, buildTargets) : undefined;
      const buildRun = buildRtf?.run ?? run;

      /**
       * One batch's hash keys: a single int4 key column still in Arrow form without
       * NULLs is read from its Int32Array (no decoding, no key array), else joinKeys.
       */
      async function keysOf(batch: ColumnarBatch, exprs: readonly Expr[], compiled: readonly CompiledExpr[], parts: unknown[][] = []): Promise<ArrayLike<unknown>> {
        if (singleIntKey) {
          const e = exprs[0]!;
          const v = e.kind === 'column' ? int32Column(batch, e.index) : undefined;
          if (v) return v;
        }
        for (const e of compiled) parts.push(await e.evaluate(batch, run));
        return joinKeys(parts, kinds, keyTypes, nullEq, batch.numRows);
      }

      /** Fills the build side's slots from the keys of the whole (buffered) probe side, before the build side starts. */
      async function installBuildFilters(batches: readonly ColumnarBatch[]): Promise<void> {
        if (!buildRtf) return;
        const maxKeys = runtimeFilterMaxKeys(run);
        for (const { target, slot } of buildRtf.slots) {
          const k = target.key;
          const kind = runtimeFilterKind(plan.leftKeys[k]!.type, plan.rightKeys[k]!.type)!;
          const parts: (readonly unknown[])[] = [];
          for (const b of batches) parts.push(await lk[k]!.evaluate(b, run));
          slot.filter = buildRuntimeFilter(parts.flat(), kind, target.column, maxKeys);
        }
      }

      /** Fills the probe side's runtime filter slots from the built keys (before the probe side starts). */
      function installFilters(bparts: readonly (readonly unknown[])[], head: JoinKeyIndex): void {
        if (!rtf) return;
        const maxKeys = runtimeFilterMaxKeys(run);
        // One key column: the hash table holds its distinct values, so an oversized build is seen at once.
        if (plan.leftKeys.length === 1 && head.size > maxKeys) return;
        for (const { target, slot } of rtf.slots) {
          const k = target.key;
          const kind = runtimeFilterKind(plan.leftKeys[k]!.type, plan.rightKeys[k]!.type)!;
          // With one key column the hash table's keys are already the distinct values.
          slot.filter = plan.leftKeys.length === 1
            ? (kind === 'int' && head.intKeys ? intRuntimeFilter(head.intKeys(), target.column, maxKeys) : buildRuntimeFilter(head.keys(), kind, target.column, maxKeys, true))
            : buildRuntimeFilter(bparts[k]!, kind, target.column, maxKeys);
        }
      }

      /** Fills the probe side's key lookup slots from the build rows' keys (before the probe side starts). */
      async function installKeyLookups(build: BuildSide, bparts: readonly (readonly unknown[])[]): Promise<void> {
        if (!lookups) return;
        const columns = new Map<number, ArrayLike<unknown>>();
        for (const { target, slot } of lookups.slots) {
          if (build.numRows <= KEY_LOOKUP_MAX_KEYS) {
            // Composite keys were evaluated for the hash table; a single int key may not have been.
            for (const k of target.keys) if (!columns.has(k)) columns.set(k, bparts[k] ?? await rk[k]!.evaluate(build, run));
          }
          fillKeyLookup(slot, target, build.numRows, (k) => columns.get(k)!);
        }
      }

      const join: HashJoinRun = {
        plan, run, left, right, lw, rw, lk, rk, residual, used, buildPredicate, enabled, buildSide, probeRun, buildRun,
        runtimeFilters: rtf !== undefined, keysOf, installFilters, installKeyLookups, installBuildFilters,
      };
      return metered(plan, run, () => hashJoinBatches(join));
    },
  };
}

/**
 * What one run of a hash join works with: the operator's inputs and compiled keys, the
 * runs each side reads under (with the runtime filter and key lookup slots this run
 * fills), and the helpers that fill them.
 */
interface HashJoinRun {
  readonly plan: HashJoinPlan;
  readonly run: RunState;
  readonly left: Operator;
  readonly right: Operator;
  readonly lw: number;
  readonly rw: number;
  readonly lk: readonly CompiledExpr[];
  readonly rk: readonly CompiledExpr[];
  readonly residual: CompiledExpr | undefined;
  readonly used: Set<number> | undefined;
  readonly buildPredicate: CompiledExpr | undefined;
  readonly enabled: boolean;
  readonly buildSide: BuildSideRule;
  readonly probeRun: RunState;
  readonly buildRun: RunState;
  /** Whether the probe side has runtime filter slots this run fills. */
  readonly runtimeFilters: boolean;
  readonly keysOf: (batch: ColumnarBatch, exprs: readonly Expr[], compiled: readonly CompiledExpr[], parts?: unknown[][]) => Promise<ArrayLike<unknown>>;
  readonly installFilters: (bparts: readonly (readonly unknown[])[], head: JoinKeyIndex) => void;
  readonly installKeyLookups: (build: BuildSide, bparts: readonly (readonly unknown[])[]) => Promise<void>;
  readonly installBuildFilters: (batches: readonly ColumnarBatch[]) => Promise<void>;
}

/** One run: reads ahead to choose the build side, then joins. */
async function* hashJoinBatches(join: HashJoinRun): AsyncGenerator<ColumnarBatch> {
  const { plan, run, left, right, probeRun, buildRun, buildSide, installBuildFilters } = join;
  const leftIt = inputBatches(left, probeRun)[Symbol.asyncIterator]();
  const lbuf: Buffered = { batches: [], rows: 0, bytes: 0, done: false };
  const rbuf: Buffered = { batches: [], rows: 0, bytes: 0, done: false };
  const rightIn: { it?: AsyncIterator<ColumnarBatch> } = {};
  const io: JoinReadAhead = {
    runtimeFilters: join.runtimeFilters,
    leftLooksSmaller: plan.leftLooksSmaller === true,
    left: lbuf,
    right: rbuf,
    readLeft: (limit) => readUpTo(leftIt, lbuf, limit, run),
    readRight: (limit) => readUpTo((rightIn.it ??= inputBatches(right, buildRun)[Symbol.asyncIterator]()), rbuf, limit, run),
    runtimeFilterMaxKeys: () => runtimeFilterMaxKeys(run),
    installBuildFilters: () => installBuildFilters(lbuf.batches),
  };
  try {
    if (await buildSide.choose(io) === 'left') {
      recordMetric(plan, run, 'buildRows', lbuf.rows);
      recordMetric(plan, run, 'buildSide', 'left');
      yield* smallLeft(join, lbuf.batches, lbuf.rows, rightIn.it === undefined ? inputBatches(right, buildRun) : drainBuffered(rbuf, rightIn.it));
      return;
    }
    await io.readRight(Infinity);
    yield* buildRight(join, lbuf.batches, leftIt, rbuf);
  } finally {
    run.memory.release(lbuf.bytes + rbuf.bytes);
    await rightIn.it?.return?.(undefined);
    await leftIt.return?.(undefined);
  }
}

  /**
   * Hash table over the whole (small) left input; each right batch probes it.
   * Inner joins emit pairs per right batch; left, semi and anti joins also
   * remember which left rows found a partner and emit their unmatched
   * (left: NULL-padded), matched (semi) or unmatched (anti) rows once the right
   * input ends — the right input is never materialized.
   */
async function* smallLeft(join: HashJoinRun, batches: readonly ColumnarBatch[], numRows: number, rightBatches: AsyncIterable<ColumnarBatch>): AsyncGenerator<ColumnarBatch> {
  const { plan, run, lw, rw, right, lk, rk, residual, used, keysOf } = join;
    const jt = plan.joinType;
    const all = concatBatches(batches, numRows, lw);
    const table = hashTable(await keysOf(all, plan.leftKeys, lk));
    const emptyRight: BuildSide = { columns: right.columns.map(() => []), numRows: 0 };
    const out = new JoinOutput(jt, lw, rw, emptyRight);
    const pairs = new PairBuffer();
    if (numRows === 0) return;
    out.beginProbe(all);
    // Semi/anti: a left row that found its partner needs no more candidate pairs.
    const verdictOnly = jt === 'semi' || jt === 'anti';
    const done = verdictOnly ? new Uint8Array(numRows) : undefined;
    let open = numRows;
    for await (const rb of rightBatches) {
      const rkeys = await keysOf(rb, plan.rightKeys, rk);
      probeLeftTable(rkeys, rb.numRows, table.head, table.next, done, pairs);
      if (pairs.n === 0) continue;
      const build: BuildSide = { columns: rb.columns as unknown[][], numRows: rb.numRows };
      out.useBuild(build);
      for (let start = 0; start < pairs.n; start += PAIR_SLICE) {
        const end = Math.min(pairs.n, start + PAIR_SLICE);
        const ok = residual ? await evalPairs(residual, all, build, pairs.li, pairs.ri, start, end, run, used) : undefined;
        out.accept(pairs.li, pairs.ri, start, end, ok);
        if (done) open -= markDone(done, pairs.li, start, end, ok);
        if (out.pending >= BATCH_ROWS) {
          yield* out.drain();
          await breathe(run);
        }
      }
      yield* out.drain();
      // Every left row has its verdict: the rest of the right input cannot change it.
      if (done && open === 0) break;
    }
    if (jt !== 'inner') {
      out.useBuild(emptyRight);
      out.endProbe();
      yield* out.drain();
    }
}

  /** The planned shape: hash table over the right input, the left input (buffered batches first) probes it. */
async function* buildRight(join: HashJoinRun, buffered: readonly ColumnarBatch[], rest: AsyncIterator<ColumnarBatch>, rightInput: Buffered): AsyncGenerator<ColumnarBatch> {
  const { plan, run, lw, rw, lk, rk, residual, used, buildPredicate, enabled, keysOf, installFilters, installKeyLookups } = join;
    const built = concatBatches(rightInput.batches, rightInput.rows, rw);
    rightInput.batches = [];
    let build: BuildSide = { columns: built.columns, numRows: built.numRows };
    if (buildPredicate && enabled && build.numRows > 0) {
      const padded = { numRows: build.numRows, columns: [...new Array<readonly unknown[]>(lw).fill([]), ...build.columns] };
      const keep = truthySelection(await buildPredicate.evaluate(padded, run), build.numRows);
      if (keep.length < build.numRows) {
        recordMetric(plan, run, 'buildRowsRemovedByResidual', build.numRows - keep.length);
        build = selectRows(build, keep);
      }
    }
    // Filled only when keys are evaluated (installFilters reads them for composite keys).
    const bparts: unknown[][] = [];
    const bkeys = await keysOf(build, plan.rightKeys, rk, bparts);
    const { head, next, hasNullKey: buildHasNullKey } = hashTable(bkeys);
    recordMetric(plan, run, 'buildRows', build.numRows);
    installFilters(bparts, head);
    await installKeyLookups(build, bparts);
    const nonEmpty = build.numRows > 0;
    // No probe row can find a partner, and this join type emits none without one.
    if (!nonEmpty && dropsUnmatchedProbeRows(plan.joinType)) return;
    const out = new JoinOutput(plan.joinType, lw, rw, build);
    const pairs = new PairBuffer();
    for await (const b of bufferedThenRest(buffered, rest)) {
      const pkeys = await keysOf(b, plan.leftKeys, lk);
      out.beginProbe(b);
      probeRightTable(pkeys, b.numRows, head, next, pairs, nonEmpty ? out : undefined);
      for (let start = 0; start < pairs.n; start += PAIR_SLICE) {
        const end = Math.min(pairs.n, start + PAIR_SLICE);
        const ok = residual ? await evalPairs(residual, b, build, pairs.li, pairs.ri, start, end, run, used) : undefined;
        out.accept(pairs.li, pairs.ri, start, end, ok);
        if (out.pending >= BATCH_ROWS) {
          yield* out.drain();
          await breathe(run);
        }
      }
      out.endProbe(buildHasNullKey, !nonEmpty);
      yield* out.drain();
    }
    out.endBuild();
    yield* out.drain();
}

/** The probe side: the batches read ahead, then the rest of its input. */
async function* bufferedThenRest(buffered: readonly ColumnarBatch[], rest: AsyncIterator<ColumnarBatch>): AsyncGenerator<ColumnarBatch> {
  yield* buffered;
  for (let r = await rest.next(); !r.done; r = await rest.next()) yield r.value;
}

/** A run for one input of the join with an empty runtime filter slot per target scan column. */
function runWithSlots(run: RunState, targets: readonly RuntimeFilterTarget[]): { run: RunState; slots: { target: RuntimeFilterTarget; slot: RuntimeFilterSlot }[] } {
  const map = new Map<LakeScanPlan, readonly RuntimeFilterSlot[]>(run.runtimeFilters ?? []);
  const slots: { target: RuntimeFilterTarget; slot: RuntimeFilterSlot }[] = [];
  for (const target of targets) {
    const slot: RuntimeFilterSlot = { columnName: target.scan.projection[target.column] ?? target.scan.columns[target.column]!.name };
    map.set(target.scan, [...(map.get(target.scan) ?? []), slot]);
    slots.push({ target, slot });
  }
  return { run: { ...run, runtimeFilters: map }, slots };
}
