import type { Data } from 'apache-arrow';
import type { ScaledVector } from '../arrow/scaled-vector.js';
import type { SqlType } from '../../common/sql-type.js';
import type { EvalContext } from '../expr/eval-context.js';
import { canCoerce, typeCategory, isPreferredType, sameType } from './type-coercion.js';
import './builtins.js';
import type { VectorImpl } from './vector-kernels.js';

/**
 * The catalog of scalar, aggregate and window functions and operators, with
 * PostgreSQL's overload resolution (exact match, then implicit casts, then
 * preferred types, with unknown literals taking their peers' type). The planner
 * asks resolveFunction / resolveOperator, casts arguments to the returned
 * argTypes, and stores the returned `id` in a CallExpr / AggregateCall / WindowCall.
 */
export type FunctionKind = 'scalar' | 'aggregate' | 'window' | 'set';

export interface ResolvedFunction {
  /** Registry id, stored in plans (e.g. "+(int4,int4)", "sum(int4)"). */
  readonly id: string;
  readonly name: string;
  readonly kind: FunctionKind;
  /** The type each argument must be cast to before the call. */
  readonly argTypes: readonly SqlType[];
  readonly returnType: SqlType;
  /** Strict functions return NULL when any argument is NULL (without running). */
  readonly strict: boolean;
  /** Volatile functions (random, now-less ones) are never constant-folded. */
  readonly volatile: boolean;
}

/**
 * A parameter spec: a concrete type, or a polymorphic placeholder.
 * 'any' accepts anything as is; 'anyelement' unifies all such args to one type;
 * 'anyarray' is an array of the anyelement type; 'anynumeric' any numeric-category type.
 */
export type ParamSpec = SqlType | 'any' | 'anyelement' | 'anyarray';

/** A scalar implementation: called with non-NULL args when strict. Values are canonical. */
export type ScalarImpl = (args: unknown[], ctx: EvalContext) => unknown;

/**
 * A scalar that waits (pg_sleep, pg_advisory_lock): called row by row, in order,
 * before the batch's other expressions, with the statement's cancel signal.
 */
export type AsyncScalarImpl = (args: unknown[], ctx: EvalContext, signal: AbortSignal | undefined) => Promise<unknown>;

export interface AsyncScalarFunctionDef {
  readonly name: string;
  readonly args: readonly ParamSpec[];
  readonly returns: SqlType;
  readonly impl: AsyncScalarImpl;
  readonly strict?: boolean;
}

export interface ScalarFunctionDef {
  readonly name: string;
  readonly args: readonly ParamSpec[];
  /** Repeats the last param any number of times (≥ 0 extra). */
  readonly variadic?: boolean;
  readonly returns: SqlType | ((argTypes: readonly SqlType[], actualTypes: readonly SqlType[]) => SqlType);
  readonly impl: ScalarImpl;
  /** Optional vectorized implementation (strict functions only), used in place of `impl` over whole batches. */
  readonly vector?: VectorImpl;
  /** Optional type-specialized implementation, built once per call site from the argument types. */
  readonly implFor?: (argTypes: readonly SqlType[]) => ScalarImpl;
  readonly strict?: boolean;
  readonly volatile?: boolean;
  /**
   * Reads what only the session's thread holds through its EvalContext (the warehouse's
   * catalog, roles and privileges): it runs where the session is, never in a scan worker.
   */
  readonly session?: boolean;
  /** Overrides the generated id. */
  readonly id?: string;
}

/** Aggregate state machine; states are opaque JS values owned by the executor. */
export interface AggregateImpl {
  init(): unknown;
  /** Returns the new state; `args` are the call's argument values for one row (NULLs skipped for strict aggregates). */
  step(state: unknown, args: unknown[]): unknown;
  /** Merges a partial state into another (parallel/partial aggregation). */
  combine(a: unknown, b: unknown): unknown;
  final(state: unknown): unknown;
  /**
   * Optional vectorized step over one batch: for each of the first `n` rows of
   * `sel` (or rows 0..n-1 without `sel`), updates `states[groups[row]]` in place
   * with the argument values `args[c][row]`. The caller has already dropped
   * filtered-out rows and, for strict aggregates, rows with a NULL argument.
   * States stepped this way must be mutable objects created by `init`.
   */
  batchStep?(states: unknown[], groups: Int32Array, args: readonly (readonly unknown[])[], sel: Int32Array | undefined, n: number): void;
  /**
   * Optional batchStep for one numeric argument given as a ScaledVector (exact
   * unscaled safe integers at one scale) instead of text: same rows, same result.
   */
  batchStepScaled?(states: unknown[], groups: Int32Array, arg: ScaledVector, sel: Int32Array | undefined, n: number): void;
  /** Sliding-frame support: undoes step (optional; frames recompute without it). */
  inverse?(state: unknown, args: unknown[]): unknown;
  /**
   * Optional: a fresh holder of many groups' states in typed arrays (group g at
   * index g), used by hash aggregates instead of one state object per group.
   * Its results equal init/step/combine/final's for the same rows.
   */
  columnar?(): ColumnarAggregate;
}

