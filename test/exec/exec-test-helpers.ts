import type { SqlType } from '../../src/common/sql-type.js';
import { vectorToValues } from '../../src/exec/arrow/vector-values.js';
import type { ExecContext } from '../../src/exec/exec-context.js';
import { executePlan } from '../../src/exec/execute.js';
import type { Expr } from '../../src/exec/expr/expr.js';
import { resolveFunction, resolveOperator } from '../../src/exec/functions/function-registry.js';
import type { OutputColumn, PhysicalPlan } from '../../src/exec/plan/physical-plan.js';
import type { ScanPool } from '../../src/exec/pool/scan-pool.js';
import { Decimal, makeData } from 'apache-arrow';
import type { Data, Vector } from 'apache-arrow';

export const t = {
  bool: { kind: 'bool' }, int2: { kind: 'int2' }, int4: { kind: 'int4' }, int8: { kind: 'int8' }, float8: { kind: 'float8' },
  numeric: { kind: 'numeric' }, text: { kind: 'text' }, date: { kind: 'date' }, timestamp: { kind: 'timestamp' },
  timestamptz: { kind: 'timestamptz' }, interval: { kind: 'interval' }, unknown: { kind: 'unknown' }, time: { kind: 'time' },
} as const satisfies Record<string, SqlType>;

export const lit = (value: unknown, type: SqlType): Expr => ({ kind: 'literal', value, type });
export const col = (index: number, type: SqlType): Expr => ({ kind: 'column', index, type });

function coerce(e: Expr, to: SqlType): Expr {
  if (e.type.kind === to.kind && (to.kind !== 'array')) return e;
  return { kind: 'cast', arg: e, type: to };
}

/** A resolved operator call, with casts to the resolved argument types (as the planner builds them). */
export function op(name: string, ...args: Expr[]): Expr {
  const r = args.length === 1 ? resolveOperator(name, undefined, args[0]!.type) : resolveOperator(name, args[0]!.type, args[1]!.type);
  if (!r) throw new Error(`no operator ${name}(${args.map((a) => a.type.kind).join(',')})`);
  return { kind: 'call', fn: r.id, args: args.map((a, i) => coerce(a, r.argTypes[i]!)), type: r.returnType };
}

export function fn(name: string, ...args: Expr[]): Expr {
  const r = resolveFunction(name, args.map((a) => a.type));
  if (!r) throw new Error(`no function ${name}(${args.map((a) => a.type.kind).join(',')})`);
  return { kind: 'call', fn: r.id, args: args.map((a, i) => coerce(a, r.argTypes[i]!)), type: r.returnType };
}

export function aggId(name: string, ...types: SqlType[]): { id: string; type: SqlType } {
  const r = resolveFunction(name, types);
  if (!r) throw new Error(`no aggregate ${name}`);
  return { id: r.id, type: r.returnType };
}

/** An in-memory relation: VALUES of literals. */
export function values(columns: readonly OutputColumn[], rows: readonly (readonly unknown[])[]): PhysicalPlan {
  return { kind: 'values', columns, rows: rows.map((r) => r.map((v, i) => lit(v, columns[i]!.type))) };
}

export async function rowsOf(plan: PhysicalPlan, ctx: ExecContext = {}): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const b of executePlan(plan, ctx)) {
    const cols = plan.columns.map((c, i) => vectorToValues(b.getChildAt(i) as Vector, c.type));
    for (let r = 0; r < b.numRows; r++) out.push(cols.map((c) => c[r]));
  }
  return out;
}

/** Evaluates one expression (no input columns) through a project over a single-row VALUES. */
export async function evalExpr(e: Expr, ctx: ExecContext = {}): Promise<unknown> {
  const plan: PhysicalPlan = {
    kind: 'project', input: { kind: 'values', columns: [], rows: [[]] }, exprs: [e], columns: [{ name: 'x', type: e.type }],
  };
  const rows = await rowsOf(plan, ctx);
  return rows[0]![0];
}

export const cast = (e: Expr, type: SqlType): Expr => ({ kind: 'cast', arg: e, type });
export const text = (s: string): Expr => lit(s, t.text);
export const int = (n: number): Expr => lit(n, t.int4);
export const num = (s: string): Expr => lit(s, t.numeric);
export const nul = (type: SqlType): Expr => lit(null, type);

/** Arrow Decimal128(p, scale) data holding `values` (unscaled bigints; null = NULL). */
export function decimalData(values: readonly (bigint | null)[], scale: number): Data {
  const words = new Uint32Array(values.length * 4);
  const bitmap = new Uint8Array((values.length + 7) >> 3);
  let nulls = 0;
  values.forEach((v, i) => {
    if (v === null) { nulls++; return; }
    bitmap[i >> 3]! |= 1 << (i & 7);
    let x = BigInt.asUintN(128, v);
    for (let w = 0; w < 4; w++) { words[i * 4 + w] = Number(x & 0xffffffffn); x >>= 32n; }
  });
  return makeData({ type: new Decimal(scale, 38, 128), length: values.length, nullCount: nulls, nullBitmap: nulls > 0 ? bitmap : undefined, data: words });
}

/**
 * `pool` wrapped so that `ac` aborts as soon as an aggregate request (a task's partial
 * or a key range) has reached a worker; `started` counts those requests.
 */
export function abortingPool(pool: ScanPool, ac: AbortController): { pool: ScanPool; started: () => number } {
  let started = 0;
  const begun = <T>(request: Promise<T>): Promise<T> => { started++; ac.abort(); return request; };
  return {
    pool: {
      size: pool.size,
      close: () => pool.close(),
      run: (task, signal, fragment) => pool.run(task, signal, fragment),
      aggregate: (task, signal, fragment) => begun(pool.aggregate!(task, signal, fragment)),
      aggregateRange: (tasks, signal, fragment) => begun(pool.aggregateRange!(tasks, signal, fragment)),
    },
    started: () => started,
  };
}
