/**
 * Told when the wire answers a statement, so the composing layer can count and time
 * statements (Prometheus in src/http) without the wire knowing SQL or metrics. Calls
 * must not throw and must not block: they run on the connection's path.
 */
export interface StatementObserver {
  /** CommandComplete was sent: `tag` is its command tag ("SELECT 3", "INSERT 0 1", "COPY 5"). */
  completed(tag: string, seconds: number): void;
  /** An ErrorResponse was sent, with this SQLSTATE. */
  failed(sqlstate: string): void;
}
