import { createHash } from 'node:crypto';
import { normalizeConstants } from './pg-parser.js';
import { StatementCache } from './statement-cache.js';

/** A statement as statement statistics group it: its text with constants as $n, and a stable 64-bit id of that text. */
export interface NormalizedStatement {
  readonly query: string;
  readonly queryId: bigint;
}

/**
 * Normalizing parses the text again (about 15 µs for a short statement, 20 ms for a 100 kB
 * INSERT). Longer texts, multi-row INSERTs mostly, are not normalized: their entries would
 * rarely fold anyway, as pg_stat_statements keeps one per number of VALUES rows.
 */
export const MAX_NORMALIZED_CHARS = 64 * 1024;

/** A workload repeats its short texts, so those are cached like parses; long ones would fill the cache with bytes. */
const MAX_CACHED_CHARS = 8 * 1024;
const cache = new StatementCache<NormalizedStatement>(1000);

/**
 * `SELECT * FROM t WHERE id = 5` and `… id = 7` both become `SELECT * FROM t WHERE id = $1`,
 * with one queryid: a hash of the normalized text, so it is the same in every process and
 * across restarts (pg_stat_statements hashes the parse tree instead, so two spellings of
 * one statement are one entry there and two here). A statement PostgreSQL's grammar cannot
 * parse (Floe's time travel and branch clauses), or longer than MAX_NORMALIZED_CHARS, keeps
 * its text as it is.
 */
export function normalizedStatement(text: string): NormalizedStatement {
  const cacheable = text.length <= MAX_CACHED_CHARS;
  const hit = cacheable ? cache.get(text) : undefined;
  if (hit !== undefined) return hit;
  const query = (text.length <= MAX_NORMALIZED_CHARS ? normalizeConstants(text) : undefined) ?? text;
  const queryId = createHash('sha256').update(query).digest().readBigInt64BE(0);
  const out = { query, queryId };
  if (cacheable) cache.set(text, out);
  return out;
}
