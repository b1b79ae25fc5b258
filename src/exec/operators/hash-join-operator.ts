import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { compileExpr, truthySelection } from '../expr/compile-expr.js';
import type { CompiledExpr } from '../expr/compile-expr.js';
import type { Expr } from '../expr/expr.js';
import type { HashJoinPlan, JoinType } from '../plan/physical-plan.js';
import { valueKey } from '../types/value-ops.js';
import type { Operator } from './operator.js';
import { JoinOutput, PAIR_SLICE, PairBuffer, columnsUsed, evalPairs, expectedJoinWidth } from './join-support.js';
import type { BuildSide } from './join-support.js';
import { BATCH_ROWS, breathe, inputBatches, estimateBytes, metered, recordMetric, selectRows } from './operator-support.js';
import { ArrowColumn, columnSource, lazyBatch } from '../arrow/columnar-batch.js';
import type { ColumnSource, ColumnarBatch } from '../arrow/columnar-batch.js';
import { concatData } from '../arrow/concat-data.js';
import type { LakeScanPlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';
import { intKeyChains } from './int-hash-table.js';
import { int32Column } from './int32-column.js';
import type { JoinKeyIndex } from './int-hash-table.js';
import { buildSideImplied } from './runtime-filter-build-predicate.js';
import { buildRuntimeFilter, intRuntimeFilter, buildSideFilterTargets, dropsUnmatchedBuildRows, runtimeFilterKind, runtimeFilterMaxKeys, runtimeFiltersEnabled, runtimeFilterTargets } from './runtime-filter.js';
import type { RuntimeFilterSlot, RuntimeFilterTarget } from './runtime-filter.js';

/**
 * How one key column's values become Map keys, chosen from both sides' types so
 * that SQL-equal values map to the same JS primitive without building strings:
 * - int: integers (number, or bigint turned into a number when it is a safe integer,
 *   else its decimal string — a string never equals a number, so keys stay exact);
 * - float: the number itself (Map's SameValueZero already has NaN = NaN and -0 = 0,
 *   PostgreSQL's float equality);
 * - string: text without blank-padding semantics, as is;
 * - general: valueKey's normalized string (numeric scale, bpchar, interval, …).
 */
export type JoinKeyKind = 'int' | 'float' | 'string' | 'general';

const INT_KINDS = new Set<SqlType['kind']>(['int2', 'int4', 'int8']);
const STRING_KINDS = new Set<SqlType['kind']>(['text', 'varchar', 'name']);

export function joinKeyKind(a: SqlType, b: SqlType): JoinKeyKind {
  if (INT_KINDS.has(a.kind) && INT_KINDS.has(b.kind)) return 'int';
  if (a.kind === b.kind && (a.kind === 'date' || a.kind === 'timestamp' || a.kind === 'timestamptz' || a.kind === 'time' || a.kind === 'timetz' || a.kind === 'oid')) return 'int';
  if ((a.kind === 'float4' || a.kind === 'float8') && (b.kind === 'float4' || b.kind === 'float8')) return 'float';
  if (STRING_KINDS.has(a.kind) && STRING_KINDS.has(b.kind)) return 'string';
  return 'general';
}

/** A NULL key under IS NOT DISTINCT FROM (single-column keys). */
const NULL_KEY = Symbol('null key');
/** Two small integers pack into one number below 2^52: a·2^26 + b with |a| < 2^25, 0 ≤ b < 2^26. */
const PACK = 2 ** 26;
const PACK_A = 2 ** 25;

function intKey(v: unknown): number | string {
  if (typeof v === 'number') return v;
  const b = v as bigint;
  return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b.toString();
}

function partText(v: unknown, kind: JoinKeyKind, type: SqlType): string {
  if (v === null) return '\u0000N';
  switch (kind) {
    case 'int': return typeof v === 'number' ? String(v) : (v as bigint).toString();
    case 'float': { const x = v as number; return x === 0 ? '0' : String(x); }
    case 'string': return v as string;
    case 'general': return valueKey(v, type);
  }
}

/**
 * Map keys of one batch's key columns; `undefined` marks a row whose key holds a
 * NULL that `=` rejects (it matches nothing).
 */
export function joinKeys(parts: readonly (readonly unknown[])[], kinds: readonly JoinKeyKind[], types: readonly SqlType[], nullEq: readonly boolean[], n: number): unknown[] {
  const out = new Array<unknown>(n);
  if (parts.length === 1) {
    const col = parts[0]!;
    const kind = kinds[0]!;
    const eqNull = nullEq[0]!;
    const nullKey = eqNull ? NULL_KEY : undefined;
    switch (kind) {
      case 'int':
        for (let i = 0; i < n; i++) { const v = col[i]; out[i] = v === null ? nullKey : typeof v === 'number' ? v : intKey(v); }
        break;
      case 'float': case 'string':
        for (let i = 0; i < n; i++) { const v = col[i]; out[i] = v === null ? nullKey : v; }
        break;
      case 'general': {
        const t = types[0]!;
        for (let i = 0; i < n; i++) { const v = col[i]; out[i] = v === null ? nullKey : valueKey(v, t); }
        break;
      }
    }
    return out;
  }
  const packable = parts.length === 2 && kinds[0] === 'int' && kinds[1] === 'int';
  rows: for (let i = 0; i < n; i++) {
    if (packable) {
      let a = parts[0]![i]; let b = parts[1]![i];
      // int4 on one side and int8 on the other must pack alike.
      if (typeof a === 'bigint') a = intKey(a);
      if (typeof b === 'bigint') b = intKey(b);
      if (typeof a === 'number' && typeof b === 'number' && a > -PACK_A && a < PACK_A && b >= 0 && b < PACK && Number.isInteger(a) && Number.isInteger(b)) {
        out[i] = a * PACK + b;
        continue;
      }
    }
    // Length-prefixed parts: a string key never equals a packed number.
    let s = '';
    for (let c = 0; c < parts.length; c++) {
      const v = parts[c]![i];
      if (v === null && !nullEq[c]) { out[i] = undefined; continue rows; }
      const t = partText(v, kinds[c]!, types[c]!);
      s += t.length + ':' + t;
    }
    out[i] = s;
  }
  return out;
}

/** Inner joins whose left input ends within this many rows build on the left. */
export const SMALL_LEFT_ROWS = 50_000;

/**
 * Left/semi/anti joins whose build side a runtime filter could shrink read up to
 * this many left rows first; when the left input ends within them, its keys filter
 * the build side's scans (Q17's and Q20's per-part aggregates over lineitem).
 */
export const PROBE_FIRST_ROWS = 250_000;

/**
 * Key → first row, chained to the others through `next` (in row order), so
 * building allocates nothing per row; rows with a rejected NULL key are left out.
 * Number keys (int columns, packed int pairs) go to a typed open-addressing table.
 */
/*
 * The probe loops live in plain functions, not in the operator's async generators:
 * V8 does not optimize a loop inside a generator while it runs (no on-stack
 * replacement there), and a join's generator runs once per query, so its loop stayed
 * in the interpreter: ~175 ns a probe row (Q22's anti join, 192k order rows).
 */

/**
 * Candidate pairs of one right batch against the table over the left input, in
 * (left, right) row order. `done` (semi/anti): left rows with their verdict, which
 * need no more pairs.
 */
function probeLeftTable(
  rkeys: ArrayLike<unknown>, n: number, head: JoinKeyIndex, next: Int32Array, done: Uint8Array | undefined, pairs: PairBuffer,
): void {
  pairs.clear();
  for (let j = 0; j < n; j++) {
    const k = rkeys[j];
    if (k === undefined) continue;
    let i = head.get(k);
    if (i === undefined) continue;
    if (done) {
      while (i >= 0) { if (!done[i]) pairs.push(i, j); i = next[i]!; }
    } else {
      while (i >= 0) { pairs.push(i, j); i = next[i]!; }
    }
  }
}

/** Marks the left rows of pairs [start, end) that passed (`ok`, when given) as done; returns how many were not done before. */
function markDone(done: Uint8Array, li: Int32Array, start: number, end: number, ok: readonly unknown[] | undefined): number {
  let marked = 0;
  for (let p = start; p < end; p++) {
    const i = li[p]!;
    if (!done[i] && (ok === undefined || ok[p - start] === true)) { done[i] = 1; marked++; }
  }
  return marked;
}

/** Candidate pairs of one left batch against the table over the right input; a NULL-keyed row is `unknown` to `out` when given. */
function probeRightTable(
  pkeys: ArrayLike<unknown>, n: number, head: JoinKeyIndex, next: Int32Array, pairs: PairBuffer, out: JoinOutput | undefined,
): void {
  pairs.clear();
  for (let i = 0; i < n; i++) {
    const k = pkeys[i];
    if (k === undefined) { out?.unknown(i); continue; }
    let j = head.get(k);
    if (j === undefined) continue;
    while (j >= 0) { pairs.push(i, j); j = next[j]!; }
  }
}

function hashTable(keys: ArrayLike<unknown>): { head: JoinKeyIndex; next: Int32Array; hasNullKey: boolean } {
  const next = new Int32Array(keys.length);
  const typed = intKeyChains(keys, next);
  if (typed) return { head: typed.head, next, hasNullKey: typed.hasNullKey };
  const head = new Map<unknown, number>();
  let hasNullKey = false;
  // Backwards, so each chain runs in row order.
  for (let j = keys.length - 1; j >= 0; j--) {
    const k = keys[j];
    if (k === undefined) { hasNullKey = true; continue; }
    const h = head.get(k);
    next[j] = h === undefined ? -1 : h;
    head.set(k, j);
  }
  return { head, next, hasNullKey };
}

/**
 * Equi-join: builds a hash table over the right input (accounted against the
 * memory limit), then streams the left input through it. Supports inner, left,
 * right, full, semi, anti and mark (IN with three-valued NULL semantics).
 * An inner join whose left input ends within SMALL_LEFT_ROWS builds on the left
 * instead (see execute).
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
  // Scan columns of the probe side that the build keys can filter (runtime filters).
  const rtfTargets = runtimeFilterTargets(plan);
  // …and, when the probe side turns out small, build-side scan columns its keys can filter.
  const buildTargets = buildSideFilterTargets(plan);
  // Build rows the residual rules out whatever the probe row (join types that drop unmatched build rows).
  const implied = plan.residual && dropsUnmatchedBuildRows(plan.joinType) ? buildSideImplied(plan.residual, lw) : undefined;
  const buildPredicate = implied ? compileExpr(implied) : undefined;
  return {
    plan,
    columns: plan.columns,
    execute(run) {
      const enabled = runtimeFiltersEnabled(run);
      const rtf = enabled && rtfTargets.length > 0 ? runWithSlots(run, rtfTargets) : undefined;
      const probeRun = rtf?.run ?? run;
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

      /**
       * Hash table over the whole (small) left input; each right batch probes it.
       * Inner joins emit pairs per right batch; left, semi and anti joins also
       * remember which left rows found a partner and emit their unmatched
       * (left: NULL-padded), matched (semi) or unmatched (anti) rows once the right
       * input ends — the right input is never materialized.
       */
      async function* smallLeft(batches: readonly ColumnarBatch[], numRows: number, rightBatches: AsyncIterable<ColumnarBatch>): AsyncGenerator<ColumnarBatch> {
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
      async function* buildRight(buffered: readonly ColumnarBatch[], rest: AsyncIterator<ColumnarBatch>, rightInput: Buffered): AsyncGenerator<ColumnarBatch> {
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
        const out = new JoinOutput(plan.joinType, lw, rw, build);
        const pairs = new PairBuffer();
        const nonEmpty = build.numRows > 0;
        const probe = async function* (): AsyncGenerator<ColumnarBatch> {
          yield* buffered;
          for (let r = await rest.next(); !r.done; r = await rest.next()) yield r.value;
        };
        for await (const b of probe()) {
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

      return metered(plan, run, async function* (): AsyncGenerator<ColumnarBatch> {
        const jt = plan.joinType;
        const leftIt = inputBatches(left, probeRun)[Symbol.asyncIterator]();
        const lbuf: Buffered = { batches: [], rows: 0, bytes: 0, done: false };
        const rbuf: Buffered = { batches: [], rows: 0, bytes: 0, done: false };
        let rightIt: AsyncIterator<ColumnarBatch> | undefined;
        try {
          // With runtime filters the (estimated smaller) right side builds first, so
          // the probe side's scans start with their filters installed.
          // Without them, a left input that ends soon enough is read first: the join
          // may then build on it, and its keys can filter the right input's scans.
          // A left input the planner expects to be the smaller one goes first all the same (semi/anti/left: Q4's orders).
          const readFirst = rtf && !plan.leftLooksSmaller ? -1 : jt === 'inner' ? SMALL_LEFT_ROWS : SMALL_LEFT_TYPES.has(jt) ? PROBE_FIRST_ROWS : -1;
          if (readFirst >= 0) await readUpTo(leftIt, lbuf, readFirst, run);
          if (lbuf.done) await installBuildFilters(lbuf.batches);
          if (lbuf.done && jt === 'inner') {
            recordMetric(plan, run, 'buildRows', lbuf.rows);
            recordMetric(plan, run, 'buildSide', 'left');
            yield* smallLeft(lbuf.batches, lbuf.rows, inputBatches(right, buildRun));
            return;
          }
          rightIt = inputBatches(right, buildRun)[Symbol.asyncIterator]();
          if (lbuf.done && SMALL_LEFT_TYPES.has(jt)) {
            // Left/semi/anti over a small left input: the right input streams through
            // a table over the left one unless it turns out smaller still.
            await readUpTo(rightIt, rbuf, SMALL_RIGHT_ROWS, run);
            if (!rbuf.done) {
              recordMetric(plan, run, 'buildRows', lbuf.rows);
              recordMetric(plan, run, 'buildSide', 'left');
              yield* smallLeft(lbuf.batches, lbuf.rows, drainBuffered(rbuf, rightIt));
              return;
            }
          } else if (rtf && SMALL_LEFT_TYPES.has(jt) && jt !== 'inner') {
            // A build side past the runtime filter cap gets no filter anyway (Q21's
            // EXISTS over all of lineitem): then a left input that ends soon is worth
            // reading, and building on it spares materializing the right input.
            await readUpTo(rightIt, rbuf, runtimeFilterMaxKeys(run), run);
            if (!rbuf.done) {
              await readUpTo(leftIt, lbuf, PROBE_FIRST_ROWS, run);
              if (lbuf.done) {
                // The right scan's tasks still to launch take the left keys as their filter.
                await installBuildFilters(lbuf.batches);
                recordMetric(plan, run, 'buildRows', lbuf.rows);
                recordMetric(plan, run, 'buildSide', 'left');
                yield* smallLeft(lbuf.batches, lbuf.rows, drainBuffered(rbuf, rightIt));
                return;
              }
            }
          }
          await readUpTo(rightIt, rbuf, Infinity, run);
          yield* buildRight(lbuf.batches, leftIt, rbuf);
        } finally {
          run.memory.release(lbuf.bytes + rbuf.bytes);
          await rightIt?.return?.(undefined);
          await leftIt.return?.(undefined);
        }
      });
    },
  };
}

/** Batches read ahead from one join input, with the memory reserved for them. */
interface Buffered {
  batches: ColumnarBatch[];
  rows: number;
  bytes: number;
  /** The input ended. */
  done: boolean;
}

/** Reads batches until the input ends or more than `limit` rows are buffered. */
async function readUpTo(it: AsyncIterator<ColumnarBatch>, buf: Buffered, limit: number, run: RunState): Promise<void> {
  while (!buf.done && buf.rows <= limit) {
    const r = await it.next();
    if (r.done) { buf.done = true; break; }
    buf.batches.push(r.value);
    buf.rows += r.value.numRows;
    const est = estimateBytes(r.value);
    run.memory.reserve(est, 'hash join');
    buf.bytes += est;
  }
}

/** The buffered batches (let go as they are read), then the rest of the input. */
async function* drainBuffered(buf: Buffered, rest: AsyncIterator<ColumnarBatch>): AsyncGenerator<ColumnarBatch> {
  for (let b = buf.batches.shift(); b !== undefined; b = buf.batches.shift()) yield b;
  if (buf.done) return;
  for (let r = await rest.next(); !r.done; r = await rest.next()) yield r.value;
}

/**
 * Left/semi/anti joins over a small left input build on it only when the right
 * input holds more rows than this: a smaller right input builds as planned (and
 * a left join then keeps the probe order).
 */
export const SMALL_RIGHT_ROWS = 50_000;

/** Join types whose hash table may hold the left input when it turns out small (right/full/mark keep the planned shape). */
const SMALL_LEFT_TYPES = new Set<JoinType>(['inner', 'left', 'semi', 'anti']);

/**
 * One batch over several: columns no batch has decoded are concatenated as
 * Arrow data (payload stays undecoded), others are copied value by value.
 */
function concatBatches(batches: readonly ColumnarBatch[], numRows: number, width: number): ColumnarBatch {
  if (batches.length === 1) return batches[0]!;
  const sources: ColumnSource[] = [];
  for (let c = 0; c < width; c++) {
    const srcs = batches.map((b) => columnSource(b, c));
    if (srcs.length > 0 && srcs.every((p) => p instanceof ArrowColumn)) {
      const arrow = srcs as ArrowColumn[];
      const data = concatData(arrow.map((p) => p.data));
      if (data) { sources.push(new ArrowColumn(data, arrow[0]!.type)); continue; }
    }
    const out: unknown[] = [];
    for (const b of batches) {
      const src = b.columns[c]!;
      for (let i = 0; i < b.numRows; i++) out.push(src[i]);
    }
    sources.push(out);
  }
  return lazyBatch(numRows, sources);
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
