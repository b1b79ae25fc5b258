import { FloeError } from '../../common/floe-error.js';
import { SilentClose } from '../silent-close.js';
import { decodeFrontendMessage, type FrontendMessage } from './frontend-message.js';
import { decodeStartupPacket, maxStartupPacketBytes, type StartupPacket } from './startup.js';

export type DecodedMessage = StartupPacket | FrontendMessage;

/** PostgreSQL's own cap (MaxAllocSize − 1). */
export const defaultMaxMessageBytes = 0x3fffffff;

function violation(message: string, detail?: string): FloeError {
  return new FloeError('08P01', message, { severity: 'FATAL', ...(detail === undefined ? {} : { detail }) });
}

/**
 * Incremental frontend decoder: bytes are pushed as they arrive, whole messages
 * are pulled out; a partial message stays buffered between chunks. Before the
 * StartupMessage it reads untyped startup packets, afterwards typed messages.
 * Any malformed input throws a FATAL 08P01 FloeError (a SilentClose for a startup
 * packet of impossible length) and poisons the decoder, since the stream can no
 * longer be framed.
 */
export class MessageDecoder {
  readonly #maxMessageBytes: number;
  #chunks: Buffer[] = [];
  #length = 0;
  #typed = false;
  #failed: FloeError | SilentClose | undefined;

  constructor(maxMessageBytes: number = defaultMaxMessageBytes) {
    this.#maxMessageBytes = maxMessageBytes;
  }

  /** Bytes received but not yet returned as messages. */
  get buffered(): number {
    return this.#length;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#length += chunk.length;
  }

  /** The next complete message, or undefined when more bytes are needed. */
  next(): DecodedMessage | undefined {
    if (this.#failed) throw this.#failed;
    try {
      return this.#typed ? this.#nextTyped() : this.#nextStartup();
    } catch (e) {
      this.#failed = e instanceof FloeError || e instanceof SilentClose ? e : violation('invalid message format');
      throw this.#failed;
    }
  }

  #nextStartup(): StartupPacket | undefined {
    if (this.#length < 4) return undefined;
    const len = this.#peek(4).readInt32BE(0);
    if (len < 8 || len > maxStartupPacketBytes || len > this.#maxMessageBytes) throw new SilentClose('invalid length of startup packet');
    if (this.#length < len) return undefined;
    const body = this.#take(len).subarray(4);
    const packet = decodeStartupPacket(body);
    if (packet.kind === 'StartupMessage') this.#typed = true;
    return packet;
  }

  #nextTyped(): FrontendMessage | undefined {
    if (this.#length < 5) return undefined;
    const header = this.#peek(5);
    const type = header[0]!;
    const len = header.readInt32BE(1);
    if (len < 4) throw violation('invalid message length', `message type ${type} has length ${len}`);
    if (len > this.#maxMessageBytes) throw violation('message too large', `message of ${len} bytes exceeds the limit of ${this.#maxMessageBytes}`);
    if (this.#length < len + 1) return undefined;
    const body = this.#take(len + 1).subarray(5);
    return decodeFrontendMessage(type, body);
  }

  #peek(n: number): Buffer {
    const first = this.#chunks[0]!;
    if (first.length >= n) return first;
    this.#chunks = [Buffer.concat(this.#chunks, this.#length)];
    return this.#chunks[0]!;
  }

  #take(n: number): Buffer {
    const first = this.#chunks[0]!;
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(n);
    } else {
      // Gather exactly n bytes once the whole message is here, so large messages cost one copy.
      out = Buffer.allocUnsafe(n);
      let filled = 0;
      while (filled < n) {
        const c = this.#chunks[0]!;
        const use = Math.min(c.length, n - filled);
        c.copy(out, filled, 0, use);
        filled += use;
        if (use === c.length) this.#chunks.shift();
        else this.#chunks[0] = c.subarray(use);
      }
    }
    this.#length -= n;
    return out;
  }
}
