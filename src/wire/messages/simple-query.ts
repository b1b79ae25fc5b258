import { BodyReader } from './body-reader.js';

export interface Query {
  readonly kind: 'Query';
  readonly sql: string;
}

export function decodeQuery(body: Buffer): Query {
  const r = new BodyReader(body, 'Query');
  const sql = r.cstring();
  r.end();
  return { kind: 'Query', sql };
}

export interface EmptyQueryResponse {
  readonly kind: 'EmptyQueryResponse';
}

export interface CommandComplete {
  readonly kind: 'CommandComplete';
  readonly tag: string;
}
