import { connect, type Socket } from 'node:net';
import type { BackendMessage } from 'pg-protocol/dist/messages.js';
import { Parser } from 'pg-protocol/dist/parser.js';

/** Parses backend bytes with pg-protocol, the independent codec. */
export function parseBackend(bytes: Buffer): BackendMessage[] {
  const out: BackendMessage[] = [];
  new Parser().parse(bytes, (m) => out.push(m));
  return out;
}

/**
 * A bare protocol client: writes bytes, collects the server's messages as
 * pg-protocol parses them, and waits for a message by name.
 */
export class RawClient {
  readonly socket: Socket;
  readonly messages: BackendMessage[] = [];
  readonly rawBytes: Buffer[] = [];
  closed = false;
  #parser = new Parser();
  #waiters: (() => void)[] = [];
  #parsing = true;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk) => {
      this.rawBytes.push(chunk);
      if (this.#parsing) this.#parser.parse(chunk, (m) => this.messages.push(m));
      this.#wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.#wake();
    });
    socket.on('error', () => {});
  }

  static async open(port: number, opts: { parse?: boolean } = {}): Promise<RawClient> {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const c = new RawClient(socket);
    c.#parsing = opts.parse ?? true;
    return c;
  }

  /** Turns message parsing on (after the bare 'N' answer to SSLRequest). */
  startParsing(): void {
    this.#parsing = true;
  }

  #wake(): void {
    const ws = this.#waiters;
    this.#waiters = [];
    for (const w of ws) w();
  }

  send(...bufs: Buffer[]): void {
    this.socket.write(Buffer.concat(bufs));
  }

  /** Waits until a message with this name arrives after index `from`; returns everything since `from`. */
  async until(name: string, from = 0, timeoutMs = 15000): Promise<BackendMessage[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const idx = this.messages.findIndex((m, i) => i >= from && m.name === name);
      if (idx >= 0) return this.messages.slice(from, idx + 1);
      if (this.closed) throw new Error(`connection closed before ${name}; got ${this.messages.slice(from).map((m) => m.name).join(',')}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${name}; got ${this.messages.slice(from).map((m) => m.name).join(',')}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  async waitClosed(timeoutMs = 15000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error('connection did not close');
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** The frames received so far, split from the raw bytes (pg-protocol reads DataRow fields as UTF-8 text only). */
  frames(): { type: string; body: Buffer }[] {
    const all = Buffer.concat(this.rawBytes);
    const out: { type: string; body: Buffer }[] = [];
    for (let i = 0; i + 5 <= all.length;) {
      const len = all.readInt32BE(i + 1);
      out.push({ type: String.fromCharCode(all[i]!), body: all.subarray(i + 5, i + 1 + len) });
      i += 1 + len;
    }
    return out;
  }

  close(): void {
    this.socket.destroy();
  }
}
