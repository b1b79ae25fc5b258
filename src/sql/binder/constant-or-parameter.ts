import type { Expr } from '../../exec/index.js';

/*
 * What a clause that wants a value the binder or the scan's start can know (AS OF,
 * table_changes' snapshots) may hold: a literal or a statement parameter, either under at
 * most one cast (`'3'::int8`, `$1::int8`).
 */

type Literal = Extract<Expr, { kind: 'literal' }>;
type Cast = Extract<Expr, { kind: 'cast' }>;

export function isLiteralValue(e: Expr): e is Literal | (Cast & { readonly arg: Literal }) {
  return e.kind === 'literal' || (e.kind === 'cast' && e.arg.kind === 'literal');
}

export function isParameterValue(e: Expr): boolean {
  return e.kind === 'param' || (e.kind === 'cast' && e.arg.kind === 'param');
}