/**
 * The states of groups 0..n-1 of one aggregate, column-wise: counts, running
 * sums and the like in typed arrays. A group whose state leaves what the typed
 * form holds exactly (a numeric sum past 2^52, NaN, a BigInt addend) keeps an
 * object state of the aggregate's own (`init`/`step`/`combine` form) instead.
 */
export interface ColumnarAggregate {
  /** Makes groups [0, n) exist; groups new to it start as `init` would. */
  resize(n: number): void;
  /** batchStep's contract, over this holder's groups. */
  batchStep(groups: Int32Array, args: readonly (readonly unknown[])[], sel: Int32Array | undefined, n: number): void;
  /** batchStepScaled's contract, over this holder's groups. */
  batchStepScaled?(groups: Int32Array, arg: ScaledVector, sel: Int32Array | undefined, n: number): void;
  /** Groups [0, n) as structured-cloneable data (typed arrays, plus the object states of groups that left them). */
  export(n: number): ColumnarPartial;
  /** Combines an exported partial's group i into group `groups[i]` for every i (groups resized already). */
  merge(p: ColumnarPartial, groups: Int32Array): void;
  /** The final values of groups [0, n), canonical (NULL as null). */
  finish(n: number): unknown[];
  /**
   * Optional: the same final values as Arrow data of a type that decodes to
   * them (a Decimal128 for numeric sums, Int64 for counts), built from the
   * typed columns without a JS value per group; undefined when this column
   * cannot say them that way (groups in object states, mixed scales).
   */
  finishArrow?(n: number): Data | undefined;
}

/** A ColumnarAggregate's exported groups. */
export interface ColumnarPartial {
  readonly n: number;
  /** Per-group columns, each of length n (their meaning is the aggregate's own). */
  readonly arrays: readonly (Float64Array | Int32Array | Uint8Array)[];
  /** Groups held as object states: [group, state]. */
  readonly states: readonly (readonly [number, unknown])[];
}

export interface AggregateFunctionDef {
  readonly name: string;
  readonly args: readonly ParamSpec[];
  readonly returns: SqlType | ((argTypes: readonly SqlType[], actualTypes: readonly SqlType[]) => SqlType);
  /** Strict aggregates skip rows where any argument is NULL. */
  readonly strict?: boolean;
  readonly impl: (argTypes: readonly SqlType[]) => AggregateImpl;
  readonly id?: string;
}

/** A set-returning function: yields the values of its single output column for one call. */
export type SetImpl = (args: unknown[], ctx: EvalContext) => Iterable<unknown>;

export interface SetFunctionDef {
  readonly name: string;
  readonly args: readonly ParamSpec[];
  readonly returns: SqlType | ((argTypes: readonly SqlType[], actualTypes: readonly SqlType[]) => SqlType);
  readonly impl: SetImpl;
  /** Strict (default): NULL arguments produce no rows. */
  readonly strict?: boolean;
  readonly id?: string;
  /**
   * Named OUT parameters, which name the columns in FROM. With more than one the
   * function returns a record (jsonb_each: key, value): `impl` yields one array per row.
   */
  readonly columns?: readonly { readonly name: string; readonly type: SqlType }[];
}

export interface WindowFunctionDef {
  readonly name: string;
  readonly args: readonly ParamSpec[];
  readonly returns: SqlType | ((argTypes: readonly SqlType[], actualTypes: readonly SqlType[]) => SqlType);
  readonly id?: string;
}

