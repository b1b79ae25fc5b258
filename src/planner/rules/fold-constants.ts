import type { SqlType } from '../../common/sql-type.js';
import { compileExpr, createRunState, type Expr, Exprs, functionById, type RunState } from '../../exec/index.js';
import { conjuncts, mapChildren } from '../expr-utils.js';
import { LogicalFilter } from '../logical/logical-filter.js';
import type { LogicalPlan } from '../logical/logical-plan.js';
import type { OptimizerRule, RuleResult } from '../optimizer-rule.js';
import { exprEquals } from './expr-equals.js';
import { scanFilterOf } from './push-filter-into-scan.js';
import type { LogicalScan } from '../logical/logical-scan.js';
import { unwrapDateCastComparison } from './unwrap-date-cast-comparison.js';

/*
 * Types whose operators and casts give the same answer whatever the session's
 * settings are. timestamptz (time zone) and text (DateStyle, IntervalStyle,
 * extra_float_digits on output) are left out, so a folded value never depends
 * on settings that might differ at execution time.
 */
const settingFree = new Set(['bool', 'int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'date', 'timestamp', 'interval']);
const textKinds = new Set(['text', 'unknown', 'varchar']);
const stringKinds = new Set(['text', 'varchar', 'bpchar']);
const textInputSafe = new Set(['bool', 'int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'interval']);
const safeType = (t: SqlType): boolean => settingFree.has(t.kind);

/** Whether `e` is a tree of literals, casts and non-volatile calls over setting-free types. */
function foldable(e: Expr): boolean {
  // A string literal cast to a string type (the binder's char(n) IN-list items) reads no setting,
  // and folded it is a constant the scan can filter by.
  if (e.kind === 'cast' && e.arg.kind === 'literal' && textKinds.has(e.arg.type.kind) && stringKinds.has(e.type.kind)) return true;
  if (!safeType(e.type)) return false;
  switch (e.kind) {
    case 'literal': return true;
    case 'cast':
      // Text input of these types reads no settings and no clock ('today', 'now' would).
      if (e.arg.kind === 'literal' && textKinds.has(e.arg.type.kind)) return textInputSafe.has(e.type.kind);
      return foldable(e.arg);
    case 'call': {
      // Operators only: functions like current_date, localtimestamp or age(ts) read the
      // clock (stable, not volatile), and their value belongs to the execution.
      if (!/^[^A-Za-z_]+\(/.test(e.fn) || e.args.length === 0) return false;
      const f = functionById(e.fn);
      return f !== undefined && f.kind === 'scalar' && !f.volatile && e.args.every(foldable);
    }
    default: return false;
  }
}

let run: RunState | undefined;
const oneRow = { numRows: 1, columns: [] };

/**
 * The value of a constant expression, computed by EXEC's own compiled evaluation
 * so that folding can never disagree with execution. Undefined when evaluation
 * fails: the error is left to happen (or not) at run time, as it would unfolded.
 */
function evaluate(e: Expr): Expr | undefined {
  try {
    run ??= createRunState({});
    const v = compileExpr(e).evaluateSync(oneRow, run)[0];
    return v === undefined ? undefined : Exprs.literal(v, e.type);
  } catch {
    return undefined;
  }
}

/** Folds constant subtrees to literals, then rewrites date-vs-timestamp comparisons on a bare date column. */
export function foldConstantsIn(e: Expr): Expr {
  if (e.kind !== 'literal' && (e.kind === 'cast' || e.kind === 'call') && foldable(e)) {
    const v = evaluate(e);
    if (v) return v;
  }
  const inner = mapChildren(e, foldConstantsIn);
  const next = exprEquals(inner, e) ? e : inner;
  return unwrapDateCastComparison(next) ?? next;
}

function apply(p: LogicalPlan): RuleResult {
  switch (p.kind) {
    case 'filter': {
      const predicate = foldConstantsIn(p.predicate);
      if (exprEquals(predicate, p.predicate)) return { plan: p, changed: false };
      return { plan: LogicalFilter.create({ input: p.input, predicate, columns: p.columns, ...(p.barrier ? { barrier: true } : {}) }), changed: true };
    }
    case 'join': {
      if (!p.condition) return { plan: p, changed: false };
      const condition = foldConstantsIn(p.condition);
      if (exprEquals(condition, p.condition)) return { plan: p, changed: false };
      return { plan: { ...p, condition }, changed: true };
    }
    case 'scan': {
      // A filter may reach the scan before this rule sees it (pushed in the same pass).
      if (!p.residual) return { plan: p, changed: false };
      const residual = foldConstantsIn(p.residual);
      if (exprEquals(residual, p.residual)) return { plan: p, changed: false };
      const filters = [...p.filters];
      for (const c of conjuncts(residual)) {
        const f = scanFilterOf(c, p);
        if (f && !filters.some((x) => exprEquals(x, f))) filters.push(f);
      }
      return { plan: { ...p, filters, residual } as LogicalScan, changed: true };
    }
    default:
      return { plan: p, changed: false };
  }
}

/**
 * Constant folding of date/timestamp/interval arithmetic and casts, evaluated by
 * EXEC, in predicates (filters, join conditions, scan residuals): that is where a
 * constant decides pruning. Select-list constants are left as bound.
 */
export const foldConstants: OptimizerRule = { name: 'fold-constants', apply };
