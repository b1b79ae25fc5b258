import { FloeError } from '../common/floe-error.js';
import type { Notification } from '../common/session-handler.js';

/** PostgreSQL's limits: a channel is a name (< NAMEDATALEN bytes), a payload under 8000 bytes. */
const MAX_CHANNEL_BYTES = 63;
const MAX_PAYLOAD_BYTES = 7999;

type ListenAction = { readonly kind: 'listen'; readonly channel: string } | { readonly kind: 'unlisten'; readonly channel: string | null };

/**
 * One session's LISTEN / NOTIFY state, transactional as in PostgreSQL: LISTEN and
 * UNLISTEN take effect at commit, NOTIFYs are sent at commit in the order they were
 * made (a repeat of the same channel and payload within a transaction is sent
 * once), and a rollback forgets both.
 */
export class SessionNotifications {
  readonly #listening = new Set<string>();
  #actions: ListenAction[] = [];
  #pending: Notification[] = [];
  readonly #pendingKeys = new Set<string>();

  listen(channel: string): void {
    this.#actions.push({ kind: 'listen', channel });
  }

  /** UNLISTEN channel, or UNLISTEN * (null). */
  unlisten(channel: string | null): void {
    this.#actions.push({ kind: 'unlisten', channel });
  }

  notify(processId: number, channel: string, payload: string): void {
    if (channel === '') throw new FloeError('22023', 'channel name cannot be empty');
    if (Buffer.byteLength(channel) > MAX_CHANNEL_BYTES) throw new FloeError('22023', 'channel name too long');
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) throw new FloeError('22023', 'payload string too long');
    const key = JSON.stringify([channel, payload]);
    if (this.#pendingKeys.has(key)) return;
    this.#pendingKeys.add(key);
    this.#pending.push({ processId, channel, payload });
  }

  isListening(channel: string): boolean {
    return this.#listening.has(channel);
  }

  /** Transaction commit: applies LISTEN/UNLISTEN, returns the notifications to send, in order. */
  commit(): Notification[] {
    for (const a of this.#actions) {
      if (a.kind === 'listen') this.#listening.add(a.channel);
      else if (a.channel === null) this.#listening.clear();
      else this.#listening.delete(a.channel);
    }
    const out = this.#pending;
    this.#clearPending();
    return out;
  }

  rollback(): void {
    this.#clearPending();
  }

  #clearPending(): void {
    this.#actions = [];
    this.#pending = [];
    this.#pendingKeys.clear();
  }
}
