import { createHash } from 'node:crypto';
import { normalizeConstants } from './pg-parser.js';
import { StatementCache } from './statement-cache.js';

/** A statement as statement statistics group it: its text with constants as $n, and a stable 64-bit id of that text. */
export interface NormalizedStatement {
  readonly query: string;
  readonly queryId: bigint;
}

/** Normalizing costs about what parsing does; a workload repeats its texts, so they are cached like parses. */
const cache = new StatementCache<NormalizedStatement>(1000);

/**
 * `SELECT * FROM t WHERE id = 5` and `… id = 7` both become `SELECT * FROM t WHERE id = $1`,
 * with one queryid: a hash of the normalized text, so it is the same in every process and
 * across restarts. A statement PostgreSQL's grammar cannot parse (Floe's time travel and
 * branch clauses) keeps its text as it is.
 */
export function normalizedStatement(text: string): NormalizedStatement {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const query = normalizeConstants(text) ?? text;
  const queryId = createHash('sha256').update(query).digest().readBigInt64BE(0);
  const out = { query, queryId };
  cache.set(text, out);
  return out;
}
