import type { Outcome } from './outcome.js';
import type { Statement } from './statement.js';

/**
 * Known divergences from PostgreSQL that the differential test tolerates. Each
 * entry matches a statement shape and the pair of outcomes (SQLSTATE, or `ok`),
 * and says why it is acceptable. test/differential/README.md documents them.
 * Never list a divergence that loses, overwrites or invents data.
 */
export interface AllowedDivergence {
  readonly id: string;
  readonly reason: string;
  /** Statement shapes (Statement.shape) it applies to. */
  readonly shapes: readonly string[];
  /** Floe's outcome: a SQLSTATE or 'ok'. */
  readonly floe: string;
  /** PostgreSQL's outcomes it covers: SQLSTATEs or 'ok'. */
  readonly postgres: readonly string[];
  /** Floe's row count must be this (e.g. 0: nothing was written). */
  readonly floeRowCount?: number;
  /** Optional further narrowing on the SQL text. */
  readonly sql?: RegExp;
}

export const ALLOWED_DIVERGENCES: readonly AllowedDivergence[] = [
  {
    id: 'constant-folded-at-plan-time',
    reason: 'PostgreSQL folds the cast of a constant to the column type while planning, so an out-of-range '
      + 'constant in UPDATE … SET fails even when no row matches; Floe casts per written row. Nothing is written either way.',
    shapes: ['update'],
    floe: 'ok',
    floeRowCount: 0,
    postgres: ['22003', '22001', '22008'],
  },
  {
    id: 'merge-constant-folded-at-plan-time',
    reason: 'With a one-row VALUES source PostgreSQL substitutes the constants into every WHEN clause and folds '
      + 'their casts while planning, so a value only an untaken clause would write (INSERT of an overlong or '
      + 'out-of-range constant for a row that matched) fails the statement; Floe computes a clause only for the '
      + 'rows that take it, as PostgreSQL does for any source it cannot fold, and runs the clause the row takes.',
    shapes: ['merge'],
    floe: 'ok',
    postgres: ['22003', '22001', '22008'],
    sql: /USING \(VALUES \((?:(?!\), \().)*\)\) AS s\(/s,
  },
  ...['22003', '22001', '22008'].map((floe) => ({
    id: 'merge-unread-source-column',
    reason: 'PostgreSQL never computes a column of a one-row VALUES source that no WHEN clause reads (the planner '
      + 'drops it), so an out-of-range or overlong constant there goes unnoticed; Floe computes the source row whole '
      + 'and refuses the statement. The statement is atomic: Floe writes nothing.',
    shapes: ['merge'],
    floe,
    postgres: ['ok'],
    sql: /USING \(VALUES \((?:(?!\), \().)*\)\) AS s\(/s,
  })),
];

function code(o: Outcome): string {
  return o.ok ? 'ok' : o.code;
}

export function allowedDivergence(stmt: Statement, floe: Outcome, postgres: Outcome): AllowedDivergence | undefined {
  return ALLOWED_DIVERGENCES.find((a) =>
    a.shapes.includes(stmt.shape) && a.floe === code(floe) && a.postgres.includes(code(postgres))
    && (a.floeRowCount === undefined || (floe.ok && floe.rowCount === a.floeRowCount))
    && (a.sql === undefined || a.sql.test(stmt.sql)));
}
