import type { SqlType } from '../../common/sql-type.js';
import type { SubqueryPlan } from './subquery-plan.js';
import { functionById } from '../functions/function-registry.js';

/**
 * The bound expression IR: plain immutable data (no closures), so a plan can be
 * printed by EXPLAIN, cached, and posted to worker threads. Every node carries
 * its result type. Literal values are canonical (src/common/sql-type.ts).
 * The executor compiles a tree once per query into a vectorized evaluator
 * (src/exec/expr/compile-expr.ts).
 */
export type Expr =
  | ColumnExpr
  | OuterColumnExpr
  | LiteralExpr
  | ParamExpr
  | CallExpr
  | CastExpr
  | CaseExpr
  | AndExpr
  | OrExpr
  | NotExpr
  | IsNullExpr
  | IsNotNullExpr
  | IsDistinctFromExpr
  | IsTruthExpr
  | InListExpr
  | LikeExpr
  | CoalesceExpr
  | NullIfExpr
  | GreatestLeastExpr
  | ArrayExpr
  | SubscriptExpr
  | ScalarSubqueryExpr
  | ExistsExpr
  | InSubqueryExpr;

export type ExprKind = Expr['kind'];

/** A column of the operator's input, by 0-based index. For joins: left columns then right columns. */
export interface ColumnExpr {
  readonly kind: 'column';
  readonly index: number;
  readonly type: SqlType;
  /** For EXPLAIN only. */
  readonly name?: string;
}

/**
 * A correlated reference to a column of an enclosing query's current row.
 * `depth` 1 is the immediately enclosing subplan's outer row; `index` is a column of that row.
 */
export interface OuterColumnExpr {
  readonly kind: 'outerColumn';
  readonly depth: number;
  readonly index: number;
  readonly type: SqlType;
  readonly name?: string;
}

export interface LiteralExpr {
  readonly kind: 'literal';
  /** Canonical value, or null. */
  readonly value: unknown;
  readonly type: SqlType;
}

/** $n (0-based index into ExecContext.params). */
export interface ParamExpr {
  readonly kind: 'param';
  readonly index: number;
  readonly type: SqlType;
}

/**
 * A resolved scalar function or operator: `fn` is a registry id returned by
 * resolveFunction / resolveOperator (src/exec/functions/function-registry.ts).
 * Arguments are already coerced to the resolved argument types (the planner
 * inserts cast nodes where resolution said so).
 */
export interface CallExpr {
  readonly kind: 'call';
  readonly fn: string;
  readonly args: readonly Expr[];
  readonly type: SqlType;
}

export interface CastExpr {
  readonly kind: 'cast';
  readonly arg: Expr;
  /** The target type, with typmod (varchar(n), numeric(p,s)) applied by the cast. */
  readonly type: SqlType;
  /**
   * Set when the binder added the cast for an assignment or implicit coercion rather
   * than a written CAST/::. PostgreSQL then refuses a value too long for char(n) or
   * varchar(n) (22001, unless the excess is spaces) where an explicit cast truncates.
   */
  readonly implicit?: true;
}

/** CASE [operand] WHEN … THEN … [ELSE …] END. With an operand, `when` values are compared with `=`. */
export interface CaseExpr {
  readonly kind: 'case';
  /** Simple CASE: when present, each `when` is compared to it using `eqFn` (a registry id). */
  readonly operand?: Expr;
  readonly eqFn?: string;
  readonly whens: readonly { readonly when: Expr; readonly then: Expr }[];
  readonly else?: Expr;
  readonly type: SqlType;
}

export interface AndExpr {
  readonly kind: 'and';
  readonly args: readonly Expr[];
  readonly type: SqlType;
}

export interface OrExpr {
  readonly kind: 'or';
  readonly args: readonly Expr[];
  readonly type: SqlType;
}

export interface NotExpr {
  readonly kind: 'not';
  readonly arg: Expr;
  readonly type: SqlType;
}

export interface IsNullExpr {
  readonly kind: 'isNull';
  readonly arg: Expr;
  readonly type: SqlType;
}

export interface IsNotNullExpr {
  readonly kind: 'isNotNull';
  readonly arg: Expr;
  readonly type: SqlType;
}

/** a IS [NOT] DISTINCT FROM b; `eqFn` is the registry id of the `=` operator for the (coerced) operand types. */
export interface IsDistinctFromExpr {
  readonly kind: 'isDistinctFrom';
  readonly left: Expr;
  readonly right: Expr;
  readonly eqFn: string;
  readonly negated: boolean;
  readonly type: SqlType;
}

/** x IS [NOT] TRUE / FALSE / UNKNOWN. */
export interface IsTruthExpr {
  readonly kind: 'isTruth';
  readonly arg: Expr;
  readonly test: 'true' | 'false' | 'unknown';
  readonly negated: boolean;
  readonly type: SqlType;
}

/** a [NOT] IN (v1, v2, …) with SQL's NULL semantics; `eqFn` compares a with each value. */
export interface InListExpr {
  readonly kind: 'inList';
  readonly arg: Expr;
  readonly list: readonly Expr[];
  readonly eqFn: string;
  readonly negated: boolean;
  readonly type: SqlType;
}

/** [NOT] LIKE / ILIKE with an optional escape (default backslash; '' disables escaping). */
export interface LikeExpr {
  readonly kind: 'like';
  readonly arg: Expr;
  readonly pattern: Expr;
  readonly escape?: Expr;
  readonly caseInsensitive: boolean;
  readonly negated: boolean;
  readonly type: SqlType;
}

export interface CoalesceExpr {
  readonly kind: 'coalesce';
  readonly args: readonly Expr[];
  readonly type: SqlType;
}

