import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { CompiledExpr } from '../expr/compile-expr.js';
import { functionById } from '../functions/function-registry.js';
import type { AggregateImpl } from '../functions/function-registry.js';
import type { WindowCall, WindowFrame, WindowFrameBound, WindowPlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';
import { compareValues, rowKey } from '../types/value-ops.js';
import type { Operator } from './operator.js';
import { collectInput, emitValues, meteredOperator } from './operator-support.js';
import { compileSortKeys } from './sort-keys.js';
import { rangeFrameOffset, type RangeFrameOffset } from './range-frame-offset.js';

interface CompiledWindow {
  readonly call: WindowCall;
  readonly name: string;
  readonly agg: AggregateImpl | undefined;
  readonly strict: boolean;
  readonly partition: readonly CompiledExpr[];
  readonly order: ReturnType<typeof compileSortKeys>;
  readonly args: readonly CompiledExpr[];
  readonly filter: CompiledExpr | undefined;
  readonly frame: WindowFrame;
}

const RANKING = new Set(['row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead']);

/**
 * Window functions: materializes the input, then per call partitions rows by
 * hash, orders each partition (stable), and computes ranking/offset functions
 * or aggregates over the frame — incrementally when the frame starts at
 * UNBOUNDED PRECEDING, by recomputation otherwise.
 */
export function createWindowOperator(plan: WindowPlan, input: Operator): Operator {
  const inW = input.columns.length;
  if (plan.columns.length !== inW + plan.functions.length) {
    throw new FloeError(SqlState.internalError, `window has ${plan.columns.length} columns, expected ${inW + plan.functions.length}`);
  }
  const calls: CompiledWindow[] = plan.functions.map((call) => {
    const f = functionById(call.fn);
    if (!f || (f.kind !== 'window' && f.kind !== 'aggregate')) throw new FloeError(SqlState.undefinedFunction, `window function ${call.fn} does not exist`);
    const name = call.fn.slice(0, call.fn.indexOf('('));
    const frame: WindowFrame = call.frame ?? (call.orderBy.length > 0
      ? { mode: 'range', start: { kind: 'unboundedPreceding' }, end: { kind: 'currentRow' } }
      : { mode: 'rows', start: { kind: 'unboundedPreceding' }, end: { kind: 'unboundedFollowing' } });
    return {
      call, name,
      agg: f.kind === 'aggregate' ? f.aggregate!(call.args.map((a) => a.type)) : undefined,
      strict: f.strict,
      partition: call.partitionBy.map(compileExpr),
      order: compileSortKeys(call.orderBy),
      args: call.args.map(compileExpr),
      filter: call.filter ? compileExpr(call.filter) : undefined,
      frame,
    };
  });
  return meteredOperator(plan, (run) => windowBatches(plan, input, calls, run));
}

/** The input's rows with each window function's value beside them, in the last window's partition and sort order. */
async function* windowBatches(plan: WindowPlan, input: Operator, calls: readonly CompiledWindow[], run: RunState): AsyncGenerator<ColumnarBatch> {
  const all = await collectInput(input, run, 'window');
  try {
    const batch = { numRows: all.numRows, columns: all.columns };
    const results: unknown[][] = [];
    let outputOrder: number[] = Array.from({ length: all.numRows }, (_, i) => i);
    for (const w of calls) {
      const res = new Array<unknown>(all.numRows).fill(null);
      const order = await computeWindow(w, batch, run, res);
      results.push(res);
      outputOrder = order;
    }
    const cols = [...all.columns, ...results].map((c) => outputOrder.map((i) => c[i]));
    yield* emitValues(cols, all.numRows);
  } finally {
    run.memory.release(all.bytes);
  }
}

async function computeWindow(w: CompiledWindow, batch: ColumnarBatch, run: RunState, res: unknown[]): Promise<number[]> {
  const n = batch.numRows;
  const pcols: unknown[][] = [];
  for (const e of w.partition) pcols.push(await e.evaluate(batch, run));
  const ptypes: SqlType[] = w.call.partitionBy.map((e) => e.type);
  const okeys = await w.order.evaluate(batch, run);
  const cmp = w.order.comparator(okeys);
  const args: unknown[][] = [];
  for (const e of w.args) args.push(await e.evaluate(batch, run));
  const filt = w.filter ? await w.filter.evaluate(batch, run) : undefined;
  const parts = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    const k = pcols.length === 0 ? '' : rowKey(pcols.map((c) => c[i]), ptypes);
    const p = parts.get(k);
    if (p) p.push(i); else parts.set(k, [i]);
  }
  const order: number[] = [];
  for (const rows of parts.values()) {
    rows.sort((a, b) => cmp(a, b) || a - b);
    computePartition(w, rows, cmp, okeys, args, filt, res, run);
    for (const r of rows) order.push(r);
  }
  return order;
}

