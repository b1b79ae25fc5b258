import type { TlpQueries } from './tlp.js';

/** One step of a history: a SQL statement (or a COPY with its data, or a TLP query check). */
export interface Statement {
  readonly sql: string;
  /** What Floe is sent instead of `sql`, when the two differ (Floe's PARTITION BY clause). */
  readonly floeSql?: string;
  /** The kind of statement, for the allowlist and the report (`insert`, `update-pk`, `copy`, `tlp` …). */
  readonly shape: string;
  /** Tables whose contents are compared after the statement. */
  readonly tables: readonly string[];
  /** COPY FROM STDIN only: the rows in text format, each ending in a newline. */
  readonly copyData?: string;
  /** TLP checks only: the partitioned queries (`sql` is their whole-table query). */
  readonly tlp?: TlpQueries;
}

/** A history as a psql script that replays it (COPY data inline, ended by `\.`). */
export function toScript(statements: readonly Statement[]): string {
  const out: string[] = [];
  for (const s of statements) {
    if (s.copyData !== undefined) {
      out.push(`${s.sql};`, s.copyData.replace(/\n$/, ''), '\\.');
    } else if (s.tlp !== undefined) {
      out.push(`-- TLP: the three parts must add up to ${s.tlp.whole}`);
      for (const p of s.tlp.parts) out.push(`${p};`);
    } else if (s.floeSql !== undefined) {
      out.push(`-- PostgreSQL: ${s.sql};`, `${s.floeSql};`);
    } else {
      out.push(`${s.sql};`);
    }
  }
  return `${out.join('\n')}\n`;
}
