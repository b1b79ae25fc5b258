interface Waiters {
  readonly promise: Promise<void>;
  resolve(): void;
  reject(e: unknown): void;
}

/**
 * Group commit's scheduling, shared by the logs on disk and on objects: at most one flush
 * (a write+fdatasync, a put) in flight; callers arriving while it runs share the next one,
 * which starts the moment it ends, so every caller is covered by a flush that began after
 * its append.
 */
export class GroupSync {
  readonly #flush: () => Promise<void>;
  readonly #hasPending: () => boolean;
  #running: Promise<void> | undefined;
  #next: Waiters | undefined;

  /** `flush` writes everything appended so far; `hasPending` says whether anything was appended since the last flush began. */
  constructor(flush: () => Promise<void>, hasPending: () => boolean) {
    this.#flush = flush;
    this.#hasPending = hasPending;
  }

  /** Runs a flush now, or joins the one that starts when the running one ends. */
  request(): Promise<void> {
    if (this.#running === undefined) return this.#run();
    // Nothing appended since the running flush began: it covers the caller already.
    if (!this.#hasPending()) return this.#running;
    if (this.#next === undefined) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
      this.#next = { promise, resolve, reject };
    }
    return this.#next.promise;
  }

  #run(): Promise<void> {
    const running = this.#flush().finally(() => {
      this.#running = undefined;
      // Start the next flush in the same tick, so no caller can slip a second one in beside it.
      const waiters = this.#next;
      this.#next = undefined;
      if (waiters !== undefined) this.#run().then(waiters.resolve, waiters.reject);
    });
    this.#running = running;
    return running;
  }
}
