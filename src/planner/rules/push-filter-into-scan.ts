import { type Expr, sameType, type ScanFilterSpec } from '../../exec/index.js';
import { isExactFilter } from '../../lake/index.js';
import type { LogicalFilter } from '../logical/logical-filter.js';
import type { LogicalPlan } from '../logical/logical-plan.js';
import type { LogicalScan } from '../logical/logical-scan.js';
import type { OptimizerRule, RuleResult } from '../optimizer-rule.js';
import { conjunction, conjuncts, hasCorrelatedSubquery } from '../expr-utils.js';
import { exprEquals } from './expr-equals.js';

const flipped: Record<string, ScanFilterSpec['op']> = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** The comparison symbol of a registry id like "<=(int4,int4)". */
function comparisonOp(fn: string): ScanFilterSpec['op'] | undefined {
  const m = /^(=|<>|<=|>=|<|>)\(/.exec(fn);
  return m ? (m[1] as ScanFilterSpec['op']) : undefined;
}

/** A conjunct the lake can use for pruning: column op constant (or $n), column IN (constants), column IS [NOT] NULL. */
export function scanFilterOf(c: Expr, scan: LogicalScan): ScanFilterSpec | undefined {
  const columnName = (e: Expr): string | undefined => {
    // varchar has no operators of its own: `v = 'x'` binds as v::text = 'x', which compares exactly as v = 'x' does.
    if (e.kind === 'cast' && e.type.kind === 'text' && e.arg.kind === 'column' && e.arg.type.kind === 'varchar') return columnName(e.arg);
    if (e.kind !== 'column') return undefined;
    const name = scan.projection[e.index];
    const col = scan.table.columns.find((tc) => tc.name === name);
    // char(n) literals qualify too: the lake compares char(n) values without trailing blanks, as PostgreSQL does.
    return col && sameType(col.type, e.type) ? name : undefined;
  };
  const constant = (e: Expr, like: Expr): unknown => (e.kind === 'literal' && e.value !== null && sameType(e.type, like.type) ? e.value : undefined);
  if (c.kind === 'call' && c.args.length === 2) {
    const op = comparisonOp(c.fn);
    if (!op) return undefined;
    const [a, b] = c.args as [Expr, Expr];
    const an = columnName(a);
    if (an !== undefined) {
      const v = constant(b, a);
      if (v !== undefined) return { column: an, op, value: v };
      if (isParamLike(b, a)) return { column: an, op, param: { index: b.index, type: b.type } };
    }
    const bn = columnName(b);
    if (bn !== undefined) {
      const v = constant(a, b);
      if (v !== undefined) return { column: bn, op: flipped[op]!, value: v };
      if (isParamLike(a, b)) return { column: bn, op: flipped[op]!, param: { index: a.index, type: a.type } };
    }
    return undefined;
  }
  if (c.kind === 'inList' && !c.negated) {
    const name = columnName(c.arg);
    if (name === undefined) return undefined;
    const values = c.list.map((e) => constant(e, c.arg));
    if (values.some((v) => v === undefined)) return undefined;
    return { column: name, op: 'in', values };
  }
  if (c.kind === 'isNull' || c.kind === 'isNotNull') {
    const name = columnName(c.arg);
    return name === undefined ? undefined : { column: name, op: c.kind };
  }
  return undefined;
}

/** `$n` of the column's own type: pushed as a parameter filter, bound at each execution. */
function isParamLike(e: Expr, like: Expr): e is Extract<Expr, { kind: 'param' }> {
  return e.kind === 'param' && sameType(e.type, like.type);
}

/** Column types whose scan comparisons leave nothing to re-check: exact numbers, dates and times. */
const ORDERED_EXACTLY = new Set(['bool', 'int2', 'int4', 'int8', 'numeric', 'date', 'time', 'timestamp', 'timestamptz', 'timetz']);
/** Text orders by collation; equality, inequality, IN and null tests do not depend on it (char(n) ignoring trailing blanks). */
const EQUALITY_ONLY = new Set(['text', 'varchar', 'bpchar']);

/**
 * Whether the lake applies `f` to every row it returns with exactly the
 * conjunct's SQL meaning (a NULL comparison drops the row, as WHERE does), so the
 * residual need not test it again: the lake's own exactness, narrowed to the
 * types and operators where its comparison is PostgreSQL's beyond doubt.
 */
export function provenByScan(f: ScanFilterSpec, scan: LogicalScan): boolean {
  // A parameter may be NULL at execution, when nothing is pushed: the residual decides.
  if (f.param !== undefined) return false;
  const col = scan.table.columns.find((c) => c.name === f.column);
  if (col === undefined || !isExactFilter(f, col)) return false;
  if (f.op === 'isNull' || f.op === 'isNotNull') return true;
  if (ORDERED_EXACTLY.has(col.type.kind)) return true;
  return EQUALITY_ONLY.has(col.type.kind) && (f.op === '=' || f.op === '<>' || f.op === 'in');
}

/**
 * filter(scan) → scan with the prunable conjuncts offered to the lake as
 * ScanFilters (partition, min/max and bucket pruning) and the predicate as its
 * residual, less the conjuncts the lake's filters decide exactly: re-testing
 * them cost a date-range scan a decode and a comparison of its date for each of 6M rows.
 */
function apply(p: LogicalPlan): RuleResult {
  if (p.kind !== 'filter' || p.input.kind !== 'scan') return { plan: p, changed: false };
  if (hasCorrelatedSubquery(p.predicate)) return { plan: p, changed: false };
  const scan = p.input;
  if (scan.barrier && !p.barrier) return offerOnly(p, scan);
  const parts = scan.residual ? conjuncts(scan.residual) : [];
  const filters = [...scan.filters];
  for (const c of conjuncts(p.predicate)) {
    const f = scanFilterOf(c, scan);
    if (f && !filters.some((x) => exprEquals(x, f))) filters.push(f);
    if (f === undefined || !provenByScan(f, scan)) parts.push(c);
  }
  const residual = conjunction(parts);
  const { residual: _old, ...rest } = scan;
  void _old;
  return { plan: { ...rest, filters, ...(residual ? { residual } : {}), limit: undefined, ...(p.barrier ? { barrier: true } : {}) } as LogicalScan, changed: true };
}

/**
 * A filter over a scan that holds a security barrier: its prunable conjuncts are offered to
 * the lake (comparisons of a column with a constant raise nothing, so they reveal nothing of
 * the rows the barrier hides), but the predicate stays a filter above, run only on the rows
 * the barrier kept.
 */
function offerOnly(p: LogicalFilter, scan: LogicalScan): RuleResult {
  const added = conjuncts(p.predicate).flatMap((c) => {
    const f = scanFilterOf(c, scan);
    return f !== undefined && !scan.filters.some((x) => exprEquals(x, f)) ? [f] : [];
  });
  if (added.length === 0) return { plan: p, changed: false };
  return { plan: { ...p, input: { ...scan, filters: [...scan.filters, ...added] } as LogicalScan }, changed: true };
}

export const pushFilterIntoScan: OptimizerRule = { name: 'push-filter-into-scan', apply };