interface Entry {
  readonly id: string;
  readonly name: string;
  readonly kind: FunctionKind;
  readonly args: readonly ParamSpec[];
  readonly variadic: boolean;
  readonly returns: SqlType | ((argTypes: readonly SqlType[], actualTypes: readonly SqlType[]) => SqlType);
  readonly strict: boolean;
  readonly volatile: boolean;
  readonly session?: boolean;
  readonly scalar?: ScalarImpl;
  readonly scalarFor?: (argTypes: readonly SqlType[]) => ScalarImpl;
  readonly vector?: VectorImpl;
  readonly aggregate?: (argTypes: readonly SqlType[]) => AggregateImpl;
  readonly set?: SetImpl;
  readonly columns?: readonly { readonly name: string; readonly type: SqlType }[];
  readonly asyncScalar?: AsyncScalarImpl;
}

const byName = new Map<string, Entry[]>();
const byId = new Map<string, Entry>();
let builtinsLoaded = false;
// `var`: builtins.ts sets this while function-registry.ts may still be initializing (import cycle).
var builtinLoader: (() => void) | undefined;

/** Called once by src/exec/functions/builtins.ts (imported by src/exec/index.ts). */
export function setBuiltinLoader(loader: () => void): void {
  builtinLoader = loader;
}

function ensureBuiltins(): void {
  if (builtinsLoaded) return;
  builtinsLoaded = true;
  builtinLoader?.();
}

export function specKey(p: ParamSpec): string {
  if (typeof p === 'string') return p;
  return typeKey(p);
}

/** A compact, typmod-free spelling of a type for ids: int4, numeric, text[], … */
export function typeKey(t: SqlType): string {
  return t.kind === 'array' ? `${typeKey(t.element)}[]` : t.kind;
}

function add(e: Entry): void {
  const list = byName.get(e.name) ?? [];
  const dup = list.findIndex((x) => x.id === e.id);
  if (dup >= 0) list.splice(dup, 1);
  list.push(e);
  byName.set(e.name, list);
  byId.set(e.id, e);
}

export function registerScalarFunction(def: ScalarFunctionDef): string {
  const id = def.id ?? `${def.name}(${def.args.map(specKey).join(',')}${def.variadic ? '...' : ''})`;
  add({
    id, name: def.name.toLowerCase(), kind: 'scalar', args: def.args, variadic: def.variadic ?? false,
    returns: def.returns, strict: def.strict ?? true, volatile: def.volatile ?? false, scalar: def.impl,
    scalarFor: def.implFor, vector: def.strict === false ? undefined : def.vector, ...(def.session ? { session: true } : {}),
  });
  return id;
}

/** An async scalar: always volatile, so never folded; compile-expr awaits it before the batch's pass. */
export function registerAsyncScalarFunction(def: AsyncScalarFunctionDef): string {
  const id = `${def.name}(${def.args.map(specKey).join(',')})`;
  add({
    id, name: def.name.toLowerCase(), kind: 'scalar', args: def.args, variadic: false, returns: def.returns,
    strict: def.strict ?? true, volatile: true, asyncScalar: def.impl,
    scalar: () => { throw new Error(`${id} waits and must be awaited`); },
  });
  return id;
}

export function registerAggregateFunction(def: AggregateFunctionDef): string {
  const id = def.id ?? `${def.name}(${def.args.map(specKey).join(',')})`;
  add({
    id, name: def.name.toLowerCase(), kind: 'aggregate', args: def.args, variadic: false,
    returns: def.returns, strict: def.strict ?? true, volatile: false, aggregate: def.impl,
  });
  return id;
}

export function registerSetFunction(def: SetFunctionDef): string {
  const id = def.id ?? `${def.name}(${def.args.map(specKey).join(',')})`;
  add({
    id, name: def.name.toLowerCase(), kind: 'set', args: def.args, variadic: false,
    returns: def.returns, strict: def.strict ?? true, volatile: false, set: def.impl,
    ...(def.columns ? { columns: def.columns } : {}),
  });
  return id;
}

export function registerWindowFunction(def: WindowFunctionDef): string {
  const id = def.id ?? `${def.name}(${def.args.map(specKey).join(',')})`;
  add({ id, name: def.name.toLowerCase(), kind: 'window', args: def.args, variadic: false, returns: def.returns, strict: false, volatile: false });
  return id;
}

/** Operators are registered as functions named by their symbol ("+", "||", "~~"…); unary ones take one arg. */
export function operatorFunctionName(op: string): string {
  return op;
}

