import type pg from 'pg';
import { formatLsn, PG_EPOCH_OFFSET_MICROS } from '../../common/pg-lsn.js';
import { quoteIdent, quoteLiteral, sourceError } from './source-connection.js';

/** A frame of the walsender's CopyBoth stream. */
export type WalFrame =
  | { readonly kind: 'xlog'; readonly start: bigint; readonly walEnd: bigint; readonly sendMicros: bigint; readonly payload: Buffer }
  | { readonly kind: 'keepalive'; readonly walEnd: bigint; readonly sendMicros: bigint; readonly replyRequested: boolean };

/** The part of node-postgres's (untyped) Connection the stream uses. */
interface ClientConnection {
  on(event: 'copyData', fn: (m: { chunk: Buffer }) => void): void;
  sendCopyFromChunk(b: Buffer): void;
  readonly stream: { pause(): void; resume(): void };
}

/** Frames buffered before the socket is paused (backpressure on the source). */
const HIGH_WATER = 2000;

/**
 * START_REPLICATION of a logical slot with pgoutput over a replication connection of
 * node-postgres. pg-protocol parses CopyBothResponse ('W') and CopyData; the client
 * hands CopyData to the active query (a no-op for a plain query), so the frames are taken
 * from the connection's `copyData` events, and standby status updates go back as CopyData
 * through `sendCopyFromChunk`. The socket is paused while too many frames wait, so a slow
 * apply slows the source instead of filling memory.
 */
export class ReplicationStream {
  readonly #client: pg.Client;
  readonly #queue: WalFrame[] = [];
  #waiter: (() => void) | undefined;
  #ended = false;
  #error: unknown;
  #paused = false;

  private constructor(client: pg.Client) {
    this.#client = client;
  }

  /**
   * Starts streaming from `startLsn` (the source starts at the slot's confirmed position when
   * that is later). `streaming`: in-progress transactions past the source's
   * logical_decoding_work_mem arrive in blocks ahead of their commit (protocol 2).
   */
  static start(client: pg.Client, opts: { slot: string; startLsn: bigint; publications: readonly string[]; streaming: boolean }): ReplicationStream {
    const s = new ReplicationStream(client);
    const conn = s.#connection();
    conn.on('copyData', (msg: { chunk: Buffer }) => s.#onCopyData(msg.chunk));
    const pubs = opts.publications.map(quoteIdent).join(',');
    const sql = `START_REPLICATION SLOT ${quoteIdent(opts.slot)} LOGICAL ${formatLsn(opts.startLsn)} `
      + `(proto_version '${opts.streaming ? 2 : 1}', publication_names ${quoteLiteral(pubs)}${opts.streaming ? ", streaming 'on'" : ''})`;
    client.query(sql).then(
      () => s.#finish(undefined),
      (e: unknown) => s.#finish(sourceError(e, 'could not receive data from WAL stream')),
    );
    return s;
  }

  #connection(): ClientConnection {
    return (this.#client as unknown as { connection: ClientConnection }).connection;
  }

  #onCopyData(data: Buffer): void {
    // pg-protocol's message is a view into its read buffer, which the next socket read
    // overwrites; frames wait in the queue, so each is copied out.
    const chunk = Buffer.from(data);
    const kind = chunk[0];
    if (kind === 0x77 /* w */) {
      this.#push({
        kind: 'xlog', start: chunk.readBigUInt64BE(1), walEnd: chunk.readBigUInt64BE(9),
        sendMicros: chunk.readBigInt64BE(17) + PG_EPOCH_OFFSET_MICROS, payload: chunk.subarray(25),
      });
    } else if (kind === 0x6b /* k */) {
      this.#push({ kind: 'keepalive', walEnd: chunk.readBigUInt64BE(1), sendMicros: chunk.readBigInt64BE(9) + PG_EPOCH_OFFSET_MICROS, replyRequested: chunk[17] === 1 });
    }
  }

  #push(f: WalFrame): void {
    this.#queue.push(f);
    if (this.#queue.length >= HIGH_WATER && !this.#paused) {
      this.#paused = true;
      this.#connection().stream.pause();
    }
    this.#wake();
  }

  #finish(error: unknown): void {
    this.#ended = true;
    this.#error ??= error;
    this.#wake();
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }

  /** Frames already received, without waiting. */
  get buffered(): number {
    return this.#queue.length;
  }

  /** The next frame, waiting at most `timeoutMs`; undefined on timeout. Throws once the stream ended with an error. */
  async next(timeoutMs: number): Promise<WalFrame | undefined> {
    if (this.#queue.length === 0 && !this.#ended) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => { this.#waiter = undefined; resolve(); }, timeoutMs);
        this.#waiter = () => { clearTimeout(timer); resolve(); };
      });
    }
    const f = this.#queue.shift();
    if (this.#paused && this.#queue.length < HIGH_WATER / 4) {
      this.#paused = false;
      this.#connection().stream.resume();
    }
    if (f !== undefined) return f;
    if (this.#ended) throw this.#error ?? sourceError(new Error('the source ended the replication stream'), 'could not receive data from WAL stream');
    return undefined;
  }

  /** A standby status update: received up to `write`, committed in Floe up to `flush` (the source may discard WAL before it). */
  sendStatus(write: bigint, flush: bigint, replyRequested = false): void {
    if (this.#ended) return;
    const b = Buffer.alloc(34);
    b[0] = 0x72; // r
    b.writeBigUInt64BE(write, 1);
    b.writeBigUInt64BE(flush, 9);
    b.writeBigUInt64BE(flush, 17);
    b.writeBigInt64BE(BigInt(Date.now()) * 1000n - PG_EPOCH_OFFSET_MICROS, 25);
    b[33] = replyRequested ? 1 : 0;
    this.#connection().sendCopyFromChunk(b);
  }
}
