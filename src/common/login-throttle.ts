import { FloeError } from './floe-error.js';
import { SqlState } from './sqlstate.js';

export interface LoginThrottleOptions {
  /** Failures from one address within `windowMs` before it is locked out (default 10). */
  readonly failuresAllowed?: number;
  /** A failure older than this (since the address's last one) starts the count again (default 60 s). */
  readonly windowMs?: number;
  /** The first lockout; each further failure doubles it (default 1 s). */
  readonly firstLockMs?: number;
  /** The longest lockout (default 5 min). */
  readonly maxLockMs?: number;
  /** Addresses remembered at most; the longest-quiet are forgotten first (default 10,000). */
  readonly maxAddresses?: number;
  readonly now?: () => number;
}

interface AddressState {
  failures: number;
  lastFailureMs: number;
  lockedUntilMs: number;
}

/**
 * Failed logins per client address, shared by the wire and the HTTP server so that neither
 * is a side door: past `failuresAllowed` failures within the window, the address is locked
 * out for a time that doubles with each further failure, and while it is, every password
 * attempt from it is refused before any password is looked at (so the refusal says nothing
 * about the password); a trusted connection has no password to guess and is not asked. A success clears the address. Guessing from one address is then a few attempts
 * a minute, however many connections it opens at once.
 */
export class LoginThrottle {
  readonly #failuresAllowed: number;
  readonly #windowMs: number;
  readonly #firstLockMs: number;
  readonly #maxLockMs: number;
  readonly #maxAddresses: number;
  readonly #now: () => number;
  /** In order of last failure, oldest first (re-inserted on each failure). */
  readonly #addresses = new Map<string, AddressState>();

  constructor(opts: LoginThrottleOptions = {}) {
    this.#failuresAllowed = opts.failuresAllowed ?? 10;
    this.#windowMs = opts.windowMs ?? 60_000;
    this.#firstLockMs = opts.firstLockMs ?? 1_000;
    this.#maxLockMs = opts.maxLockMs ?? 5 * 60_000;
    this.#maxAddresses = opts.maxAddresses ?? 10_000;
    this.#now = opts.now ?? Date.now;
  }

  /** Throws 28000 while `address` is locked out. */
  check(address: string): void {
    const s = this.#addresses.get(address);
    const now = this.#now();
    if (s === undefined || s.lockedUntilMs <= now) return;
    const seconds = Math.ceil((s.lockedUntilMs - now) / 1000);
    throw new FloeError(SqlState.invalidAuthorizationSpecification, `too many failed authentication attempts from ${address}`, {
      severity: 'FATAL',
      detail: `${s.failures} attempts failed within ${Math.round(this.#windowMs / 1000)} s of each other.`,
      hint: `Try again in ${seconds} s.`,
    });
  }

  /** Counts a failed attempt from `address`; returns its failures in a row. */
  failed(address: string): number {
    const now = this.#now();
    const prev = this.#addresses.get(address);
    const failures = prev !== undefined && now - prev.lastFailureMs <= this.#windowMs ? prev.failures + 1 : 1;
    const over = failures - this.#failuresAllowed;
    const lockedUntilMs = over >= 0 ? now + Math.min(this.#maxLockMs, this.#firstLockMs * 2 ** Math.min(over, 30)) : 0;
    this.#addresses.delete(address);
    this.#addresses.set(address, { failures, lastFailureMs: now, lockedUntilMs });
    if (this.#addresses.size > this.#maxAddresses) this.#addresses.delete(this.#addresses.keys().next().value!);
    return failures;
  }

  succeeded(address: string): void {
    this.#addresses.delete(address);
  }
}
