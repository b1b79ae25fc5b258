/**
 * Told of every transaction commit that wrote something, after it is durable and
 * visible. The composing layer (src/cli) passes one to count commits and time them
 * (Prometheus in src/http), so the lake needs no metrics library. It must not throw
 * and must not block: it runs on the commit's path.
 */
export interface CommitObserver {
  committed(commit: CommittedTransaction): void;
}

export interface CommittedTransaction {
  /** From COMMIT's start to the snapshot being visible (the log's fsync and the catalog apply included). */
  readonly seconds: number;
  /** Rows the transaction wrote (change rows: an update counts its before and after images). */
  readonly rows: number;
  readonly tables: number;
}
