import type { Duplex } from 'node:stream';
import type { DecodedMessage, MessageDecoder } from './messages/message-decoder.js';

/**
 * Pulls whole messages out of a socket. Bytes are buffered in the decoder;
 * the socket is paused while enough is buffered and nobody is reading, so a
 * fast client cannot make the server hold unbounded input.
 */
export class SocketReader {
  static readonly highWaterBytes = 1 << 20;
  readonly #decoder: MessageDecoder;
  #socket: Duplex | undefined;
  #ended = false;
  #wake: (() => void) | undefined;
  readonly #onData = (chunk: Buffer): void => {
    this.#decoder.push(chunk);
    if (this.#wake === undefined && this.#decoder.buffered > SocketReader.highWaterBytes) this.#socket?.pause();
    this.#notify();
  };
  readonly #onEnd = (): void => {
    this.#ended = true;
    this.#notify();
  };

  constructor(decoder: MessageDecoder, socket: Duplex) {
    this.#decoder = decoder;
    this.attach(socket);
  }

  get buffered(): number {
    return this.#decoder.buffered;
  }

  get ended(): boolean {
    return this.#ended;
  }

  attach(socket: Duplex): void {
    this.#socket = socket;
    socket.on('data', this.#onData);
    socket.on('end', this.#onEnd);
    socket.on('close', this.#onEnd);
    socket.on('error', this.#onEnd);
  }

  /** Stops reading from the current socket (before it is wrapped in TLS). */
  detach(): void {
    const s = this.#socket;
    if (s === undefined) return;
    s.off('data', this.#onData);
    s.off('end', this.#onEnd);
    s.off('close', this.#onEnd);
    s.off('error', this.#onEnd);
    s.pause();
    this.#socket = undefined;
  }

  #notify(): void {
    const w = this.#wake;
    this.#wake = undefined;
    w?.();
  }

  /**
   * The next message, null at end of input; throws the decoder's FATAL 08P01 on malformed input.
   * With a signal, returns 'aborted' once it fires, without consuming anything.
   */
  async next(): Promise<DecodedMessage | null>;
  async next(signal: AbortSignal): Promise<DecodedMessage | null | 'aborted'>;
  async next(signal?: AbortSignal): Promise<DecodedMessage | null | 'aborted'> {
    const onAbort = (): void => this.#notify();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        if (signal?.aborted === true) return 'aborted';
        const m = this.#decoder.next();
        if (m !== undefined) return m;
        if (this.#ended) return null;
        const wait = new Promise<void>((resolve) => { this.#wake = resolve; });
        this.#socket?.resume();
        await wait;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Makes a pending next() return null, e.g. when the server shuts the connection. */
  interrupt(): void {
    this.#ended = true;
    this.#notify();
  }
}
