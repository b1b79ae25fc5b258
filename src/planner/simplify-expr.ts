import { type Expr, Exprs } from '../exec/index.js';
import { mapChildren } from './expr-utils.js';

/*
 * Expression-level constant folding, shared by the simplify-expressions rule and
 * the binder (window frame offsets must be constants once bound).
 */

const TRUE = Exprs.literal(true, { kind: 'bool' });
const FALSE = Exprs.literal(false, { kind: 'bool' });
/** Whether `e` is the boolean literal `v`. */
export const isBool = (e: Expr, v: boolean): boolean => e.kind === 'literal' && e.value === v;

const ints = new Set(['int2', 'int4', 'int8']);

/** A cast of a numeric literal to another numeric type, done now (so the value can prune scans). */
function foldCast(e: Extract<Expr, { kind: 'cast' }>): Expr {
  const arg = e.arg;
  if (arg.kind !== 'literal') return e;
  if (arg.value === null) return Exprs.literal(null, e.type);
  const from = arg.type.kind;
  const to = e.type.kind;
  const v = arg.value;
  if (ints.has(from) && (typeof v === 'number' || typeof v === 'bigint')) {
    const big = BigInt(v);
    if (to === 'int8') return Exprs.literal(big, e.type);
    if (to === 'int4' && big >= -2147483648n && big <= 2147483647n) return Exprs.literal(Number(big), e.type);
    if (to === 'int2' && big >= -32768n && big <= 32767n) return Exprs.literal(Number(big), e.type);
    if (to === 'float8' || to === 'float4') return Exprs.literal(to === 'float4' ? Math.fround(Number(big)) : Number(big), e.type);
    if (to === 'numeric' && e.type.kind === 'numeric') {
      const scale = e.type.scale;
      if (e.type.precision !== undefined && big.toString().replace('-', '').length > e.type.precision - (scale ?? 0)) return e;
      return Exprs.literal(scale ? `${big}.${'0'.repeat(scale)}` : big.toString(), e.type);
    }
  }
  return e;
}

const keyOf = (e: Expr): string => JSON.stringify(e, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));

/**
 * (A AND B) OR (A AND C) → A AND (B OR C): a join or filter condition repeated in
 * every branch becomes usable on its own (a join key repeated in each OR branch).
 */
function factorOr(branches: readonly Expr[]): Expr | undefined {
  const parts = branches.map((b) => (b.kind === 'and' ? b.args : [b]));
  const common = parts[0]!.filter((c) => parts.every((p) => p.some((x) => keyOf(x) === keyOf(c))));
  if (common.length === 0) return undefined;
  const commonKeys = new Set(common.map(keyOf));
  const rests = parts.map((p) => p.filter((x) => !commonKeys.has(keyOf(x))));
  // A branch that was only common conjuncts makes the OR true once they hold.
  if (rests.some((r) => r.length === 0)) return common.length === 1 ? common[0]! : { kind: 'and', args: common, type: { kind: 'bool' } };
  const rest: Expr = { kind: 'or', args: rests.map((r) => (r.length === 1 ? r[0]! : { kind: 'and', args: r, type: { kind: 'bool' } })), type: { kind: 'bool' } };
  return { kind: 'and', args: [...common, rest], type: { kind: 'bool' } };
}

/** Constant folding: AND/OR with constants, NOT of a constant, double NOT, numeric literal casts. */
export function simplifyExpr(e0: Expr): Expr {
  const e = e0.kind === 'and' || e0.kind === 'or' || e0.kind === 'not' ? e0 : mapChildren(e0, simplifyExpr);
  switch (e.kind) {
    case 'cast': return foldCast(e);
    case 'and': {
      const args = e.args.map(simplifyExpr).flatMap((a) => (a.kind === 'and' ? a.args : [a]));
      if (args.some((a) => isBool(a, false))) return FALSE;
      const kept = args.filter((a) => !isBool(a, true));
      if (kept.length === 0) return TRUE;
      if (kept.length === 1) return kept[0]!;
      return kept.length === e.args.length && kept.every((a, i) => a === e.args[i]) ? e : { ...e, args: kept };
    }
    case 'or': {
      const args = e.args.map(simplifyExpr).flatMap((a) => (a.kind === 'or' ? a.args : [a]));
      if (args.some((a) => isBool(a, true))) return TRUE;
      const kept = args.filter((a) => !isBool(a, false));
      if (kept.length === 0) return FALSE;
      if (kept.length === 1) return kept[0]!;
      const factored = factorOr(kept);
      if (factored) return factored;
      return kept.length === e.args.length && kept.every((a, i) => a === e.args[i]) ? e : { ...e, args: kept };
    }
    case 'not': {
      const arg = simplifyExpr(e.arg);
      if (arg.kind === 'literal' && typeof arg.value === 'boolean') return Exprs.literal(!arg.value, { kind: 'bool' });
      if (arg.kind === 'not') return arg.arg;
      return arg === e.arg ? e : { ...e, arg };
    }
    case 'isNull': case 'isNotNull': {
      if (e.arg.kind === 'literal') return Exprs.literal((e.arg.value === null) === (e.kind === 'isNull'), { kind: 'bool' });
      return e;
    }
    default:
      return e;
  }
}