export interface NullIfExpr {
  readonly kind: 'nullif';
  readonly left: Expr;
  readonly right: Expr;
  readonly eqFn: string;
  readonly type: SqlType;
}

/** GREATEST / LEAST; `cmpFn` is the registry id of `<` for the common type. NULLs are ignored. */
export interface GreatestLeastExpr {
  readonly kind: 'greatest' | 'least';
  readonly args: readonly Expr[];
  readonly cmpFn: string;
  readonly type: SqlType;
}

/** ARRAY[a, b, …]. */
export interface ArrayExpr {
  readonly kind: 'array';
  readonly elements: readonly Expr[];
  readonly type: SqlType;
}

/** arr[i] (1-based, NULL when out of range). */
export interface SubscriptExpr {
  readonly kind: 'subscript';
  readonly arg: Expr;
  readonly index: Expr;
  readonly type: SqlType;
}

/**
 * (SELECT …) returning one column. `plan` is the subplan (logical until physical
 * planning, src/exec/expr/subquery-plan.ts); when it references
 * outer columns (outerColumn nodes, depth 1 = this expression's input row) it is
 * re-run per distinct outer row, otherwise once per query. More than one row → 21000.
 */
export interface ScalarSubqueryExpr {
  readonly kind: 'scalarSubquery';
  readonly plan: SubqueryPlan;
  readonly correlated: boolean;
  readonly type: SqlType;
}

export interface ExistsExpr {
  readonly kind: 'exists';
  readonly plan: SubqueryPlan;
  readonly correlated: boolean;
  readonly negated: boolean;
  readonly type: SqlType;
}

/** a [NOT] IN (SELECT …) with SQL's NULL semantics (the subplan's first column). */
export interface InSubqueryExpr {
  readonly kind: 'inSubquery';
  readonly arg: Expr;
  readonly plan: SubqueryPlan;
  readonly eqFn: string;
  readonly correlated: boolean;
  readonly negated: boolean;
  readonly type: SqlType;
}

const boolType: SqlType = { kind: 'bool' };

/** Small constructors, so planners and tests build nodes tersely. */
export const Exprs = Object.freeze({
  column(index: number, type: SqlType, name?: string): ColumnExpr {
    return name === undefined ? { kind: 'column', index, type } : { kind: 'column', index, type, name };
  },
  literal(value: unknown, type: SqlType): LiteralExpr {
    return { kind: 'literal', value, type };
  },
  param(index: number, type: SqlType): ParamExpr {
    return { kind: 'param', index, type };
  },
  call(fn: string, args: readonly Expr[], type: SqlType): CallExpr {
    return { kind: 'call', fn, args, type };
  },
  cast(arg: Expr, type: SqlType, implicit = false): CastExpr {
    return implicit ? { kind: 'cast', arg, type, implicit: true } : { kind: 'cast', arg, type };
  },
  and(...args: Expr[]): AndExpr {
    return { kind: 'and', args, type: boolType };
  },
  or(...args: Expr[]): OrExpr {
    return { kind: 'or', args, type: boolType };
  },
  not(arg: Expr): NotExpr {
    return { kind: 'not', arg, type: boolType };
  },
  isNull(arg: Expr): IsNullExpr {
    return { kind: 'isNull', arg, type: boolType };
  },
  isNotNull(arg: Expr): IsNotNullExpr {
    return { kind: 'isNotNull', arg, type: boolType };
  },
});

/** Expressions a worker can evaluate alone: no subqueries, no outer rows. */
export function shippable(e: Expr): boolean {
  if (e.kind === 'scalarSubquery' || e.kind === 'exists' || e.kind === 'inSubquery' || e.kind === 'outerColumn') return false;
  // Volatile calls (nextval, setval, random) run where the session is, once per row; so do
  // calls and reg* conversions that read the session's catalog, which a worker does not have.
  if (e.kind === 'call') {
    const f = functionById(e.fn);
    if (f?.volatile === true || f?.session === true) return false;
  }
  if (e.kind === 'cast' && (isCatalogReference(e.type) || isCatalogReference(e.arg.type))) return false;
  return exprChildren(e).every(shippable);
}

/** regclass, regtype, regproc, regprocedure: names the session's catalog resolves. */
const CATALOG_REFERENCES: ReadonlySet<SqlType['kind']> = new Set(['regclass', 'regtype', 'regproc', 'regprocedure']);
function isCatalogReference(t: SqlType): boolean {
  return CATALOG_REFERENCES.has(t.kind);
}

/** Child expressions of a node (not descending into subplans), for generic walks. */
export function exprChildren(e: Expr): readonly Expr[] {
  switch (e.kind) {
    case 'column': case 'outerColumn': case 'literal': case 'param':
    case 'scalarSubquery': case 'exists':
      return [];
    case 'call': case 'and': case 'or': case 'coalesce': case 'greatest': case 'least':
      return e.args;
    case 'cast': case 'not': case 'isNull': case 'isNotNull': case 'isTruth':
      return [e.arg];
    case 'case': {
      const out: Expr[] = [];
      if (e.operand) out.push(e.operand);
      for (const w of e.whens) out.push(w.when, w.then);
      if (e.else) out.push(e.else);
      return out;
    }
    case 'isDistinctFrom': case 'nullif':
      return [e.left, e.right];
    case 'inList':
      return [e.arg, ...e.list];
    case 'like':
      return e.escape ? [e.arg, e.pattern, e.escape] : [e.arg, e.pattern];
    case 'array':
      return e.elements;
    case 'subscript':
      return [e.arg, e.index];
    case 'inSubquery':
      return [e.arg];
  }
}