interface Candidate {
  readonly entry: Entry;
  readonly params: readonly (SqlType | 'any')[];
  readonly exact: number;
  readonly preferred: number;
}

/** Expands polymorphic specs against the actual arg types; undefined when inconsistent. */
function instantiate(entry: Entry, argTypes: readonly SqlType[]): (SqlType | 'any')[] | undefined {
  const n = argTypes.length;
  const specs: ParamSpec[] = [];
  if (entry.variadic) {
    if (n < entry.args.length - 1) return undefined;
    for (let i = 0; i < n; i++) specs.push(entry.args[Math.min(i, entry.args.length - 1)]!);
  } else {
    if (n !== entry.args.length) return undefined;
    specs.push(...entry.args);
  }
  let elem: SqlType | undefined;
  const elemCandidates: SqlType[] = [];
  for (let i = 0; i < n; i++) {
    const s = specs[i]!;
    const a = argTypes[i]!;
    if (s === 'anyelement' && a.kind !== 'unknown') elemCandidates.push(a);
    if (s === 'anyarray' && a.kind !== 'unknown') {
      if (a.kind !== 'array') return undefined;
      elemCandidates.push(a.element);
    }
  }
  if (elemCandidates.length > 0) {
    elem = commonSupertype(elemCandidates);
    if (!elem) return undefined;
  } else if (specs.some((s) => s === 'anyelement' || s === 'anyarray')) {
    elem = { kind: 'text' };
  }
  return specs.map((s) => {
    if (s === 'any') return 'any';
    if (s === 'anyelement') return elem!;
    if (s === 'anyarray') return { kind: 'array', element: elem! } as SqlType;
    return s;
  });
}

/** PostgreSQL's select_common_type over known types: the category's preferred or widest implicit target. */
export function commonSupertype(types: readonly SqlType[]): SqlType | undefined {
  const known = types.filter((t) => t.kind !== 'unknown');
  if (known.length === 0) return types.length > 0 ? { kind: 'text' } : undefined;
  let cur = known[0]!;
  for (const t of known.slice(1)) {
    if (sameType(cur, t)) continue;
    if (typeCategory(cur) !== typeCategory(t)) return undefined;
    if (canCoerce(cur, t, 'implicit') && !canCoerce(t, cur, 'implicit')) cur = t;
    else if (canCoerce(t, cur, 'implicit')) continue;
    else return undefined;
  }
  return cur;
}

function resolveAmong(entries: readonly Entry[], argTypes: readonly SqlType[]): ResolvedFunction | undefined {
  const candidates: Candidate[] = [];
  for (const entry of entries) {
    const params = instantiate(entry, argTypes);
    if (!params) continue;
    let ok = true;
    let exact = 0;
    let preferred = 0;
    for (let i = 0; i < argTypes.length; i++) {
      const a = argTypes[i]!;
      const p = params[i]!;
      if (p === 'any') { exact++; continue; }
      if (a.kind === 'unknown') continue;
      if (sameType(a, p)) { exact++; continue; }
      if (!canCoerce(a, p, 'implicit')) { ok = false; break; }
      if (isPreferredType(p)) preferred++;
    }
    if (ok) candidates.push({ entry, params, exact, preferred });
  }
  if (candidates.length === 0) return undefined;
  let best = candidates;
  if (best.length > 1) {
    const maxExact = Math.max(...best.map((c) => c.exact));
    best = best.filter((c) => c.exact === maxExact);
  }
  if (best.length > 1) {
    const maxPref = Math.max(...best.map((c) => c.preferred));
    best = best.filter((c) => c.preferred === maxPref);
  }
  if (best.length > 1 && argTypes.some((a) => a.kind === 'unknown')) {
    // Unknown-literal rule: an unknown takes the type of the known args when they agree,
    // else the string category is preferred.
    const known = argTypes.filter((a) => a.kind !== 'unknown');
    const filtered = best.filter((c) => argTypes.every((a, i) => {
      const p = c.params[i]!;
      if (a.kind !== 'unknown' || p === 'any') return true;
      if (known.length > 0) return known.some((k) => typeCategory(k) === typeCategory(p));
      return typeCategory(p) === 'S';
    }));
    if (filtered.length > 0) best = filtered;
    if (best.length > 1) {
      const withPreferred = best.filter((c) => argTypes.every((a, i) => {
        const p = c.params[i]!;
        return a.kind !== 'unknown' || p === 'any' || isPreferredType(p) || known.some((k) => sameType(k, p));
      }));
      if (withPreferred.length > 0) best = withPreferred;
    }
  }
  const c = best[0]!;
  const resolvedArgs = c.params.map((p, i) => (p === 'any' ? (argTypes[i]!.kind === 'unknown' ? { kind: 'text' } as SqlType : argTypes[i]!) : p));
  const returnType = typeof c.entry.returns === 'function' ? c.entry.returns(resolvedArgs, argTypes) : c.entry.returns;
  return {
    id: c.entry.id, name: c.entry.name, kind: c.entry.kind, argTypes: resolvedArgs,
    returnType, strict: c.entry.strict, volatile: c.entry.volatile,
  };
}

