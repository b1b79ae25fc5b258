import type { Node } from '@pgsql/types';
import type { ParsedStatement } from '../parsed-statement.js';
import type { LakeClause } from './lake-clause.js';
import { lakePrepass } from './lake-prepass.js';
import { parseRaw } from './pg-parser.js';
import { StatementCache } from './statement-cache.js';

export { loadSqlParser } from './pg-parser.js';

const cache = new StatementCache<readonly ParsedStatement[]>(512);
/** Long texts (bulk INSERTs) are rarely repeated; caching them only evicts useful entries. */
const maxCachedLength = 16_384;

/**
 * Splits a query string into statements and parses each with PostgreSQL's
 * grammar (after the lakehouse pre-pass). Blank or ';'-only input gives [].
 * A syntax error throws FloeError 42601 with a 1-based position.
 * Results are cached by text; parse trees are shared, so callers must not mutate them.
 */
export function parseStatements(text: string): ParsedStatement[] {
  const hit = cache.get(text);
  if (hit) return [...hit];
  const parsed = parseUncached(text);
  if (text.length <= maxCachedLength) cache.set(text, parsed);
  return [...parsed];
}

function clauseLocation(c: LakeClause): number {
  return c.location;
}

function parseUncached(text: string): ParsedStatement[] {
  const pre = lakePrepass(text);
  const raws = parseRaw(pre.text);
  return raws.map((raw, index) => {
    const end = raw.length === undefined ? text.length : raw.location + raw.length;
    let start = raw.location;
    // stmt_location points just past the previous ';': skip the whitespace and comments before the statement.
    const slice = text.slice(start, end);
    const lead = leadingTrivia(slice);
    start += lead;
    let stop = end;
    while (stop > start && /[\s;]/.test(text[stop - 1]!)) stop--;
    const nextStart = raws[index + 1]?.location ?? Number.POSITIVE_INFINITY;
    const lake = pre.clauses.filter((c) => clauseLocation(c) >= raw.location && clauseLocation(c) < Math.min(nextStart, end + 1));
    return Object.freeze({ text: text.slice(start, stop), location: start, ast: raw.stmt, lake, source: text, isTransactionEnd: isTransactionEnd(raw.stmt) });
  });
}

/** The TransactionStmt kinds that end a transaction block (PostgreSQL's IsTransactionExitStmt, plus the prepared-transaction ones). */
const transactionEndKinds = new Set([
  'TRANS_STMT_COMMIT', 'TRANS_STMT_ROLLBACK', 'TRANS_STMT_ROLLBACK_TO', 'TRANS_STMT_PREPARE', 'TRANS_STMT_COMMIT_PREPARED', 'TRANS_STMT_ROLLBACK_PREPARED',
]);

function isTransactionEnd(node: Node): boolean {
  const ts = (node as { TransactionStmt?: { kind?: string } }).TransactionStmt;
  return ts !== undefined && transactionEndKinds.has(ts.kind ?? '');
}

/** Length of whitespace and comments at the start of `s`. */
function leadingTrivia(s: string): number {
  let i = 0;
  for (;;) {
    while (i < s.length && /\s/.test(s[i]!)) i++;
    if (s.startsWith('--', i)) {
      const nl = s.indexOf('\n', i);
      if (nl < 0) return s.length;
      i = nl + 1;
    } else if (s.startsWith('/*', i)) {
      let depth = 0;
      let j = i;
      while (j < s.length) {
        if (s.startsWith('/*', j)) { depth++; j += 2; } else if (s.startsWith('*/', j)) { depth--; j += 2; if (depth === 0) break; } else j++;
      }
      i = j;
    } else {
      return i;
    }
  }
}
