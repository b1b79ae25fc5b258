import type { Duplex } from 'node:stream';
import { ClientGone } from './client-gone.js';
import { writeBackendMessage, type BackendMessage } from './messages/backend-message.js';
import { MessageWriter } from './messages/message-writer.js';
import type { RowEncoder } from './row-encoder.js';
import type { CodecContext } from './codecs/codec-context.js';
import type { RowBatch } from './session-handler.js';

/**
 * Buffers backend messages and writes them in batches. flush() waits for
 * 'drain' when the socket's buffer is full, which is what keeps a large
 * result from piling up in memory when the client reads slowly.
 */
export class SocketWriter {
  static readonly flushThreshold = 64 * 1024;
  readonly #out = new MessageWriter(16 * 1024);
  #socket: Duplex;

  constructor(socket: Duplex) {
    this.#socket = socket;
  }

  set socket(s: Duplex) {
    this.#socket = s;
  }

  get pending(): number {
    return this.#out.length;
  }

  send(msg: BackendMessage): void {
    writeBackendMessage(this.#out, msg);
  }

  /** One DataRow, encoded in place (same framing as send()). */
  sendRow(encoder: RowEncoder, batch: RowBatch, row: number, ctx: CodecContext): void {
    encoder.writeRow(this.#out, batch, row, ctx);
  }

  /** Bytes with no framing: a version-2 error for a client that asked for protocol 2. */
  sendUnframed(bytes: Buffer): void {
    this.#out.bytes(bytes);
  }

  /** A single unframed byte, the answer to SSLRequest/GSSENCRequest. */
  sendByte(b: number): void {
    this.#out.byte(b);
  }

  /** Throws ClientGone when the socket is closed, so a producer never spins writing into the void. */
  async flush(): Promise<void> {
    if (this.#out.length === 0) return;
    const buf = this.#out.take();
    const s = this.#socket;
    if (s.destroyed || s.writableEnded) throw new ClientGone();
    if (s.write(buf)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        s.off('drain', done);
        s.off('close', done);
        s.off('error', done);
        resolve();
      };
      s.on('drain', done);
      s.on('close', done);
      s.on('error', done);
    });
    if (s.destroyed) throw new ClientGone();
  }

  /** Flushes only once enough has accumulated; used while streaming rows. */
  async maybeFlush(): Promise<void> {
    if (this.#out.length >= SocketWriter.flushThreshold) await this.flush();
  }
}