function computePartition(
  w: CompiledWindow, rows: number[], cmp: (a: number, b: number) => number, okeys: unknown[][],
  args: unknown[][], filt: unknown[] | undefined, res: unknown[], run: RunState,
): void {
  const len = rows.length;
  // Peer groups: rows equal on the ORDER BY keys.
  const peerStart = new Int32Array(len);
  const peerEnd = new Int32Array(len);
  const groupIdx = new Int32Array(len);
  let g = 0;
  for (let p = 0; p < len; p++) {
    if (p > 0 && cmp(rows[p - 1]!, rows[p]!) === 0) { peerStart[p] = peerStart[p - 1]!; groupIdx[p] = g; }
    else { peerStart[p] = p; if (p > 0) g++; groupIdx[p] = g; }
  }
  for (let p = len - 1; p >= 0; p--) peerEnd[p] = p < len - 1 && peerStart[p + 1] === peerStart[p] ? peerEnd[p + 1]! : p;
  const val = (k: number, p: number) => args[k]![rows[p]!];

  if (RANKING.has(w.name)) {
    let dense = 0;
    for (let p = 0; p < len; p++) {
      const r = rows[p]!;
      if (peerStart[p] === p) dense++;
      switch (w.name) {
        case 'row_number': res[r] = BigInt(p + 1); break;
        case 'rank': res[r] = BigInt(peerStart[p]! + 1); break;
        case 'dense_rank': res[r] = BigInt(dense); break;
        case 'percent_rank': res[r] = len > 1 ? peerStart[p]! / (len - 1) : 0; break;
        case 'cume_dist': res[r] = (peerEnd[p]! + 1) / len; break;
        case 'ntile': {
          const buckets = Number(val(0, p));
          if (!(buckets > 0)) throw new FloeError('22014', 'argument of ntile must be greater than zero');
          const per = Math.floor(len / buckets); const extra = len % buckets;
          const bigRows = extra * (per + 1);
          res[r] = p < bigRows ? Math.floor(p / (per + 1)) + 1 : extra + Math.floor((p - bigRows) / Math.max(per, 1)) + 1;
          break;
        }
        case 'lag': case 'lead': {
          const off = args.length > 1 ? Number(val(1, p)) : 1;
          const q = w.name === 'lag' ? p - off : p + off;
          res[r] = q >= 0 && q < len ? val(0, q) ?? null : args.length > 2 ? val(2, p) ?? null : null;
          break;
        }
      }
    }
    return;
  }

  const offsets = new Map<WindowFrameBound, number>([
    [w.frame.start, w.frame.mode === 'range' ? 0 : constOffset(w.frame.start, run, true)],
    [w.frame.end, w.frame.mode === 'range' ? 0 : constOffset(w.frame.end, run, false)],
  ]);
  const ranges = w.frame.mode === 'range' ? rangeOffsets(w, run) : undefined;
  const frameOf = (p: number): [number, number] => {
    const f = w.frame;
    return [bound(f, f.start, p, true), bound(f, f.end, p, false)];
  };
  const bound = (f: WindowFrame, b: WindowFrameBound, p: number, isStart: boolean): number => {
    switch (b.kind) {
      case 'unboundedPreceding': return 0;
      case 'unboundedFollowing': return len - 1;
      case 'currentRow':
        if (f.mode === 'rows') return p;
        return isStart ? peerStart[p]! : peerEnd[p]!;
      case 'preceding': case 'following': {
        const off = offsets.get(b) ?? 0;
        const sign = b.kind === 'preceding' ? -1 : 1;
        if (f.mode === 'rows') return p + sign * off;
        if (f.mode === 'groups') {
          const target = groupIdx[p]! + sign * off;
          if (isStart) { let q = 0; while (q < len && groupIdx[q]! < target) q++; return q; }
          let q = len - 1; while (q >= 0 && groupIdx[q]! > target) q--; return q;
        }
        // RANGE with an offset: a NULL key's frame is its peers; other rows skip the NULLs.
        const key = okeys[0]!;
        const cur = key[rows[p]!];
        if (cur === null) return isStart ? peerStart[p]! : peerEnd[p]!;
        const range = ranges!.get(b)!;
        const desc = w.call.orderBy[0]!.descending;
        const edge = range.shift(cur, (desc ? -sign : sign) as 1 | -1);
        // PostgreSQL's head search stops at NULLs sorted after the row (they then open the frame); the tail never takes them.
        const nullsAfter = !w.call.orderBy[0]!.nullsFirst;
        const within = (v: unknown): boolean => {
          if (v === null) return isStart && nullsAfter;
          const c = range.compare(v, edge);
          return isStart ? (desc ? c <= 0 : c >= 0) : (desc ? c >= 0 : c <= 0);
        };
        if (isStart) { let q = 0; while (q < len && !within(key[rows[q]!])) q++; return q; }
        let q = len - 1; while (q >= 0 && !within(key[rows[q]!])) q--; return q;
      }
    }
  };

  if (w.name === 'first_value' || w.name === 'last_value' || w.name === 'nth_value') {
    for (let p = 0; p < len; p++) {
      const [s0, e0] = frameOf(p);
      const s = Math.max(0, s0); const e = Math.min(len - 1, e0);
      let v: unknown = null;
      if (s <= e) {
        if (w.name === 'first_value') v = val(0, s);
        else if (w.name === 'last_value') v = val(0, e);
        else { const k = Number(val(1, p)); if (k <= 0) throw new FloeError('22016', 'argument of nth_value must be greater than zero'); v = s + k - 1 <= e ? val(0, s + k - 1) : null; }
      }
      res[rows[p]!] = v ?? null;
    }
    return;
  }

  const agg = w.agg!;
  const include = (q: number) => {
    const r = rows[q]!;
    if (filt && filt[r] !== true) return undefined;
    const a = args.map((c) => c[r]);
    if (w.strict && a.some((v) => v === null)) return undefined;
    return a;
  };
  const incremental = w.frame.start.kind === 'unboundedPreceding';
  let state = agg.init();
  let stepped = -1;
  for (let p = 0; p < len; p++) {
    const [s0, e0] = frameOf(p);
    const s = Math.max(0, s0); const e = Math.min(len - 1, e0);
    if (incremental) {
      while (stepped < e) { stepped++; const a = include(stepped); if (a) state = agg.step(state, a); }
      res[rows[p]!] = nullish(agg.final(state));
    } else {
      let st = agg.init();
      for (let q = s; q <= e; q++) { const a = include(q); if (a) st = agg.step(st, a); }
      res[rows[p]!] = nullish(agg.final(st));
    }
  }
  void compareValues;
}

