import type { FloeError } from '../../common/floe-error.js';
import { BodyReader } from './body-reader.js';

export interface Query {
  readonly kind: 'Query';
  readonly sql: string;
  /** Set when the query text is not valid UTF-8 (22021); `sql` then holds a lossy decoding. */
  readonly textError?: FloeError;
}

export function decodeQuery(body: Buffer): Query {
  const r = new BodyReader(body, 'Query');
  const sql = r.clientText();
  r.end();
  return r.textError === undefined ? { kind: 'Query', sql } : { kind: 'Query', sql, textError: r.textError };
}

export interface EmptyQueryResponse {
  readonly kind: 'EmptyQueryResponse';
}

export interface CommandComplete {
  readonly kind: 'CommandComplete';
  readonly tag: string;
}
