import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { FloeError } from '../../../common/floe-error.js';
import { SqlState } from '../../../common/sqlstate.js';
import { workerModule } from '../../../common/worker-module.js';
import { endSpan, spansEnabled, startSpan } from '../../../common/latency-spans.js';
import { SIGNAL_NOTIFY_EPOCH, SIGNAL_REPLY, SIGNAL_SLOTS } from './sync-pg-protocol.js';
import type { Row, StatementResult, SyncPgError, SyncPgReply, SyncPgRequest, SyncPgStatement, SyncPgWorkerData } from './sync-pg-protocol.js';

export interface SyncPgClientOptions {
  /** postgres://… of the catalog database. */
  readonly url: string;
  /** How long one bridged call may take before the connection is given up (default 60 s). */
  readonly callTimeoutMs?: number;
}

/**
 * A PostgreSQL connection with a synchronous API, for the catalog contract, which is
 * synchronous (docs/design-notes.md, "Scale-out: the PostgreSQL catalog"). A worker
 * thread owns a `pg` client; a call posts its request, blocks in Atomics.wait until the
 * worker has run it and posted the reply, then takes the reply off the port with
 * receiveMessageOnPort. The calling thread's event loop does not run meanwhile, as with
 * SQLite's fsync today.
 *
 * One call is one round of work in the worker: a statement (which may be BEGIN: the
 * caller then holds the transaction, and its locks, across its own code until it sends
 * COMMIT), or a whole transaction run back to back there (`transaction`). Errors keep
 * PostgreSQL's SQLSTATE; a connection the server ended, or a call past its timeout, is
 * 08006 and closes the client (`closed`, `lost`): its owner opens a new one
 * (postgres-database.ts).
 */
export class SyncPgClient {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #slots: Int32Array;
  readonly #timeoutMs: number;
  #closed = false;
  #lost = false;

  constructor(opts: SyncPgClientOptions) {
    this.#timeoutMs = opts.callTimeoutMs ?? 60_000;
    const signal = new SharedArrayBuffer(SIGNAL_SLOTS * Int32Array.BYTES_PER_ELEMENT);
    this.#slots = new Int32Array(signal);
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    const { filename, execArgv } = workerModule(import.meta.url, 'sync-pg-worker');
    const data: SyncPgWorkerData = { url: opts.url, signal, port: port2 };
    this.#worker = new Worker(new URL(filename), { workerData: data, transferList: [port2], execArgv });
    // The caller's process may exit while the connection is open; close() ends it cleanly.
    this.#worker.unref();
    this.#port.unref();
  }

  /** One statement's rows (int8 as bigint, bytea as Uint8Array). */
  query(sql: string, params?: readonly unknown[]): Row[] {
    return this.execute(sql, params).rows;
  }

  /**
   * One statement's rows and row count. Without parameters or a name the text may hold
   * several statements, sent in one round trip (the last one's result is returned).
   */
  execute(statement: string | SyncPgStatement, params?: readonly unknown[]): StatementResult {
    const s = typeof statement === 'string' ? { sql: statement, ...(params === undefined ? {} : { params }) } : statement;
    const { results, failure } = this.executeAll([s]);
    if (failure !== undefined) throw failure;
    return results[0]!;
  }

  /**
   * Several statements in one round trip, run one after another up to the first that
   * fails: the results of those that ran, and the failure of the one after them (those
   * after it did not run). A lost connection or a timeout is thrown.
   */
  executeAll(statements: readonly SyncPgStatement[]): { results: StatementResult[]; failure?: FloeError } {
    return this.#call({ kind: 'query', statements });
  }

  /** Each statement's rows, all run in one transaction; nothing of it stays when one fails. */
  transaction(statements: readonly SyncPgStatement[], isolation?: 'read committed' | 'repeatable read' | 'serializable'): Row[][] {
    return this.executeTransaction(statements, isolation).map((r) => r.rows);
  }

  /** As transaction, with each statement's row count. */
  executeTransaction(statements: readonly SyncPgStatement[], isolation?: 'read committed' | 'repeatable read' | 'serializable'): StatementResult[] {
    return this.#call({ kind: 'transaction', statements, ...(isolation === undefined ? {} : { isolation }) }).results;
  }

  /** LISTEN on `channel`: every NOTIFY on it raises notifyEpoch, read without a round trip. */
  listen(channel: string): void {
    this.#call({ kind: 'listen', channel });
  }

  /** Raised by one for each notification the worker received; the caller compares it with the value it last saw. */
  get notifyEpoch(): number {
    return Atomics.load(this.#slots, SIGNAL_NOTIFY_EPOCH);
  }

  /** After close(), a timeout, or the connection's loss: every later call fails with 08006. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Closed because the server ended the connection (not by close() or a timeout). */
  get lost(): boolean {
    return this.#lost;
  }

  close(): void {
    if (this.#closed) return;
    try {
      this.#call({ kind: 'close' });
    } catch { /* closing a broken connection */ }
    this.#closed = true;
    this.#port.close();
    void this.#worker.terminate();
  }

  #call(request: SyncPgRequest): { results: StatementResult[]; failure?: FloeError } {
    if (this.#closed) throw new FloeError(SqlState.connectionFailure, 'the catalog connection is closed');
    const started = startSpan();
    try {
      return this.#roundTrip(request);
    } finally {
      // Named by the first statement's first word (BEGIN, SELECT, …): where a commit's round trips go.
      if (spansEnabled) endSpan(`catalog.pg.${request.kind === 'query' ? (request.statements[0]?.sql ?? '').trimStart().split(/\s/, 1)[0] : request.kind}`, started);
    }
  }

  #roundTrip(request: SyncPgRequest): { results: StatementResult[]; failure?: FloeError } {
    Atomics.store(this.#slots, SIGNAL_REPLY, 0);
    this.#port.postMessage(request);
    // Woken is not answered: the worker's notify of the previous reply may come late (it
    // stores, then notifies, and may be descheduled between), once this call already waits.
    // The slot says it: the worker sets it after the reply is on the port.
    const deadline = performance.now() + this.#timeoutMs;
    for (let left = this.#timeoutMs; Atomics.load(this.#slots, SIGNAL_REPLY) === 0 && left > 0; left = deadline - performance.now()) {
      Atomics.wait(this.#slots, SIGNAL_REPLY, 0, left);
    }
    const reply = receiveMessageOnPort(this.#port)?.message as SyncPgReply | undefined;
    if (reply === undefined) {
      // The worker did not answer in time (or died): nothing more can be said on this connection.
      this.#closed = true;
      void this.#worker.terminate();
      throw new FloeError(SqlState.connectionFailure, `the catalog database did not answer within ${this.#timeoutMs} ms`);
    }
    if (!reply.ok) {
      if (reply.error.lost === true) {
        this.#lost = true;
        this.close();
      }
      throw errorOf(reply.error);
    }
    return { results: reply.results, ...(reply.failure === undefined ? {} : { failure: errorOf(reply.failure) }) };
  }
}

function errorOf(e: SyncPgError): FloeError {
  return new FloeError(e.code ?? SqlState.connectionFailure, e.message, {
    ...(e.detail === undefined ? {} : { detail: e.detail }),
    ...(e.hint === undefined ? {} : { hint: e.hint }),
  });
}