function nullish(v: unknown): unknown {
  return v === undefined ? null : v;
}

function offsetValue(b: WindowFrameBound, run: RunState, isStart: boolean): unknown {
  const v = compileExpr(b.offset!).evaluateSync({ numRows: 1, columns: [] }, run)[0];
  if (v === null) throw new FloeError(SqlState.nullValueNotAllowed, `frame ${isStart ? 'starting' : 'ending'} offset must not be null`);
  return v;
}

function constOffset(b: WindowFrameBound, run: RunState, isStart: boolean): number {
  if (!b.offset) return 0;
  const n = Number(offsetValue(b, run, isStart));
  if (n < 0) throw new FloeError('22013', `frame ${isStart ? 'starting' : 'ending'} offset must not be negative`);
  return n;
}

/** RANGE frames: the offsets of the PRECEDING/FOLLOWING bounds, typed against the single ORDER BY key. */
function rangeOffsets(w: CompiledWindow, run: RunState): Map<WindowFrameBound, RangeFrameOffset> {
  const out = new Map<WindowFrameBound, RangeFrameOffset>();
  for (const [b, isStart] of [[w.frame.start, true], [w.frame.end, false]] as const) {
    if (!b.offset) continue;
    if (w.call.orderBy.length !== 1) {
      throw new FloeError('42P20', 'RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column');
    }
    const settings = { timeZone: run.evalCtx.settings.get('timezone') ?? 'UTC' };
    out.set(b, rangeFrameOffset(w.call.orderBy[0]!.expr.type, b.offset.type, offsetValue(b, run, isStart), settings));
  }
  return out;
}
