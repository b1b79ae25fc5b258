import { Type } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { arrowFormOf } from '../arrow/columnar-batch.js';
import { endWithoutTrailingBlanks } from '../arrow/utf8-blanks.js';
import { isValid, nullMask } from '../../lake/index.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { ScaledVector } from '../arrow/scaled-vector.js';
import { functionById } from '../functions/function-registry.js';
import type { ScalarImpl } from '../functions/function-registry.js';
import type { PhysicalPlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';
import { arrayOfSubArrays } from '../types/array-of-sub-arrays.js';
import { castValue } from '../types/cast-value.js';
import { regTypeInput, regTypeOutput } from '../types/reg-types.js';
import type { RegTypeKind } from '../types/reg-types.js';
import { trimTrailingBlanks, valueKey } from '../types/value-ops.js';
import type { Expr } from './expr.js';
import { SETTINGS_FREE_TO_NUMERIC, compileScaled } from './compile-scaled.js';
import { isConstant } from './is-constant.js';
import type { Ev, NodeFn } from './node-fn.js';
import type { SpecializeContext } from './specialize/call-specialization.js';
import { CALL_SPECIALIZATIONS } from './specialize/call-specializations.js';
import { plannedSubquery } from './subquery-plan.js';
import { likeBytesMatcher, likeMatcher, likeRequiredBytes } from './like-matcher.js';
import { rowsContaining } from '../arrow/utf8-search.js';
import { runSubplan } from './subplan.js';
import { paramValue } from './param-value.js';


/**
 * An expression compiled once per query into a tree of vectorized closures: each
 * node computes a whole column for a batch (or for a selection of its rows, so
 * CASE/COALESCE branches only run where they are taken, as PostgreSQL's
 * short-circuiting requires for `CASE WHEN x = 0 THEN 0 ELSE 1/x END`).
 */
export interface CompiledExpr {
  readonly type: SqlType;
  /**
   * The value as a ScaledVector, for numeric expressions over numeric(p,s)
   * columns and constants with + - *; undefined when the expression or this
   * batch has no exact scaled form (then `evaluate` gives the text values).
   */
  readonly evaluateScaled?: (batch: ColumnarBatch) => ScaledVector | undefined;
  evaluate(batch: ColumnarBatch, run: RunState): Promise<unknown[]>;
  /** Sync evaluation; only valid when `async` is false (no subqueries). */
  evaluateSync(batch: ColumnarBatch, run: RunState): unknown[];
  /** True when the expression contains subqueries (they run asynchronously before the pass). */
  readonly async: boolean;
}


function isRegKind(k: string): boolean {
  return k === 'regclass' || k === 'regtype' || k === 'regproc' || k === 'regprocedure';
}

function forEach(n: number, sel: Int32Array | undefined, f: (i: number) => void): void {
  if (sel) for (let k = 0; k < sel.length; k++) f(sel[k]!);
  else for (let i = 0; i < n; i++) f(i);
}

/**
 * Runs `args` in turn, each only on the rows no earlier one settled (AND, OR and COALESCE
 * short-circuit row by row): `settles(i, v)` takes an argument's value for row i and says
 * whether it settles the row. Returns the rows none settled.
 */
function settleInTurn(args: readonly NodeFn[], b: ColumnarBatch, ev: Ev, sel: Int32Array | undefined, settles: (i: number, v: unknown) => boolean): Int32Array {
  let pending = sel ?? Int32Array.from({ length: b.numRows }, (_, i) => i);
  for (const a of args) {
    if (pending.length === 0) break;
    const vals = a(b, ev, pending);
    const next: number[] = [];
    for (const i of pending) if (!settles(i, vals[i])) next.push(i);
    pending = Int32Array.from(next);
  }
  return pending;
}

function timeZoneOf(run: RunState): string {
  return run.evalCtx.settings.get('timezone') ?? 'UTC';
}

function impl(id: string, argTypes?: readonly SqlType[]): ScalarImpl {
  const f = functionById(id);
  if (!f || !f.scalar) throw new FloeError(SqlState.undefinedFunction, `function ${id} does not exist`);
  if (f.scalarFor && argTypes) return f.scalarFor(argTypes);
  return f.scalar;
}

function isStrict(id: string): boolean {
  return functionById(id)?.strict ?? true;
}

interface SubqueryNode { readonly expr: Expr & { kind: 'scalarSubquery' | 'exists' | 'inSubquery' } }

/** A call of a function that waits (pg_sleep, pg_advisory_lock): awaited row by row before the batch's pass. */
interface WaitingCall { readonly expr: Expr; readonly run: (b: ColumnarBatch, ev: Ev) => Promise<unknown[]> }

/** What compileNode gathers while it compiles one expression, and the specialized routes it skips. */
interface CompileScope {
  readonly correlated: SubqueryNode[];
  readonly uncorrelated: SubqueryNode[];
  readonly waits: WaitingCall[];
  readonly disabled: ReadonlySet<string> | undefined;
}

export interface CompileOptions {
  /** Names of specialized call routes (specialize/call-specializations.ts) to skip: for tests, and for diagnosing a wrong fast path. */
  readonly disabled?: ReadonlySet<string>;
}

export function compileExpr(expr: Expr): CompiledExpr {
  return compileExprWith(expr, {});
}

/** compileExpr with options. */
export function compileExprWith(expr: Expr, { disabled }: CompileOptions): CompiledExpr {
  const correlated: SubqueryNode[] = [];
  const uncorrelated: SubqueryNode[] = [];
  const waits: WaitingCall[] = [];
  const root = compileNode(expr, { correlated, uncorrelated, waits, disabled });
  const isAsync = correlated.length > 0 || uncorrelated.length > 0 || waits.length > 0;
  const scaled = compileScaled(expr);
  return {
    type: expr.type,
    ...(scaled ? { evaluateScaled: scaled } : {}),
    async: isAsync,
    evaluateSync(batch, run) {
      return root(batch, { run, subResults: new Map() }, undefined);
    },
    async evaluate(batch, run) {
      const subResults = new Map<Expr, unknown[]>();
      for (const s of uncorrelated) await ensureUncorrelated(s.expr, run);
      for (const s of correlated) subResults.set(s.expr, await evaluateCorrelated(s.expr, batch, run));
      const ev: Ev = { run, subResults };
      // Inner calls were pushed first, so an argument that waits is ready before its caller runs.
      for (const w of waits) subResults.set(w.expr, await w.run(batch, ev));
      return root(batch, ev, undefined);
    },
  };
}

/** Results of uncorrelated subplans, cached in the run: rows of the first column, plus a flag for 'exists'. */
interface SubplanResult { readonly values: unknown[]; readonly keys?: Set<string>; readonly hasNull?: boolean }

async function ensureUncorrelated(e: Expr & { kind: 'scalarSubquery' | 'exists' | 'inSubquery' }, run: RunState): Promise<SubplanResult> {
  const cached = run.subplanCache.get(e) as SubplanResult | undefined;
  if (cached) return cached;
  const r = await computeSubplan(e, plannedSubquery(e.plan), run);
  run.subplanCache.set(e, r);
  return r;
}

async function computeSubplan(e: Expr & { kind: 'scalarSubquery' | 'exists' | 'inSubquery' }, plan: PhysicalPlan, run: RunState): Promise<SubplanResult> {
  const limit = e.kind === 'exists' ? 1 : e.kind === 'scalarSubquery' ? 2 : undefined;
  const values = await runSubplan(plan, run, limit);
  if (e.kind === 'scalarSubquery' && values.length > 1) {
    throw new FloeError(SqlState.cardinalityViolation, 'more than one row returned by a subquery used as an expression');
  }
  if (e.kind === 'inSubquery') {
    const t = plan.columns[0]!.type;
    const keys = new Set<string>();
    let hasNull = false;
    for (const v of values) {
      if (v === null) hasNull = true;
      else keys.add(valueKey(v, t));
    }
    return { values, keys, hasNull };
  }
  return { values };
}

async function evaluateCorrelated(e: Expr & { kind: 'scalarSubquery' | 'exists' | 'inSubquery' }, batch: ColumnarBatch, run: RunState): Promise<unknown[]> {
  const out = new Array<unknown>(batch.numRows);
  const memo = new Map<string, SubplanResult>();
  for (let i = 0; i < batch.numRows; i++) {
    const row = batch.columns.map((c) => c[i]);
    const key = JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
    let r = memo.get(key);
    if (!r) {
      r = await computeSubplan(e, plannedSubquery(e.plan), { ...run, outer: [...run.outer, row] });
      memo.set(key, r);
    }
    out[i] = r;
  }
  return out;
}

function subResultFor(e: Expr, ev: Ev, i: number): SubplanResult {
  const per = ev.subResults.get(e);
  if (per) return per[i] as SubplanResult;
  return ev.run.subplanCache.get(e) as SubplanResult;
}

function inResult(v: unknown, t: SqlType, r: SubplanResult, negated: boolean): boolean | null {
  if (r.values.length === 0) return negated;
  if (v === null) return null;
  if (r.keys!.has(valueKey(v, t))) return !negated;
  if (r.hasNull) return null;
  return negated;
}

function compileNode(e: Expr, scope: CompileScope): NodeFn {
  const { correlated, uncorrelated, waits } = scope;
  const c = (x: Expr) => compileNode(x, scope);
  switch (e.kind) {
    case 'column': {
      const idx = e.index;
      return (b) => {
        const col = b.columns[idx];
        if (!col) throw new FloeError(SqlState.internalError, `column index ${idx} out of range (${b.columns.length} columns)`);
        return col as unknown[];
      };
    }
    case 'outerColumn': {
      const { depth, index } = e;
      return (b, ev) => {
        const row = ev.run.outer[ev.run.outer.length - depth];
        if (!row) throw new FloeError(SqlState.internalError, `no outer row at depth ${depth}`);
        return new Array<unknown>(b.numRows).fill(row[index] ?? null);
      };
    }
    case 'literal': {
      const v = e.value === undefined ? null : e.value;
      return (b) => new Array<unknown>(b.numRows).fill(v);
    }
    case 'param': {
      const { index, type } = e;
      return (b, ev) => new Array<unknown>(b.numRows).fill(paramValue(ev.run, index, type));
    }
    case 'call': {
      if (functionById(e.fn)?.asyncScalar !== undefined) return compileWaitingCall(e, c, waits);
      let general: NodeFn | undefined;
      const ctx: SpecializeContext = { compile: c, general: () => (general ??= compileCall(e, c)) };
      for (const s of CALL_SPECIALIZATIONS) {
        if (scope.disabled?.has(s.name)) continue;
        const f = s.tryCompile(e, ctx);
        if (f !== undefined) return f;
      }
      return ctx.general();
    }
    case 'cast': {
      const arg = c(e.arg);
      const from = e.arg.type;
      const to = e.type;
      const isText = (k: string) => k === 'text' || k === 'varchar' || k === 'bpchar' || k === 'name' || k === 'unknown' || k === 'char';
      const explicit = e.implicit !== true;
      const regIn = isRegKind(to.kind) && isText(from.kind) ? (to.kind as RegTypeKind) : undefined;
      const regOut = isRegKind(from.kind) && isText(to.kind) ? (from.kind as RegTypeKind) : undefined;
      if (e.arg.kind === 'literal' && to.kind === 'numeric' && SETTINGS_FREE_TO_NUMERIC.has(from.kind)) {
        // `1 - l_discount` casts the constant once per query instead of once per row; a failing cast is not cached, so it still raises per batch.
        const lit = e.arg.value === undefined ? null : e.arg.value;
        let folded: { v: unknown } | undefined;
        return (b) => {
          folded ??= { v: lit === null ? null : castValue(lit, from, to, { timeZone: 'UTC' }, true) };
          return new Array<unknown>(b.numRows).fill(folded.v);
        };
      }
      if (from.kind === 'bpchar' && to.kind === 'text') {
        // castValue's rule for this pair, without its dispatch per row: trailing blanks go.
        return (b, ev, sel) => {
          const vals = arg(b, ev, sel);
          const out = new Array<unknown>(b.numRows);
          forEach(b.numRows, sel, (i) => { const v = vals[i]; out[i] = v === null || v === undefined ? null : trimTrailingBlanks(v as string); });
          return out;
        };
      }
      return (b, ev, sel) => {
        const vals = arg(b, ev, sel);
        const out = new Array<unknown>(b.numRows);
        const settings = { timeZone: timeZoneOf(ev.run), nowMicros: ev.run.evalCtx.statementStartMicros };
        forEach(b.numRows, sel, (i) => {
          const v = vals[i];
          if (v === null) out[i] = null;
          // reg* types read and print names through the catalog.
          else if (regIn) out[i] = regTypeInput(regIn, v as string, ev.run.evalCtx);
          else if (regOut) out[i] = castValue(regTypeOutput(regOut, v as number, ev.run.evalCtx), { kind: 'text' }, to, settings, true);
          else out[i] = castValue(v, from, to, settings, explicit);
        });
        return out;
      };
    }
    case 'case': {
      const operand = e.operand ? c(e.operand) : undefined;
      const eq = e.operand ? impl(e.eqFn ?? '=') : undefined;
      const whens = e.whens.map((w) => ({ when: c(w.when), then: c(w.then) }));
      const elseFn = e.else ? c(e.else) : undefined;
      return (b, ev, sel) => {
        const out = new Array<unknown>(b.numRows);
        let remaining = sel ?? Int32Array.from({ length: b.numRows }, (_, i) => i);
        const opVals = operand ? operand(b, ev, remaining) : undefined;
        for (const w of whens) {
          if (remaining.length === 0) break;
          const cond = w.when(b, ev, remaining);
          const taken: number[] = [];
          const rest: number[] = [];
          for (const i of remaining) {
            let hit: boolean;
            if (opVals) {
              const a = opVals[i]; const x = cond[i];
              hit = a !== null && x !== null && eq!([a, x], ev.run.evalCtx) === true;
            } else hit = cond[i] === true;
            (hit ? taken : rest).push(i);
          }
          if (taken.length > 0) {
            const ts = Int32Array.from(taken);
            const vals = w.then(b, ev, ts);
            for (const i of ts) out[i] = vals[i];
          }
          remaining = Int32Array.from(rest);
        }
        if (remaining.length > 0) {
          if (elseFn) {
            const vals = elseFn(b, ev, remaining);
            for (const i of remaining) out[i] = vals[i];
          } else for (const i of remaining) out[i] = null;
        }
        return out;
      };
    }
    case 'and': case 'or': {
      const args = e.args.map(c);
      const isAnd = e.kind === 'and';
      return (b, ev, sel) => {
        const out = new Array<unknown>(b.numRows);
        forEach(b.numRows, sel, (i) => { out[i] = isAnd; });
        settleInTurn(args, b, ev, sel, (i, v) => {
          if (v === !isAnd) { out[i] = !isAnd; return true; }
          if (v === null) out[i] = null;
          return false;
        });
        return out;
      };
    }
    case 'not': {
      const arg = c(e.arg);
      return (b, ev, sel) => {
        const vals = arg(b, ev, sel);
        const out = new Array<unknown>(b.numRows);
        forEach(b.numRows, sel, (i) => { const v = vals[i]; out[i] = v === null ? null : !v; });
        return out;
      };
    }
    case 'isNull': case 'isNotNull': {
      const arg = c(e.arg);
      const want = e.kind === 'isNull';
      // Row-valued IS NULL is not in the IR; a scalar test suffices.
      return (b, ev, sel) => {
        const vals = arg(b, ev, sel);
        const out = new Array<unknown>(b.numRows);
        forEach(b.numRows, sel, (i) => { out[i] = (vals[i] === null) === want; });
        return out;
      };
    }
    case 'isTruth': {
      const arg = c(e.arg);
      const { test, negated } = e;
      return (b, ev, sel) => {
        const vals = arg(b, ev, sel);
        const out = new Array<unknown>(b.numRows);
        forEach(b.numRows, sel, (i) => {
          const v = vals[i];
          const r = test === 'unknown' ? v === null : test === 'true' ? v === true : v === false;
          out[i] = negated ? !r : r;
        });
        return out;
      };
    }
    case 'isDistinctFrom': {
      const l = c(e.left); const r = c(e.right);
      const eq = impl(e.eqFn);
      const negated = e.negated;
      return (b, ev, sel) => {
        const a = l(b, ev, sel); const bb = r(b, ev, sel);
        const out = new Array<unknown>(b.numRows);
        forEach(b.numRows, sel, (i) => {
          const x = a[i]; const y = bb[i];
          let distinct: boolean;
          if (x === null || y === null) distinct = !(x === null && y === null);
          else distinct = eq([x, y], ev.run.evalCtx) !== true;
          out[i] = negated ? !distinct : distinct;
        });
        return out;
      };
    }
    case 'inList': {
      const arg = c(e.arg);
      const list = e.list.map(c);
      const eq = impl(e.eqFn);
      const negated = e.negated;
      const t = e.arg.type;
      // Items that are constants of the argument's type (literals, or casts of them such as
      // 'AIR'::character(10)) are evaluated once, on the first row of the first batch, and
      // looked up by key; anything else is compared item by item with the operator.
      const constantList = e.list.every((x) => isConstant(x) && x.type.kind === t.kind);
      let literalKeys: Set<string> | undefined;
      let literalHasNull = false;
      // A text/varchar/bpchar column still in Arrow form is tested on its UTF-8 bytes (l_shipmode IN ('MAIL', 'SHIP')).
      // So is a leading substring of one (substring(phone from 1 for 2) IN ('13', '31', …)).
      const prefix = constantList && t.kind === 'text' ? textPrefixOf(e.arg) : undefined;
      const bytesColumn = constantList && e.arg.kind === 'column' && BYTE_COMPARABLE.has(t.kind) ? e.arg.index : prefix?.column ?? -1;
      let matchBytes: ((bytes: Uint8Array, start: number, end: number) => boolean) | undefined;
      return (b, ev, sel) => {
        const first = sel ? sel[0] : b.numRows > 0 ? 0 : undefined;
        if (constantList && literalKeys === undefined && first !== undefined) {
          const items = list.map((f) => f(b, ev, sel)[first]);
          literalHasNull = items.some((v) => v === null);
          literalKeys = new Set(items.filter((v) => v !== null).map((v) => valueKey(v, t)));
          if (prefix !== undefined) matchBytes = prefixInListMatcher([...literalKeys], prefix.chars, prefix.trimBlanks);
          else if (bytesColumn >= 0) matchBytes = inListMatcher([...literalKeys].map((k) => Buffer.from(k, 'utf8')), t.kind === 'bpchar');
        }
        const form = matchBytes !== undefined && !literalHasNull ? arrowFormOf(b, bytesColumn) : undefined;
        // Read through the column's rows: no gathered copy first.
        if (form !== undefined && form.base.typeId === Type.Utf8) return overBytes(form.base, form.rows, matchBytes!, negated, b.numRows, sel);
        const vals = arg(b, ev, sel);
        const out = new Array<unknown>(b.numRows);
        const keys = literalKeys;
        if (keys) {
          forEach(b.numRows, sel, (i) => {
            const v = vals[i];
            if (v === null) { out[i] = null; return; }
            if (keys.has(valueKey(v, t))) out[i] = !negated;
            else out[i] = literalHasNull ? null : negated;
          });
          return out;
        }
        const cols = list.map((f) => f(b, ev, sel));
        forEach(b.numRows, sel, (i) => {
          const v = vals[i];
          if (v === null) { out[i] = null; return; }
          let sawNull = false;
          for (const col of cols) {
            const x = col[i];
            if (x === null) { sawNull = true; continue; }
            if (eq([v, x], ev.run.evalCtx) === true) { out[i] = !negated; return; }
          }
          out[i] = sawNull ? null : negated;
        });
        return out;
      };
    }
    case 'like': {
      const arg = c(e.arg); const pat = c(e.pattern);
      const esc = e.escape ? c(e.escape) : undefined;
      const { caseInsensitive, negated } = e;
      // A literal pattern (and escape) compiles its matcher once per query, not once per row.
      const literal = (x: Expr | undefined): boolean => x === undefined || x.kind === 'literal';
      if (literal(e.pattern) && literal(e.escape)) {
        const pv = (e.pattern as Expr & { kind: 'literal' }).value;
        const ev0 = e.escape ? (e.escape as Expr & { kind: 'literal' }).value : '\\';
        let match: ((s: string) => boolean) | undefined;
        const argIndex = textColumnIndex(e.arg);
        const onBytes = argIndex >= 0 && !caseInsensitive && typeof pv === 'string' && typeof ev0 === 'string' ? likeBytesMatcher(pv, ev0) : undefined;
        const required = onBytes ? likeRequiredBytes(pv as string, ev0 as string) : undefined;
        return (b, ev, sel) => {
          // A text column still in Arrow form is matched on its UTF-8 bytes, never decoded.
          const form = onBytes ? arrowFormOf(b, argIndex) : undefined;
          if (form !== undefined && (form.type.kind === 'text' || form.type.kind === 'varchar')) {
            // Through a row selection the bytes are read in place, not gathered first.
            const { base: data, rows } = form;
            if (data.typeId === Type.Utf8) {
              // Searching the whole buffer pays when the batch reads most of its rows.
              const n = sel?.length ?? b.numRows;
              const candidates = required !== undefined && n * 2 >= data.length ? rowsContaining(data, required) : undefined;
              return overBytes(data, rows, onBytes!, negated, b.numRows, sel, candidates);
            }
          }
          const s = arg(b, ev, sel);
          const out = new Array<unknown>(b.numRows);
          if (pv === null || pv === undefined || ev0 === null || ev0 === undefined) { forEach(b.numRows, sel, (i) => { out[i] = null; }); return out; }
          forEach(b.numRows, sel, (i) => {
            const x = s[i];
            if (x === null) { out[i] = null; return; }
            // Built at the first non-NULL input, so a bad pattern raises only where PostgreSQL's would.
            match ??= likeMatcher(pv as string, ev0 as string, caseInsensitive);
            const r = match(x as string);
            out[i] = negated ? !r : r;
          });
          return out;
        };
      }
      return (b, ev, sel) => {
        const s = arg(b, ev, sel); const p = pat(b, ev, sel);
        const es = esc ? esc(b, ev, sel) : undefined;
        const out = new Array<unknown>(b.numRows);
        forEach(b.numRows, sel, (i) => {
          const x = s[i]; const y = p[i];
          const z = es ? es[i] : '\\';
          if (x === null || y === null || z === null) { out[i] = null; return; }
          const m = likeMatcher(y as string, z as string, caseInsensitive)(x as string);
          out[i] = negated ? !m : m;
        });
        return out;
      };
    }
    case 'coalesce': {
      const args = e.args.map(c);
      return (b, ev, sel) => {
        const out = new Array<unknown>(b.numRows);
        const unsettled = settleInTurn(args, b, ev, sel, (i, v) => {
          if (v === null || v === undefined) return false;
          out[i] = v;
          return true;
        });
        for (const i of unsettled) out[i] = null;
        return out;
      };
    }
    case 'nullif': {
      const l = c(e.left); const r = c(e.right);
      const eq = impl(e.eqFn);
      return (b, ev, sel) => {
        const a = l(b, ev, sel); const bb = r(b, ev, sel);
        const out = new Array<unknown>(b.numRows);
        forEach(b.numRows, sel, (i) => {
          const x = a[i]; const y = bb[i];
          out[i] = x !== null && y !== null && eq([x, y], ev.run.evalCtx) === true ? null : x;
        });
        return out;
      };
    }
    case 'greatest': case 'least': {
      const args = e.args.map(c);
      const lt = impl(e.cmpFn);
      const greatest = e.kind === 'greatest';
      return (b, ev, sel) => {
        const cols = args.map((a) => a(b, ev, sel));
        const out = new Array<unknown>(b.numRows);
        forEach(b.numRows, sel, (i) => {
          let best: unknown = null;
          for (const col of cols) {
            const v = col[i];
            if (v === null) continue;
            if (best === null) { best = v; continue; }
            const better = greatest ? lt([best, v], ev.run.evalCtx) === true : lt([v, best], ev.run.evalCtx) === true;
            if (better) best = v;
          }
          out[i] = best;
        });
        return out;
      };
    }
    case 'array': {
      const els = e.elements.map(c);
      return (b, ev, sel) => {
        const cols = els.map((a) => a(b, ev, sel));
        const out = new Array<unknown>(b.numRows);
        if (e.type.kind === 'array' && e.elements[0]?.type.kind === 'array') {
          // ARRAY[[1,2],[3,4]]: the sub-arrays become one more dimension.
          forEach(b.numRows, sel, (i) => { out[i] = arrayOfSubArrays(cols.map((col) => col[i] ?? null)); });
          return out;
        }
        forEach(b.numRows, sel, (i) => { out[i] = cols.map((col) => col[i] ?? null); });
        return out;
      };
    }
    case 'subscript': {
      const arg = c(e.arg); const idx = c(e.index);
      return (b, ev, sel) => {
        const a = arg(b, ev, sel); const x = idx(b, ev, sel);
        const out = new Array<unknown>(b.numRows);
        forEach(b.numRows, sel, (i) => {
          const arr = a[i] as unknown[] | null; const k = x[i];
          if (arr === null || k === null) { out[i] = null; return; }
          // More subscripts than the array has dimensions (a scalar met too early) give NULL.
          if (!Array.isArray(arr)) { out[i] = null; return; }
          const n = Number(k);
          const v = n >= 1 && n <= arr.length ? arr[n - 1] ?? null : null;
          // Fewer subscripts than the array has dimensions give NULL, as in PostgreSQL.
          out[i] = Array.isArray(v) !== (e.type.kind === 'array') ? null : v;
        });
        return out;
      };
    }
    case 'scalarSubquery': {
      (e.correlated ? correlated : uncorrelated).push({ expr: e });
      return (b, ev, sel) => {
        const out = new Array<unknown>(b.numRows);
        forEach(b.numRows, sel, (i) => { const r = subResultFor(e, ev, i); out[i] = r.values.length > 0 ? r.values[0] : null; });
        return out;
      };
    }
    case 'exists': {
      (e.correlated ? correlated : uncorrelated).push({ expr: e });
      const negated = e.negated;
      return (b, ev, sel) => {
        const out = new Array<unknown>(b.numRows);
        forEach(b.numRows, sel, (i) => { const r = subResultFor(e, ev, i); out[i] = (r.values.length > 0) !== negated; });
        return out;
      };
    }
    case 'inSubquery': {
      (e.correlated ? correlated : uncorrelated).push({ expr: e });
      const arg = c(e.arg);
      const negated = e.negated;
      const t = plannedSubquery(e.plan).columns[0]!.type;
      return (b, ev, sel) => {
        const vals = arg(b, ev, sel);
        const out = new Array<unknown>(b.numRows);
        forEach(b.numRows, sel, (i) => { out[i] = inResult(vals[i], t, subResultFor(e, ev, i), negated); });
        return out;
      };
    }
  }
}

/** Rows of `batch` where a compiled predicate is true (NULL and false drop the row). */
export function truthySelection(values: readonly unknown[], n: number): Int32Array {
  const out = new Int32Array(n);
  let k = 0;
  // Every row is written and kept by advancing k: no branch on the verdict (see the scan's typed selection).
  for (let i = 0; i < n; i++) { out[k] = i; k += +(values[i] === true); }
  return out.subarray(0, k);
}

/**
 * The column a text expression reads as it is: a text/varchar column, or one cast
 * to text (varchar to text changes nothing; bpchar's cast strips padding, so it is
 * not taken). -1 otherwise.
 */
function textColumnIndex(e: Expr): number {
  const plain = (x: Expr): boolean => x.kind === 'column' && (x.type.kind === 'text' || x.type.kind === 'varchar');
  if (plain(e)) return (e as Expr & { kind: 'column' }).index;
  if (e.kind === 'cast' && e.type.kind === 'text' && plain(e.arg)) return (e.arg as Expr & { kind: 'column' }).index;
  return -1;
}

/** Column kinds whose values are equal exactly when their UTF-8 bytes are (bpchar: once trailing blanks are dropped). */
const BYTE_COMPARABLE = new Set(['text', 'varchar', 'bpchar']);

/** A byte-range test for membership in `needles` (UTF-8 of the constant keys; bpchar's without trailing blanks). */
function inListMatcher(needles: readonly Uint8Array[], trimBlanks: boolean): (bytes: Uint8Array, start: number, end: number) => boolean {
  return (bytes, s, end) => {
    const e = trimBlanks && end > s && bytes[end - 1] === 32 ? endWithoutTrailingBlanks(bytes, s, end) : end;
    for (let j = 0; j < needles.length; j++) {
      const needle = needles[j]!;
      if (needle.length !== e - s) continue;
      let same = true;
      for (let x = 0; x < needle.length; x++) if (bytes[s + x] !== needle[x]) { same = false; break; }
      if (same) return true;
    }
    return false;
  };
}

/**
 * The column and character count of a text expression that is a leading substring of
 * a string column: substring(x, 1, n), substr(x, 1, n) or left(x, n) with constant n ≥ 0,
 * where x is a text/varchar column or one cast to text (a char(n) column, cast,
 * loses its trailing blanks); undefined for anything else.
 */
function textPrefixOf(e: Expr): { column: number; chars: number; trimBlanks: boolean } | undefined {
  if (e.kind !== 'call') return undefined;
  let x: Expr;
  let count: Expr;
  if ((e.fn === 'substring(text,int4,int4)' || e.fn === 'substr(text,int4,int4)') && e.args.length === 3) {
    const start = e.args[1]!;
    if (start.kind !== 'literal' || start.value !== 1) return undefined;
    [x, , count] = e.args as [Expr, Expr, Expr];
  } else if (e.fn === 'left(text,int4)' && e.args.length === 2) [x, count] = e.args as [Expr, Expr];
  else return undefined;
  if (count.kind !== 'literal' || typeof count.value !== 'number' || !Number.isInteger(count.value) || count.value < 0) return undefined;
  const col = x.kind === 'cast' && x.type.kind === 'text' ? x.arg : x;
  if (col.kind !== 'column' || !BYTE_COMPARABLE.has(col.type.kind)) return undefined;
  return { column: col.index, chars: count.value, trimBlanks: col.type.kind === 'bpchar' };
}

/**
 * For needles all one or all two bytes long, a table over that many leading bytes
 * marking the needles' (256 or 65,536 entries); undefined for any other lengths.
 */
function leadingCodeTable(needles: readonly Uint8Array[]): Uint8Array | undefined {
  const width = needles[0]!.length;
  if ((width !== 1 && width !== 2) || needles.some((n) => n.length !== width)) return undefined;
  const table = new Uint8Array(width === 1 ? 256 : 65536);
  for (const n of needles) table[width === 1 ? n[0]! : (n[0]! << 8) | n[1]!] = 1;
  return table;
}

/**
 * A byte-range test for "the first `chars` characters are one of `keys`": a key of
 * exactly `chars` characters matches a value that starts with its UTF-8 bytes (UTF-8
 * never splits a character, so equal leading bytes are equal leading characters); a
 * shorter key only the whole value (one shorter than `chars` is its own prefix); a
 * longer key nothing. `trimBlanks`: the value is a char(n)'s, read without trailing blanks.
 */
function prefixInListMatcher(keys: readonly string[], chars: number, trimBlanks: boolean): (bytes: Uint8Array, start: number, end: number) => boolean {
  const needles: Uint8Array[] = [];
  const whole: boolean[] = [];
  for (const k of keys) {
    const n = [...k].length;
    if (n > chars) continue;
    needles.push(Buffer.from(k, 'utf8'));
    whole.push(n < chars);
  }
  const codes = needles.length > 0 && !whole.includes(true) ? leadingCodeTable(needles) : undefined;
  if (codes !== undefined) {
    // Keys of one or two bytes each (country codes): the value's leading bytes index a table.
    const width = needles[0]!.length;
    return (bytes, s, end) => {
      const e = trimBlanks && end > s && bytes[end - 1] === 32 ? endWithoutTrailingBlanks(bytes, s, end) : end;
      if (e - s < width) return false;
      return codes[width === 1 ? bytes[s]! : (bytes[s]! << 8) | bytes[s + 1]!] === 1;
    };
  }
  return (bytes, s, end) => {
    const e = trimBlanks && end > s && bytes[end - 1] === 32 ? endWithoutTrailingBlanks(bytes, s, end) : end;
    for (let j = 0; j < needles.length; j++) {
      const needle = needles[j]!;
      if (whole[j] ? needle.length !== e - s : needle.length > e - s) continue;
      let same = true;
      for (let x = 0; x < needle.length; x++) if (bytes[s + x] !== needle[x]) { same = false; break; }
      if (same) return true;
    }
    return false;
  };
}

/**
 * A test of a Utf8 column's bytes (LIKE, IN): true/false per selected row (negated
 * for NOT), NULL for NULL. Row i of the batch is row rows[i] of `data` when `rows` is given.
 */
/** `candidates`: per row of `data`, 0 where the match is known to fail (rowsContaining). */
function overBytes(
  data: Data, rows: Int32Array | undefined, match: (bytes: Uint8Array, start: number, end: number) => boolean, negated: boolean,
  numRows: number, sel: Int32Array | undefined, candidates?: Uint8Array,
): unknown[] {
  const out = new Array<unknown>(numRows);
  const offsets = data.valueOffsets as Int32Array;
  const bytes = data.values as Uint8Array;
  const nulls = nullMask(data);
  const n = sel ? sel.length : numRows;
  for (let k = 0; k < n; k++) {
    const i = sel ? sel[k]! : k;
    const d = rows === undefined ? i : rows[i]!;
    if (nulls !== undefined && !isValid(nulls, data.offset, d)) { out[i] = null; continue; }
    const r = candidates !== undefined && candidates[d] === 0 ? false : match(bytes, offsets[d]!, offsets[d + 1]!);
    out[i] = negated ? !r : r;
  }
  return out;
}

/** A function call row by row, or through its registered vector kernel when it has one. */
/**
 * A call that waits: its arguments are computed for the whole batch, then the
 * function runs row by row, in order, each call awaited before the next (so two
 * pg_advisory_lock calls take their locks in row order, as PostgreSQL's would).
 * It runs for every row, even inside a CASE branch another row takes.
 */
function compileWaitingCall(e: Expr & { kind: 'call' }, c: (x: Expr) => NodeFn, waits: WaitingCall[]): NodeFn {
  const f = functionById(e.fn)!;
  const wait = f.asyncScalar!;
  const args = e.args.map(c);
  waits.push({
    expr: e,
    async run(b, ev) {
      const cols = args.map((a) => a(b, ev, undefined));
      const out = new Array<unknown>(b.numRows);
      for (let i = 0; i < b.numRows; i++) {
        const vals = cols.map((col) => col[i] ?? null);
        if (f.strict && vals.includes(null)) { out[i] = null; continue; }
        const r = await wait(vals, ev.run.evalCtx, ev.run.signal);
        out[i] = r === undefined ? null : r;
      }
      return out;
    },
  });
  return (_b, ev) => {
    const done = ev.subResults.get(e);
    if (done === undefined) throw new FloeError(SqlState.internalError, `${e.fn} was not awaited before its batch`);
    return done;
  };
}

function compileCall(e: Expr & { kind: 'call' }, c: (x: Expr) => NodeFn): NodeFn {
  const fn = impl(e.fn, e.args.map((a) => a.type));
  const strict = isStrict(e.fn);
  const args = e.args.map(c);
  const vector = functionById(e.fn)?.vector;
  if (vector && strict) {
    return (b, ev, sel) => {
      const cols = args.map((a) => a(b, ev, sel));
      const out = new Array<unknown>(b.numRows);
      vector(cols, out, b.numRows, sel);
      return out;
    };
  }
  return (b, ev, sel) => {
    const cols = args.map((a) => a(b, ev, sel));
    const out = new Array<unknown>(b.numRows);
    const ctx = ev.run.evalCtx;
    const na = cols.length;
    // One scratch argument array per batch: implementations read their arguments and never keep the array.
    const vals = new Array<unknown>(na);
    const row = (i: number) => {
      for (let j = 0; j < na; j++) {
        const v = cols[j]![i];
        if (v === null && strict) { out[i] = null; return; }
        vals[j] = v;
      }
      const r = fn(vals, ctx);
      out[i] = r === undefined ? null : r;
    };
    if (sel) for (let k = 0; k < sel.length; k++) row(sel[k]!);
    else for (let i = 0, n = b.numRows; i < n; i++) row(i);
    return out;
  };
}
