import { randomUUID } from 'node:crypto';

/** Seqs one lease write takes from `next_seq`. */
export const SEQ_LEASE_BLOCK = 1024n;

/**
 * A block is used only while its row was written this recently: an idle lease's row may
 * have been aborted as stale by another process meanwhile. A quarter of the default
 * stale-transaction timeout; LakeTransaction passes a quarter of its warehouse's.
 */
export const DEFAULT_LEASE_FRESH_MICROS = 15_000_000n;

/** An open transaction that took its seq from a lease. */
interface LeasedTxn {
  readonly seq: bigint;
  readonly startedMicros: bigint;
  /** The lease row it began under: if that row is gone (aborted as stale), so is the transaction. */
  readonly leaseId: string;
}

/**
 * One catalog connection's block of transaction seqs, handed out by beginTxn without a
 * catalog write (docs/design-notes.md, "Transaction seqs from a lease"). The catalog keeps
 * one `txns` row for the lease, whose seq is its *floor*: at or below every seq of an open
 * transaction of the lease and every seq it may still hand out, so the low watermark, which
 * is the least seq of the rows, never passes a transaction that may still commit. This class
 * is the in-memory half; SqlCatalog writes the row.
 *
 * A seq may be handed out from the block only while nobody else has committed to the database
 * since the block was taken: a transaction that begins after another process's commit must
 * order after it, as one that took `next_seq` would.
 */
export class SeqLease {
  /** The lease row's txn_id; a new one when the row was found gone. */
  #id = `lease:${randomUUID()}`;
  #next = 0n;
  #end = 0n;
  /** What others' commits move (the data version and more, SqlCatalog says) as the block was taken, and when the row was last written (µs). */
  #othersVersion = '';
  #writtenMicros = 0n;
  /** A row write in the running catalog transaction: it counts once that commits. */
  #writingMicros = 0n;
  readonly #open = new Map<string, LeasedTxn>();
  /** Transactions whose commit wrote rows in the catalog transaction now running: they end when it commits. */
  readonly #ending = new Set<string>();

  get id(): string {
    return this.#id;
  }

  /** Whether a row was ever written for the lease (by this connection). */
  get written(): boolean {
    return this.#writtenMicros !== 0n;
  }

  /** The next seq without a write, or undefined when the block must be taken again first. */
  take(txnId: string, nowMicros: bigint, othersVersion: string, freshMicros: bigint): bigint | undefined {
    if (this.#next >= this.#end || othersVersion !== this.#othersVersion || nowMicros - this.#writtenMicros >= freshMicros) return undefined;
    const seq = this.#next++;
    this.#open.set(txnId, { seq, startedMicros: nowMicros, leaseId: this.#id });
    return seq;
  }

  /** After the row was written with a new block [first, first + size): the first seq goes to `txnId`. */
  renewed(txnId: string, first: bigint, size: bigint, nowMicros: bigint, othersVersion: string): bigint {
    this.#next = first + 1n;
    this.#end = first + size;
    this.#othersVersion = othersVersion;
    this.#writtenMicros = nowMicros;
    this.#open.set(txnId, { seq: first, startedMicros: nowMicros, leaseId: this.#id });
    return first;
  }

  /** The row was found gone (another process aborted it as stale): later transactions take a new row. */
  replaceRow(): void {
    this.#id = `lease:${randomUUID()}`;
  }

  /** The block is not to be used again (next_seq was raised past it). */
  drop(): void {
    this.#end = this.#next;
  }

  holds(txnId: string): boolean {
    return this.#open.has(txnId);
  }

  /** Whether the transaction began under the lease row as it is now (false: that row was aborted). */
  live(txnId: string): boolean {
    return this.#open.get(txnId)?.leaseId === this.#id;
  }

  /** The row's seq and start now, with the transactions that are ending (and `except`) left out. */
  floor(nowMicros: bigint, except?: string): { seq: bigint; startedMicros: bigint } {
    let seq = this.#next;
    // With none open, a later transaction begins after this write and reads a head committed
    // by then: the row pins nothing older (a snapshot committed at this very microsecond is
    // before it, so expiry keeps it as the newest before, not the one before that as well).
    let startedMicros = nowMicros + 1n;
    for (const [id, t] of this.#open) {
      if (id === except || this.#ending.has(id) || t.leaseId !== this.#id) continue;
      if (t.seq < seq) seq = t.seq;
      if (t.startedMicros < startedMicros) startedMicros = t.startedMicros;
    }
    return { seq, startedMicros };
  }

  /** The running catalog transaction writes the row. */
  writing(nowMicros: bigint): void {
    this.#writingMicros = nowMicros;
  }

  /** A commit of the transaction wrote its rows in the running catalog transaction. */
  ending(txnId: string): void {
    this.#ending.add(txnId);
  }

  /** The running catalog transaction committed (its ending transactions are gone) or rolled back (they are open again). */
  settle(committed: boolean): void {
    if (committed) {
      for (const id of this.#ending) this.#open.delete(id);
      if (this.#writingMicros > this.#writtenMicros) this.#writtenMicros = this.#writingMicros;
    }
    this.#ending.clear();
    this.#writingMicros = 0n;
  }

  /** Ended without a commit (rolled back, or nothing written). */
  end(txnId: string): void {
    this.#open.delete(txnId);
  }
}
