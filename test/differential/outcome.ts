import type { Row } from './tlp.js';

/** What one side answered: ok with the command tag's verb and row count, or an error's SQLSTATE. */
export type Outcome =
  | { readonly ok: true; readonly command: string; readonly rowCount: number | null; readonly columns?: readonly string[]; readonly rows?: readonly Row[] }
  | { readonly ok: false; readonly code: string; readonly message: string };

export function describeOutcome(o: Outcome): string {
  if (!o.ok) return `ERROR ${o.code}: ${o.message}`;
  return `${o.command}${o.rowCount !== null ? ` ${o.rowCount}` : ''}`;
}

/** Same verb and row count, or the same SQLSTATE. */
export function sameOutcome(a: Outcome, b: Outcome): boolean {
  if (a.ok && b.ok) return a.command === b.command && a.rowCount === b.rowCount;
  if (!a.ok && !b.ok) return a.code === b.code;
  return false;
}