/** Resolves a function call by name (lower-case, unqualified or pg_catalog-qualified) and argument types. */
export function resolveFunction(name: string, argTypes: readonly SqlType[]): ResolvedFunction | undefined {
  ensureBuiltins();
  const n = name.toLowerCase().replace(/^pg_catalog\./, '');
  const entries = byName.get(n);
  if (!entries) return undefined;
  return resolveAmong(entries, argTypes);
}

/** Resolves an operator; `left` undefined for prefix operators (-x, NOT is not an operator here). */
export function resolveOperator(op: string, left: SqlType | undefined, right: SqlType): ResolvedFunction | undefined {
  ensureBuiltins();
  const entries = byName.get(operatorFunctionName(op));
  if (!entries) return undefined;
  const argTypes = left === undefined ? [right] : [left, right];
  return resolveAmong(entries.filter((e) => e.kind === 'scalar'), argTypes);
}

/** Looks up a resolved id (for the evaluator). */
export function functionById(id: string): ResolvedFunctionImpl | undefined {
  ensureBuiltins();
  const e = byId.get(id);
  if (!e) return undefined;
  return { id: e.id, kind: e.kind, strict: e.strict, volatile: e.volatile, session: e.session === true, scalar: e.scalar, scalarFor: e.scalarFor, vector: e.vector, aggregate: e.aggregate, set: e.set, asyncScalar: e.asyncScalar };
}

export interface ResolvedFunctionImpl {
  readonly id: string;
  readonly kind: FunctionKind;
  readonly strict: boolean;
  readonly volatile: boolean;
  /** ScalarFunctionDef.session: runs only where the session is. */
  readonly session: boolean;
  readonly scalar: ScalarImpl | undefined;
  readonly scalarFor: ((argTypes: readonly SqlType[]) => ScalarImpl) | undefined;
  readonly vector: VectorImpl | undefined;
  readonly aggregate: ((argTypes: readonly SqlType[]) => AggregateImpl) | undefined;
  readonly set: SetImpl | undefined;
  /** Set for functions that wait (registerAsyncScalarFunction). */
  readonly asyncScalar: AsyncScalarImpl | undefined;
}

/** A set-returning function's named OUT parameters (its columns in FROM), if it declares them. */
export function setFunctionColumns(id: string): readonly { readonly name: string; readonly type: SqlType }[] | undefined {
  ensureBuiltins();
  return byId.get(id)?.columns;
}

/** A registered function as pg_proc describes it: `returns` is undefined when it depends on the arguments. */
export interface ListedFunction {
  readonly id: string;
  readonly name: string;
  readonly kind: FunctionKind;
  readonly args: readonly string[];
  readonly variadic: boolean;
  readonly returns: SqlType | undefined;
  readonly strict: boolean;
  readonly volatile: boolean;
  readonly returnsSet: boolean;
}

/** How many functions are registered: pg_proc's rows are rebuilt only when this changes. */
export function registeredFunctionCount(): number {
  ensureBuiltins();
  return byId.size;
}

/** Every registered function (for pg_proc). */
export function listFunctions(): readonly ListedFunction[] {
  ensureBuiltins();
  return [...byId.values()].map((e) => ({
    id: e.id, name: e.name, kind: e.kind, args: e.args.map(specKey), variadic: e.variadic,
    returns: typeof e.returns === 'function' ? undefined : e.returns, strict: e.strict, volatile: e.volatile, returnsSet: e.kind === 'set',
  }));
}
