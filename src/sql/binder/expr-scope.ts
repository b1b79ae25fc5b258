import type { AggregateCall, Expr, WindowCall } from '../../exec/index.js';
import type { Raw } from './ast.js';
import type { Scope } from './scope.js';

/** GROUP BY state shared by the select list, HAVING and ORDER BY of a grouped query. */
export interface GroupingContext {
  /** Group keys bound against the FROM scope. */
  readonly keys: readonly Expr[];
  /** GROUPING SETS / ROLLUP / CUBE: each set lists indexes into keys. */
  readonly sets?: readonly (readonly number[])[];
  readonly keyStrings: readonly string[];
  readonly aggregates: AggregateCall[];
  readonly aggregateStrings: string[];
}

/** Window calls collected from the select list and ORDER BY; they become columns after `base`. */
export interface WindowCollector {
  /** WINDOW w AS (…) definitions of the query. */
  readonly named?: ReadonlyMap<string, Raw>;
  readonly base: number;
  readonly calls: WindowCall[];
  readonly callStrings: string[];
}

/** Where an expression is being bound. */
export interface ExprScope {
  /** The FROM clause's columns (a grouped query's keys/aggregates are reached through `grouping`). */
  readonly scope: Scope;
  /** Clause name for "not allowed in …" errors: WHERE, JOIN conditions, VALUES, … */
  readonly clause: string;
  readonly grouping?: GroupingContext;
  readonly windows?: WindowCollector;
}

export function exprKey(e: unknown): string {
  return JSON.stringify(e, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

/** The index of `call` in `calls` (with `keys`, their exprKeys), appended unless an equal call is there. */
export function internCall<T>(calls: T[], keys: string[], call: T): number {
  const key = exprKey(call);
  const i = keys.indexOf(key);
  if (i >= 0) return i;
  calls.push(call);
  keys.push(key);
  return calls.length - 1;
}
