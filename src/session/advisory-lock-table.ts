import { FloeError } from '../common/floe-error.js';
import type { AdvisoryLockKey, AdvisoryLockRow } from '../exec/index.js';

type Mode = 'ExclusiveLock' | 'ShareLock';

/** One session's holds of one mode on one key, counted per level (session locks are reentrant). */
interface Hold {
  readonly pid: number;
  readonly mode: Mode;
  session: number;
  xact: number;
}

interface Waiter {
  readonly pid: number;
  readonly mode: Mode;
  readonly sinceMicros: bigint;
  readonly grant: () => void;
}

interface LockEntry {
  readonly key: AdvisoryLockKey;
  readonly holds: Hold[];
  readonly waiters: Waiter[];
}

export interface AcquireOptions {
  readonly shared: boolean;
  readonly xact: boolean;
  readonly wait: boolean;
  readonly signal: AbortSignal | undefined;
  /** lock_timeout in ms (0: none): past it the wait fails with 55P03. */
  readonly lockTimeoutMs: number;
}

function keyText(k: AdvisoryLockKey): string {
  return `${k.classid}:${k.objid}:${k.objsubid}`;
}

function conflicts(a: Mode, b: Mode): boolean {
  return a === 'ExclusiveLock' || b === 'ExclusiveLock';
}

/**
 * The server's advisory locks (pg_advisory_lock and friends), shared by every
 * session. As in PostgreSQL: a session's own holds never conflict with each other;
 * session-level holds are reentrant and last until unlocked or disconnect,
 * transaction-level ones until the transaction ends; waiters are granted in
 * arrival order, and a newcomer queues behind a waiter it conflicts with.
 * There is no deadlock detector: two sessions waiting on each other wait until
 * cancelled, lock_timeout or statement_timeout.
 */
export class AdvisoryLockTable {
  readonly #entries = new Map<string, LockEntry>();

  async acquire(pid: number, key: AdvisoryLockKey, opts: AcquireOptions): Promise<boolean> {
    const mode: Mode = opts.shared ? 'ShareLock' : 'ExclusiveLock';
    const id = keyText(key);
    let entry = this.#entries.get(id);
    if (entry === undefined) {
      entry = { key, holds: [], waiters: [] };
      this.#entries.set(id, entry);
    }
    const alreadyHolds = entry.holds.some((h) => h.pid === pid);
    const blocked = entry.holds.some((h) => h.pid !== pid && conflicts(h.mode, mode))
      || (!alreadyHolds && entry.waiters.some((w) => w.pid !== pid && conflicts(w.mode, mode)));
    if (!blocked) {
      this.#hold(entry, pid, mode, opts.xact);
      return true;
    }
    if (!opts.wait) {
      this.#dropIfUnused(id, entry);
      return false;
    }
    if (opts.signal?.aborted) throw opts.signal.reason;
    const waiting = entry;
    await new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        pid, mode, sinceMicros: BigInt(Date.now()) * 1000n,
        grant: () => { cleanup(); this.#hold(waiting, pid, mode, opts.xact); resolve(); },
      };
      const leave = (e: unknown): void => {
        cleanup();
        const at = waiting.waiters.indexOf(waiter);
        if (at >= 0) waiting.waiters.splice(at, 1);
        this.#grantWaiters(waiting);
        this.#dropIfUnused(id, waiting);
        reject(e);
      };
      const onAbort = (): void => leave(opts.signal!.reason);
      const cleanup = (): void => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
      };
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      if (opts.lockTimeoutMs > 0) {
        timer = setTimeout(() => leave(new FloeError('55P03', 'canceling statement due to lock timeout')), opts.lockTimeoutMs);
      }
      waiting.waiters.push(waiter);
    });
    return true;
  }

  /** Releases one session-level hold; false when there is none of that mode. */
  release(pid: number, key: AdvisoryLockKey, shared: boolean): boolean {
    const id = keyText(key);
    const entry = this.#entries.get(id);
    const mode: Mode = shared ? 'ShareLock' : 'ExclusiveLock';
    const hold = entry?.holds.find((h) => h.pid === pid && h.mode === mode);
    if (entry === undefined || hold === undefined || hold.session === 0) return false;
    hold.session--;
    this.#settle(id, entry);
    return true;
  }

  /** Releases every hold of one level: 'xact' at transaction end, 'session' for pg_advisory_unlock_all; both at disconnect. */
  releaseAll(pid: number, level: 'session' | 'xact' | 'both'): void {
    for (const [id, entry] of [...this.#entries]) {
      let changed = false;
      for (const h of entry.holds) {
        if (h.pid !== pid) continue;
        if (level !== 'xact' && h.session > 0) { h.session = 0; changed = true; }
        if (level !== 'session' && h.xact > 0) { h.xact = 0; changed = true; }
      }
      if (changed) this.#settle(id, entry);
    }
  }

  /** pg_locks's advisory rows: granted holds, then waiters. */
  rows(): AdvisoryLockRow[] {
    const out: AdvisoryLockRow[] = [];
    for (const e of this.#entries.values()) {
      for (const h of e.holds) out.push({ pid: h.pid, key: e.key, mode: h.mode, granted: true, waitStartMicros: null });
      for (const w of e.waiters) out.push({ pid: w.pid, key: e.key, mode: w.mode, granted: false, waitStartMicros: w.sinceMicros });
    }
    return out;
  }

  #hold(entry: LockEntry, pid: number, mode: Mode, xact: boolean): void {
    let h = entry.holds.find((x) => x.pid === pid && x.mode === mode);
    if (h === undefined) {
      h = { pid, mode, session: 0, xact: 0 };
      entry.holds.push(h);
    }
    if (xact) h.xact++;
    else h.session++;
  }

  #settle(id: string, entry: LockEntry): void {
    for (let i = entry.holds.length - 1; i >= 0; i--) {
      const h = entry.holds[i]!;
      if (h.session === 0 && h.xact === 0) entry.holds.splice(i, 1);
    }
    this.#grantWaiters(entry);
    this.#dropIfUnused(id, entry);
  }

  /** Grants waiters in arrival order while each is compatible with the holds (and with earlier waiters still blocked). */
  #grantWaiters(entry: LockEntry): void {
    for (let i = 0; i < entry.waiters.length;) {
      const w = entry.waiters[i]!;
      const blocked = entry.holds.some((h) => h.pid !== w.pid && conflicts(h.mode, w.mode))
        || entry.waiters.slice(0, i).some((x) => x.pid !== w.pid && conflicts(x.mode, w.mode));
      if (blocked) { i++; continue; }
      entry.waiters.splice(i, 1);
      w.grant();
    }
  }

  #dropIfUnused(id: string, entry: LockEntry): void {
    if (entry.holds.length === 0 && entry.waiters.length === 0) this.#entries.delete(id);
  }
}
