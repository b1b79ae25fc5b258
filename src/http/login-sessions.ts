import { randomBytes } from 'node:crypto';

/** The cookie that carries a login session's id. */
export const SESSION_COOKIE = 'floe_session';

/** A session ends after this long without a request. */
const IDLE_MS = 8 * 60 * 60 * 1000;

interface LoginSession {
  readonly user: string;
  expiresAt: number;
}

/**
 * The dashboard's login sessions, the alternative to HTTP Basic: a random id (256 bits)
 * in an HttpOnly cookie maps to the user who logged in. Kept in memory: a restart logs
 * everyone out, which is what a management server should do anyway.
 */
export class LoginSessions {
  readonly #sessions = new Map<string, LoginSession>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** A new session for a user whose password was just checked; returns its id. */
  open(user: string): string {
    this.#sweep();
    const id = randomBytes(32).toString('base64url');
    this.#sessions.set(id, { user, expiresAt: this.#now() + IDLE_MS });
    return id;
  }

  /** The user of a live session, renewing it; undefined for an unknown or expired id. */
  userOf(id: string): string | undefined {
    const s = this.#sessions.get(id);
    if (s === undefined) return undefined;
    if (s.expiresAt <= this.#now()) {
      this.#sessions.delete(id);
      return undefined;
    }
    s.expiresAt = this.#now() + IDLE_MS;
    return s.user;
  }

  close(id: string): void {
    this.#sessions.delete(id);
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Seconds a session lives without use. */
  static get idleSeconds(): number {
    return IDLE_MS / 1000;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [id, s] of this.#sessions) if (s.expiresAt <= now) this.#sessions.delete(id);
  }
}

/** The value of one cookie in a Cookie header (RFC 6265 §5.4: `name=value` pairs split by `;`). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
