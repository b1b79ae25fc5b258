import type { Notification } from '../common/session-handler.js';
import type { BackendActivity } from '../exec/index.js';
import { AdvisoryLockTable } from './advisory-lock-table.js';

/** One live session as the others see it (pg_stat_activity, pg_cancel_backend, NOTIFY). */
export interface RegisteredSession {
  readonly pid: number;
  activity(): BackendActivity;
  /** Cancels its running statement, as a CancelRequest would. */
  cancel(): void;
  /** Ends it with FATAL 57P01. */
  terminate(): void;
  /** A committed NOTIFY: sent on if the session listens to its channel. */
  deliver(notification: Notification): void;
  /** Settles once the session has closed. */
  readonly closed: Promise<void>;
}

/**
 * The server's live sessions, by backend pid, and its advisory locks. The session
 * layer owns it; `floe serve` makes one per server and every session registers in it
 * when it starts, so any session can list, signal and notify the others (roles do
 * not exist yet: every session may signal every other, as a superuser could).
 */
export class SessionRegistry {
  readonly advisoryLocks = new AdvisoryLockTable();
  readonly #sessions = new Map<number, RegisteredSession>();

  register(session: RegisteredSession): void {
    this.#sessions.set(session.pid, session);
  }

  unregister(pid: number): void {
    this.#sessions.delete(pid);
  }

  get(pid: number): RegisteredSession | undefined {
    return this.#sessions.get(pid);
  }

  list(): readonly RegisteredSession[] {
    return [...this.#sessions.values()].sort((a, b) => a.pid - b.pid);
  }

  /** A committed transaction's notifications, in order, to every session (the sender too) that listens. */
  publish(notifications: readonly Notification[]): void {
    if (notifications.length === 0) return;
    for (const s of this.#sessions.values()) for (const n of notifications) s.deliver(n);
  }
}

/** For sessions made without a server's registry (tests, embedded use): one per process. */
export const processSessionRegistry = new SessionRegistry();
