import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { Token } from './pg-parser.js';

/** A keyword-like token's text in lower case; '' for a quoted identifier (never a keyword). */
export const lower = (t: Token | undefined): string => (t === undefined ? '' : t.tokenName === 'IDENT' && t.text.startsWith('"') ? '' : t.text.toLowerCase());

/** An identifier's value: folded to lower case unless quoted. Undefined for a token that cannot be a name. */
export function identValue(t: Token | undefined): string | undefined {
  if (t === undefined) return undefined;
  if (t.tokenName === 'IDENT') return t.text.startsWith('"') ? t.text.slice(1, -1).replaceAll('""', '"') : t.text.toLowerCase();
  if (t.keywordKind === 1 || t.keywordKind === 2) return t.text.toLowerCase();
  return undefined;
}

/** PostgreSQL's syntax error at a token (or at the end of the statement), 1-based position. */
export function syntaxErrorAt(t: Token | undefined, stmt: readonly Token[]): FloeError {
  if (t === undefined) {
    const last = stmt[stmt.length - 1];
    return new FloeError(SqlState.syntaxError, 'syntax error at end of input', { position: (last?.end ?? 0) + 1 });
  }
  return new FloeError(SqlState.syntaxError, `syntax error at or near "${t.text}"`, { position: t.start + 1 });
}
