/** Maps a BackendKeyData (process id, secret) to the running connection, for CancelRequest. */
export class CancelRegistry {
  readonly #entries = new Map<number, { readonly secretKey: number; readonly cancel: () => void }>();
  #nextProcessId = 10000 + Math.floor(Math.random() * 50000);

  /** A process id no live connection uses. */
  allocateProcessId(): number {
    for (;;) {
      const pid = this.#nextProcessId++;
      if (this.#nextProcessId > 0x7fffffff) this.#nextProcessId = 10000;
      if (!this.#entries.has(pid)) return pid;
    }
  }

  register(processId: number, secretKey: number, cancel: () => void): void {
    this.#entries.set(processId, { secretKey, cancel });
  }

  unregister(processId: number): void {
    this.#entries.delete(processId);
  }

  /** Cancels what the connection is running; a wrong secret is ignored silently, as PostgreSQL does. */
  cancel(processId: number, secretKey: number): boolean {
    const e = this.#entries.get(processId);
    if (e === undefined || e.secretKey !== secretKey) return false;
    e.cancel();
    return true;
  }
}
