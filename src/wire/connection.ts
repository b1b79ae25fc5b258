import { randomInt } from 'node:crypto';
import { getEventListeners } from 'node:events';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { TLSSocket, type SecureContext } from 'node:tls';
import type { Logger } from 'pino';
import { commandTagRows } from '../common/command-tag-rows.js';
import { FloeError } from '../common/floe-error.js';
import type { LoginThrottle } from '../common/login-throttle.js';
import { decodeUtf8Strict } from '../common/utf8.js';
import { authenticate, type AuthChannel } from './auth/authenticate.js';
import type { AuthProvider, LoginAttemptEvent } from './auth/auth-provider.js';
import { clientCertificate, type ClientCertificate } from './auth/client-certificate.js';
import type { X509Certificate } from 'node:crypto';
import { ClientGone } from './client-gone.js';
import { SilentClose } from './silent-close.js';
import { receiveCopyIn, sendCopyOut, type CopyIo } from './copy-protocol.js';
import { runCopyBoth } from './copy-both.js';
import { statementCanceled } from './statement-canceled.js';
import type { CancelRegistry } from './cancel-registry.js';
import type { CodecContext } from './codecs/codec-context.js';
import { codecForOid } from './codecs/codec-for-oid.js';
import { ConnectionLog, formatLoggedParams, type DurationEntry } from './connection-log.js';
import { errorFields, isFatal, noticeFields } from './error-fields.js';
import type { Bind, Close, Describe, Execute, Parse } from './messages/extended-query.js';
import type { FrontendMessage } from './messages/frontend-message.js';
import { MessageDecoder, type DecodedMessage } from './messages/message-decoder.js';
import { UnsupportedProtocolVersion, type StartupMessage } from './messages/startup.js';
import { resolveFormats, RowEncoder } from './row-encoder.js';
import type {
  BoundPortal, ColumnDescription, Notification, PreparedStatement, RowBatch, SessionEvents, SessionHandler,
  StartupInfo, StatementResult,
} from './session-handler.js';
import { SocketReader } from './socket-reader.js';
import { SocketWriter } from './socket-writer.js';
import { endSpan, startSpan } from '../common/latency-spans.js';
import type { StatementObserver } from './statement-observer.js';

export interface ConnectionOptions {
  readonly auth: AuthProvider;
  readonly createSession: (info: StartupInfo) => SessionHandler;
  readonly cancelRegistry: CancelRegistry;
  readonly logger: Logger;
  readonly maxMessageBytes: number;
  /** Time allowed from connect to the end of authentication (PostgreSQL's authentication_timeout). */
  readonly startupTimeoutMs: number;
  readonly tls: SecureContext | undefined;
  /** Ask TLS clients for a certificate, trusted when one of these issued it (hba's cert method and clientcert). */
  readonly clientCertificateAuthorities?: readonly X509Certificate[];
  readonly statementObserver?: StatementObserver | undefined;
  /** Failed logins per client address (shared with the HTTP server); none: no throttling. */
  readonly loginThrottle?: LoginThrottle | undefined;
  /** Told of each connection attempt that got as far as naming its user: success once the session started, or the error that ended it. */
  readonly loginObserver?: (e: LoginAttemptEvent) => void;
  /** Connections of this server logged in as `user` now (a role's CONNECTION LIMIT). */
  readonly connectionsOf?: (user: string) => number;
}

/**
 * Where the connection is in the protocol. Only 'idle' and 'failed' read the
 * next message from the top; 'running' owns an AbortController that
 * CancelRequest and shutdown use; 'failed' discards everything until Sync.
 */
type ConnectionState =
  | { readonly kind: 'startup' }
  | { readonly kind: 'authenticating'; readonly user: string }
  | { readonly kind: 'idle' }
  | { readonly kind: 'running'; readonly abort: AbortController }
  | { readonly kind: 'failed' }
  | { readonly kind: 'closed' };

interface StatementEntry {
  readonly prepared: PreparedStatement;
  /** Parse's text, for the log. */
  readonly sql: string;
}

/** A rows result being pulled across several Executes. */
interface OpenCursor {
  readonly iterator: AsyncIterator<RowBatch>;
  readonly commandTag: (rowCount: number) => string;
  readonly encoder: RowEncoder;
  batch: RowBatch | undefined;
  row: number;
}

interface PortalEntry {
  readonly bound: BoundPortal;
  readonly formats: readonly number[];
  /** What the log says of the portal: its statement's text and name, and its parameters (made only when logged). */
  readonly sql: string;
  readonly statementName: string;
  readonly params: () => string;
  cursor: OpenCursor | undefined;
  /**
   * After the portal ran to completion: a rows portal answers further Executes
   * with an empty result; any other kind cannot be run again (55000), as in PostgreSQL.
   */
  finished: { readonly tag: string } | 'spent' | undefined;
}


function adminShutdown(): FloeError {
  return new FloeError('57P01', 'terminating connection due to administrator command', { severity: 'FATAL' });
}

function idleTimeoutError(inTransaction: boolean): FloeError {
  return inTransaction
    ? new FloeError('25P03', 'terminating connection due to idle-in-transaction timeout', { severity: 'FATAL' })
    : new FloeError('57P05', 'terminating connection due to idle-session timeout', { severity: 'FATAL' });
}

export class Connection {
  readonly #opts: ConnectionOptions;
  #socket: Duplex;
  readonly #reader: SocketReader;
  readonly #writer: SocketWriter;
  #state: ConnectionState = { kind: 'startup' };
  #handler: SessionHandler | undefined;
  #processId = 0;
  #timeZone = 'UTC';
  readonly #statements = new Map<string, StatementEntry>();
  readonly #portals = new Map<string, PortalEntry>();
  #waitingForMessage = false;
  #shutdownRequested = false;
  #tlsActive = false;
  #startupTimedOut = false;
  readonly #ctx: CodecContext;
  readonly #remoteAddress: string;
  #loggedInUser: string | undefined;
  /** The startup packet's facts, once it named a user: what the login observer is told. */
  #attempt: Omit<LoginAttemptEvent, 'outcome' | 'sqlstate'> | undefined;
  readonly #remotePort: number | undefined;
  readonly #connectedAtMicros = BigInt(Date.now()) * 1000n;
  /** NOTIFYs for this session, held until it is outside a transaction block (PostgreSQL delivers between transactions). */
  readonly #notifications: Notification[] = [];
  /**
   * What a notification aborts while the session waits for a message after ReadyForQuery, so
   * it is sent at once. One serves every wait until it fires: a controller a message cost
   * about 13 µs and bytes that outlived scavenges on a stream of point reads.
   */
  #idleWake: AbortController | undefined;
  /** The signal statements run under until it fires (#running). */
  #statementAbort: AbortController | undefined;
  #waitingIdle = false;
  /** True from ReadyForQuery until the next message: the session is idle between query cycles. */
  #afterReadyForQuery = false;
  readonly #log: ConnectionLog;
  /** The text of the statement the current message works on, for a failed statement's log line. */
  #statementText: string | undefined;
  /** Rows the current query string or Execute returned or changed, for its duration line. */
  #rows = 0;

  constructor(socket: Socket, opts: ConnectionOptions) {
    this.#opts = opts;
    this.#socket = socket;
    this.#remoteAddress = socket.remoteAddress ?? '';
    this.#remotePort = socket.remotePort;
    this.#log = new ConnectionLog(opts.logger, this.#remoteAddress, this.#remotePort);
    this.#reader = new SocketReader(new MessageDecoder(opts.maxMessageBytes), socket);
    this.#writer = new SocketWriter(socket);
    const self = this;
    this.#ctx = { get timeZone() { return self.#timeZone; } };
  }

  /** Runs the connection to its end; never rejects. */
  async run(): Promise<void> {
    try {
      const timer = setTimeout(() => {
        this.#startupTimedOut = true;
        this.#reader.interrupt();
      }, this.#opts.startupTimeoutMs);
      let started = false;
      try {
        started = await this.#startup();
      } catch (e) {
        if (!this.#startupTimedOut) throw e;
      } finally {
        clearTimeout(timer);
      }
      if (this.#startupTimedOut) throw new FloeError('57014', 'canceling authentication due to timeout', { severity: 'FATAL' });
      if (started) await this.#loop();
    } catch (e) {
      await this.#fail(e);
    } finally {
      await this.#cleanup();
    }
  }

  /**
   * Server shutdown: an idle session is ended at once with FATAL 57P01; a busy
   * one finishes its statement first. force() ends it regardless.
   */
  requestShutdown(): void {
    this.#shutdownRequested = true;
    if (this.#waitingForMessage || this.#state.kind === 'startup' || this.#state.kind === 'authenticating') {
      this.#reader.interrupt();
    }
  }

  force(): void {
    this.#shutdownRequested = true;
    if (this.#state.kind === 'running') this.#state.abort.abort(adminShutdown());
    this.#reader.interrupt();
    setTimeout(() => this.#socket.destroy(), 200).unref();
  }

  async #fail(e: unknown): Promise<void> {
    if (e instanceof ClientGone) return;
    if (e instanceof SilentClose) {
      this.#opts.logger.info({ remote: this.#remoteAddress }, e.message);
      return;
    }
    if (this.#handler === undefined && this.#attempt !== undefined) {
      this.#opts.loginObserver?.({ ...this.#attempt, outcome: 'failure', sqlstate: e instanceof FloeError ? e.sqlstate : 'XX000' });
    }
    if (!(e instanceof FloeError)) this.#opts.logger.error({ err: e }, 'connection failed');
    else if (this.#handler === undefined && e.sqlstate.startsWith('28')) this.#log.authenticationFailed(e);
    else this.#log.fatal(e);
    if (e instanceof UnsupportedProtocolVersion && e.majorVersion < 3) {
      // The version-2 format the client asked for: 'E', the text, a NUL, and no length word.
      this.#writer.sendUnframed(Buffer.from(`E${e.severity}:  ${e.message}\n\0`));
    } else {
      this.#writer.send({ kind: 'ErrorResponse', fields: { ...errorFields(e), severity: 'FATAL' } });
    }
    try {
      await this.#writer.flush();
    } catch {
      // The client is already gone; nobody to tell.
    }
  }

  async #cleanup(): Promise<void> {
    this.#state = { kind: 'closed' };
    this.#opts.cancelRegistry.unregister(this.#processId);
    for (const p of this.#portals.values()) this.#closePortal(p);
    this.#portals.clear();
    this.#statements.clear();
    if (this.#handler !== undefined) {
      try {
        await this.#handler.close();
      } catch (e) {
        this.#opts.logger.warn({ err: e }, 'session close failed');
      }
    }
    this.#log.disconnected();
    const s = this.#socket;
    if (!s.destroyed) {
      s.end();
      setTimeout(() => s.destroy(), 1000).unref();
    }
  }

  /** The role this connection logged in as, once authentication succeeded. */
  get loggedInUser(): string | undefined {
    return this.#loggedInUser;
  }

  // ---- startup and authentication ----

  async #startup(): Promise<boolean> {
    let startup: StartupMessage | undefined;
    while (startup === undefined) {
      const pkt = await this.#reader.next();
      if (pkt === null) return false;
      switch (pkt.kind) {
        case 'SSLRequest':
          if (this.#opts.tls !== undefined && !this.#tlsActive) {
            await this.#startTls(this.#opts.tls);
          } else {
            this.#writer.sendByte(0x4e); // 'N'
            await this.#writer.flush();
          }
          break;
        case 'GSSENCRequest':
          this.#writer.sendByte(0x4e);
          await this.#writer.flush();
          break;
        case 'CancelRequest':
          this.#opts.cancelRegistry.cancel(pkt.processId, pkt.secretKey);
          return false;
        case 'StartupMessage':
          startup = pkt;
          break;
        default:
          throw new FloeError('08P01', 'unexpected message before startup', { severity: 'FATAL' });
      }
    }
    if (this.#shutdownRequested) throw new FloeError('57P03', 'the database system is shutting down', { severity: 'FATAL' });
    const unrecognized = Object.keys(startup.parameters).filter((k) => k.startsWith('_pq_.'));
    if (startup.minorVersion > 0 || unrecognized.length > 0) {
      this.#writer.send({ kind: 'NegotiateProtocolVersion', newestMinorVersion: 0, unrecognizedOptions: unrecognized });
    }
    const user = startup.parameters.user ?? '';
    if (user === '') {
      throw new FloeError('28000', 'no PostgreSQL user name specified in startup packet', { severity: 'FATAL' });
    }
    const database = startup.parameters.database || user;
    this.#log.startup(user, database, startup.parameters.application_name);
    this.#attempt = { user, database, remoteAddress: this.#remoteAddress, applicationName: startup.parameters.application_name ?? '' };
    this.#state = { kind: 'authenticating', user };
    const role = await authenticate(this.#authChannel(), this.#opts.auth, {
      user, database, remoteAddress: this.#remoteAddress, ssl: this.#tlsActive, replication: /^(true|on|yes|1)$/i.test(startup.parameters.replication ?? ''),
      walsender: /^(true|on|yes|1|database)$/i.test(startup.parameters.replication ?? ''),
      ...this.#clientCertificate(),
    }, this.#opts.loginThrottle);
    if (role.connectionLimit >= 0 && !role.superuser && (this.#opts.connectionsOf?.(user) ?? 0) >= role.connectionLimit) {
      throw new FloeError('53300', `too many connections for role "${user}"`, { severity: 'FATAL' });
    }
    this.#loggedInUser = user;
    this.#writer.send({ kind: 'AuthenticationOk' });

    this.#processId = this.#opts.cancelRegistry.allocateProcessId();
    const secretKey = randomInt(-0x80000000, 0x7fffffff);
    const parameters: Record<string, string> = {};
    for (const [k, v] of Object.entries(startup.parameters)) if (!k.startsWith('_pq_.')) parameters[k] = v;
    const handler = this.#opts.createSession({
      user, database, parameters, remoteAddress: this.#remoteAddress, processId: this.#processId,
      ...(this.#remotePort === undefined ? {} : { remotePort: this.#remotePort }), connectedAtMicros: this.#connectedAtMicros,
    });
    this.#handler = handler;
    const initial = await handler.start(this.#events());
    for (const [name, value] of Object.entries(initial)) this.#parameterStatus(name, value);
    this.#log.authorized(this.#processId);
    this.#opts.loginObserver?.({ ...this.#attempt!, outcome: 'success', sqlstate: '00000' });
    this.#opts.cancelRegistry.register(this.#processId, secretKey, () => this.#cancelRunning());
    this.#writer.send({ kind: 'BackendKeyData', processId: this.#processId, secretKey });
    this.#state = { kind: 'idle' };
    await this.#readyForQuery();
    return true;
  }

  async #startTls(context: SecureContext): Promise<void> {
    // Bytes already buffered after SSLRequest were sent in the clear: refuse them (CVE-2021-23214).
    if (this.#reader.buffered > 0) {
      throw new FloeError('08P01', 'received unencrypted data after SSL request', { severity: 'FATAL' });
    }
    this.#reader.detach();
    this.#socket.write(Buffer.from('S'));
    // A client certificate is asked for but not required here: the rules decide who needs one.
    const tls = new TLSSocket(this.#socket as Socket, {
      isServer: true, secureContext: context, ...(this.#opts.clientCertificateAuthorities === undefined ? {} : { requestCert: true, rejectUnauthorized: false }),
    });
    this.#socket = tls;
    this.#writer.socket = tls;
    this.#reader.attach(tls);
    this.#tlsActive = true;
  }

  /** The TLS client's certificate, if it sent one: whether a trusted CA issued it, and its subject's CN. */
  #clientCertificate(): { clientCertificate?: ClientCertificate } {
    const authorities = this.#opts.clientCertificateAuthorities;
    if (!this.#tlsActive || authorities === undefined) return {};
    const cert = clientCertificate(this.#socket as TLSSocket, authorities);
    return cert === undefined ? {} : { clientCertificate: cert };
  }

  #authChannel(): AuthChannel {
    return {
      send: (msg) => this.#writer.send(msg),
      flush: () => this.#writer.flush(),
      read: async () => {
        const m = await this.#reader.next();
        if (m === null) return null;
        if (m.kind === 'StartupMessage' || m.kind === 'SSLRequest' || m.kind === 'GSSENCRequest' || m.kind === 'CancelRequest') {
          throw new FloeError('08P01', 'unexpected startup packet during authentication', { severity: 'FATAL' });
        }
        return m;
      },
    };
  }

  #events(): SessionEvents {
    return {
      parameterStatus: (name, value) => this.#parameterStatus(name, value),
      notice: (n) => {
        if (this.#state.kind !== 'closed') this.#writer.send({ kind: 'NoticeResponse', fields: noticeFields(n) });
      },
      cancel: () => this.#cancelRunning(),
      terminate: () => this.#terminate(),
      notification: (n) => {
        if (this.#state.kind === 'closed') return;
        this.#notifications.push(n);
        if (this.#waitingIdle) this.#idleWake?.abort();
      },
    };
  }

  /** pg_terminate_backend: FATAL 57P01 now, interrupting a running statement or a wait for the next message. */
  #terminate(): void {
    this.#shutdownRequested = true;
    if (this.#state.kind === 'running') this.#state.abort.abort(adminShutdown());
    else if (this.#waitingForMessage) this.#reader.interrupt();
  }

  #sendNotifications(): void {
    for (const n of this.#notifications.splice(0)) {
      this.#writer.send({ kind: 'NotificationResponse', processId: n.processId, channel: n.channel, payload: n.payload });
    }
  }

  #parameterStatus(name: string, value: string): void {
    if (name === 'TimeZone') this.#timeZone = value;
    if (name === 'application_name') this.#log.applicationName = value;
    if (this.#state.kind !== 'closed') this.#writer.send({ kind: 'ParameterStatus', name, value });
  }

  #cancelRunning(): void {
    if (this.#state.kind === 'running') this.#state.abort.abort(statementCanceled());
  }

  async #readyForQuery(): Promise<void> {
    this.#session.readyForQuery?.();
    const status = this.#session.transactionStatus();
    if (status === 'I') this.#sendNotifications();
    this.#writer.send({ kind: 'ReadyForQuery', status });
    await this.#writer.flush();
    this.#afterReadyForQuery = true;
  }

  get #session(): SessionHandler {
    if (this.#handler === undefined) throw new FloeError('08P01', 'no session', { severity: 'FATAL' });
    return this.#handler;
  }

  // ---- the message loop ----

  async #nextMessage(): Promise<FrontendMessage | null> {
    this.#waitingForMessage = true;
    try {
      if (this.#shutdownRequested) {
        // Only a Terminate the client already sent is still honoured; anything else meets FATAL 57P01.
        this.#reader.interrupt();
        const pending = await this.#reader.next();
        return pending?.kind === 'Terminate' ? pending : null;
      }
      const m = await this.#idleRead();
      this.#afterReadyForQuery = false;
      if (m === null) return null;
      if (m.kind === 'StartupMessage' || m.kind === 'SSLRequest' || m.kind === 'GSSENCRequest' || m.kind === 'CancelRequest') {
        throw new FloeError('08P01', 'unexpected startup packet', { severity: 'FATAL' });
      }
      return m;
    } finally {
      this.#waitingForMessage = false;
    }
  }

  /**
   * Reads the next message. Idle after ReadyForQuery, it also sends notifications as
   * they arrive (outside a transaction block) and enforces the idle timeouts.
   */
  async #idleRead(): Promise<DecodedMessage | null> {
    if (!this.#afterReadyForQuery) return this.#reader.next();
    const timeout = this.#session.idleTimeout?.();
    const deadline = timeout !== undefined && timeout.ms > 0 ? Date.now() + timeout.ms : undefined;
    for (;;) {
      if (this.#session.transactionStatus() === 'I' && this.#notifications.length > 0) {
        this.#sendNotifications();
        await this.#writer.flush();
      }
      let wake = this.#idleWake;
      if (wake === undefined || wake.signal.aborted) this.#idleWake = wake = new AbortController();
      this.#waitingIdle = true;
      let timedOut = false;
      const timer = deadline === undefined
        ? undefined
        : setTimeout(() => { timedOut = true; wake.abort(); }, Math.max(0, deadline - Date.now()));
      try {
        const m = await this.#reader.next(wake.signal);
        if (m !== 'aborted') return m;
        if (timedOut) throw idleTimeoutError(timeout!.inTransaction);
      } finally {
        clearTimeout(timer);
        this.#waitingIdle = false;
      }
    }
  }

  async #loop(): Promise<void> {
    for (;;) {
      const msg = await this.#nextMessage();
      if (msg === null) {
        if (this.#shutdownRequested) throw adminShutdown();
        return;
      }
      if (msg.kind === 'Terminate') return;
      await this.#dispatch(msg);
    }
  }

  /** The one place that applies "after an error, skip everything until Sync". */
  async #dispatch(msg: FrontendMessage): Promise<void> {
    const started = startSpan();
    try {
      await this.#dispatchMessage(msg);
    } finally {
      endSpan(`wire.${msg.kind}`, started);
    }
  }

  async #dispatchMessage(msg: FrontendMessage): Promise<void> {
    if (this.#state.kind === 'failed' && msg.kind !== 'Sync') return;
    this.#statementText = undefined;
    switch (msg.kind) {
      case 'Query':
        return this.#simpleQuery(msg.sql, msg.textError);
      case 'Parse':
      case 'Bind':
      case 'Describe':
      case 'Execute':
      case 'Close':
        try {
          await this.#extended(msg);
        } catch (e) {
          if (isFatal(e) || e instanceof ClientGone) throw e;
          this.#sendError(e);
          this.#state = { kind: 'failed' };
          // PostgreSQL flushes an error at once: a client that sent Execute + Flush without Sync
          // (cursor and stream clients) is waiting for it, and the Flush it sent is now skipped.
          await this.#writer.flush();
        }
        return;
      case 'Sync':
        return this.#sync();
      case 'Flush':
        return this.#writer.flush();
      case 'CopyData':
      case 'CopyDone':
      case 'CopyFail':
        return; // leftovers of a COPY that already failed
      case 'FunctionCall':
        this.#sendError(new FloeError('0A000', 'fastpath function calls are not supported'));
        return this.#readyForQuery();
      case 'PasswordMessage':
        throw new FloeError('08P01', 'unexpected password message', { severity: 'FATAL' });
      case 'Terminate':
        return;
      default: {
        const never: never = msg;
        throw new FloeError('08P01', `unexpected message ${(never as { kind: string }).kind}`, { severity: 'FATAL' });
      }
    }
  }

  #sendError(e: unknown): void {
    this.#log.statementFailed(e, this.#statementText);
    const fields = errorFields(e);
    this.#writer.send({ kind: 'ErrorResponse', fields });
    this.#opts.statementObserver?.failed(fields.sqlstate);
  }

  /** A statement's CommandComplete went out: tell the observer its tag and how long it took since `started` (performance.now()). */
  #completed(tag: string | undefined, started: number): void {
    if (tag !== undefined) this.#opts.statementObserver?.completed(tag, (performance.now() - started) / 1000);
  }

  /** A duration line when the step took at least log_min_duration_statement; `describe` runs only then. */
  #logDuration(started: number, describe: () => DurationEntry): void {
    this.#log.duration(this.#handler?.logMinDurationMs?.() ?? -1, performance.now() - started, describe);
  }

  /** A COPY's tag, its rows counted for the duration line. */
  #countedTag(tag: string): string {
    this.#rows += commandTagRows(tag);
    return tag;
  }

  /**
   * Runs a statement under the connection's statement signal. The signal is kept from one
   * statement to the next until it fires: Node 20 gives every new AbortSignal a hidden class
   * of its own, so each one (and what listens on it) outlived young-generation GCs, a few µs
   * and a promotion per statement. A statement that leaves a listener on it (a suspended
   * portal's statement_timeout) hands the next one a fresh signal, so none piles up.
   */
  async #running<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    let abort = this.#statementAbort;
    if (abort === undefined || abort.signal.aborted) this.#statementAbort = abort = new AbortController();
    const previous = this.#state;
    this.#state = { kind: 'running', abort };
    try {
      return await work(abort.signal);
    } finally {
      if (this.#state.kind === 'running' && this.#state.abort === abort) this.#state = previous;
      if (getEventListeners(abort.signal, 'abort').length > 0) this.#statementAbort = undefined;
    }
  }

  // ---- simple query ----

  async #simpleQuery(sql: string, textError: FloeError | undefined): Promise<void> {
    // A simple Query closes the unnamed portal and statement, as PostgreSQL does.
    const unnamed = this.#portals.get('');
    if (unnamed !== undefined) {
      this.#closePortal(unnamed);
      this.#portals.delete('');
    }
    this.#statements.delete('');
    const started = performance.now();
    this.#statementText = sql;
    this.#rows = 0;
    try {
      if (textError !== undefined) throw textError;
      await this.#running(async (signal) => {
        // Each statement of the string is timed from the end of the one before it.
        let started = performance.now();
        for await (const result of this.#session.simpleQuery(sql, signal)) {
          if (signal.aborted) throw signal.reason ?? statementCanceled();
          this.#completed(await this.#sendResult(result, signal, true, 'simple'), started);
          started = performance.now();
        }
      });
      this.#logDuration(started, () => ({ phase: 'statement', statement: sql, rows: this.#rows }));
    } catch (e) {
      if (isFatal(e) || e instanceof ClientGone) throw e;
      this.#sendError(e);
    }
    this.#state = { kind: 'idle' };
    this.#endTransactionPortals();
    await this.#readyForQuery();
  }

  /** Sends one complete statement result (everything except a suspended rows result); returns its command tag (none for an empty query). */
  async #sendResult(result: StatementResult, signal: AbortSignal, describe: boolean, mode: 'simple' | 'extended'): Promise<string | undefined> {
    switch (result.kind) {
      case 'rows': {
        const formats = new Array<number>(result.columns.length).fill(0);
        if (describe) this.#writer.send({ kind: 'RowDescription', columns: result.columns, formats });
        const cursor: OpenCursor = {
          iterator: result.batches[Symbol.asyncIterator](), commandTag: result.commandTag, batch: undefined, row: 0,
          encoder: new RowEncoder(result.columns, formats),
        };
        await this.#streamRows(cursor, cursor.encoder, 0, signal);
        return result.commandTag(0);
      }
      case 'command':
        this.#writer.send({ kind: 'CommandComplete', tag: result.tag });
        this.#rows += commandTagRows(result.tag);
        return result.tag;
      case 'empty':
        this.#writer.send({ kind: 'EmptyQueryResponse' });
        return undefined;
      case 'copyOut':
        return this.#countedTag(await sendCopyOut(this.#copyIo(), result, signal));
      case 'copyIn':
        return this.#countedTag(await receiveCopyIn(this.#copyIo(), result, mode, signal));
      case 'copyBoth':
        await runCopyBoth(this.#copyIo(), result, signal);
        return 'START_REPLICATION';
      default: {
        const never: never = result;
        throw new FloeError('XX000', `unknown statement result ${(never as { kind: string }).kind}`);
      }
    }
  }

  /**
   * Sends rows until the result ends (CommandComplete, returns true) or
   * maxRows were sent (PortalSuspended, returns false; the cursor stays open).
   */
  async #streamRows(cursor: OpenCursor, encoder: RowEncoder, maxRows: number, signal: AbortSignal): Promise<boolean> {
    let sent = 0;
    try {
      for (;;) {
        if (cursor.batch === undefined || cursor.row >= cursor.batch.numRows) {
          if (signal.aborted) throw signal.reason ?? statementCanceled();
          const next = await cursor.iterator.next();
          if (next.done === true) {
            cursor.batch = undefined;
            this.#writer.send({ kind: 'CommandComplete', tag: cursor.commandTag(sent) });
            return true;
          }
          cursor.batch = next.value;
          cursor.row = 0;
          continue;
        }
        if (maxRows > 0 && sent >= maxRows) {
          this.#writer.send({ kind: 'PortalSuspended' });
          return false;
        }
        const n = this.#sendRows(cursor, encoder, maxRows > 0 ? maxRows - sent : Infinity);
        sent += n;
        this.#rows += n;
        if (this.#writer.pending >= SocketWriter.flushThreshold) {
          await this.#writer.flush();
          if (signal.aborted) throw signal.reason ?? statementCanceled();
        }
      }
    } catch (e) {
      await cursor.iterator.return?.().catch(() => undefined);
      throw e;
    }
  }

  /**
   * Sends rows of the cursor's batch until it ends, `room` rows are sent or the
   * writer's buffer wants a flush; returns how many. A plain method, not inline in
   * #streamRows: V8 does not optimize a loop inside a running async function, and
   * #streamRows runs once per result, so every row went through the interpreter.
   */
  #sendRows(cursor: OpenCursor, encoder: RowEncoder, room: number): number {
    const batch = cursor.batch!;
    const writer = this.#writer;
    let n = 0;
    while (cursor.row < batch.numRows && n < room) {
      writer.sendRow(encoder, batch, cursor.row, this.#ctx);
      cursor.row++;
      n++;
      if (writer.pending >= SocketWriter.flushThreshold) break;
    }
    return n;
  }

  #copyIo(): CopyIo {
    return { reader: this.#reader, writer: this.#writer, logger: this.#opts.logger, ctx: this.#ctx };
  }

  // ---- extended query ----

  async #extended(msg: Parse | Bind | Describe | Execute | Close): Promise<void> {
    switch (msg.kind) {
      case 'Parse':
        return this.#parse(msg);
      case 'Bind':
        return this.#bind(msg);
      case 'Describe':
        return this.#describe(msg);
      case 'Execute':
        return this.#execute(msg);
      case 'Close':
        return this.#close(msg);
    }
  }

  async #parse(msg: Parse): Promise<void> {
    const started = performance.now();
    this.#statementText = msg.sql;
    if (msg.textError !== undefined) throw msg.textError;
    if (msg.name === '') this.#statements.delete('');
    else if (this.#statements.has(msg.name)) {
      throw new FloeError('42P05', `prepared statement "${msg.name}" already exists`);
    }
    const prepared = await this.#session.prepare(msg.sql, msg.paramTypeOids);
    this.#statements.set(msg.name, { prepared, sql: msg.sql });
    this.#writer.send({ kind: 'ParseComplete' });
    this.#logDuration(started, () => ({ phase: 'parse', statement: msg.sql, statementName: msg.name }));
  }

  #statement(name: string): StatementEntry {
    const st = this.#statements.get(name);
    if (st === undefined) {
      throw new FloeError('26000', name === '' ? 'unnamed prepared statement does not exist' : `prepared statement "${name}" does not exist`);
    }
    return st;
  }

  #portal(name: string): PortalEntry {
    const p = this.#portals.get(name);
    if (p === undefined) throw new FloeError('34000', `portal "${name}" does not exist`);
    return p;
  }

  async #bind(msg: Bind): Promise<void> {
    const started = performance.now();
    const st = this.#statement(msg.statement);
    this.#statementText = st.sql;
    if (msg.portal === '') {
      const old = this.#portals.get('');
      if (old !== undefined) {
        this.#closePortal(old);
        this.#portals.delete('');
      }
    } else if (this.#portals.has(msg.portal)) {
      throw new FloeError('42P03', `cursor "${msg.portal}" already exists`);
    }
    const paramOids = st.prepared.paramTypeOids;
    if (msg.params.length !== paramOids.length) {
      throw new FloeError('08P01', `bind message supplies ${msg.params.length} parameters, but prepared statement "${msg.statement}" requires ${paramOids.length}`);
    }
    const paramFormats = resolveFormats(msg.paramFormats, msg.params.length, 'parameter');
    const codecOids = st.prepared.paramCodecOids ?? paramOids;
    const values = msg.params.map((raw, i) => this.#decodeParam(raw, codecOids[i]!, paramFormats[i]!, i + 1));
    const bound = await this.#session.bind(st.prepared, values);
    let formats: number[];
    try {
      formats = resolveFormats(msg.resultFormats, bound.columns?.length ?? 0, 'result');
    } catch (e) {
      bound.close();
      throw e;
    }
    const params = () => formatLoggedParams(msg.params.map((raw, i) => this.#paramText(raw, paramFormats[i]!, codecOids[i]!, values[i])));
    this.#portals.set(msg.portal, { bound, formats, sql: st.sql, statementName: msg.statement, params, cursor: undefined, finished: undefined });
    this.#writer.send({ kind: 'BindComplete' });
    this.#logDuration(started, () => ({ phase: 'bind', statement: st.sql, statementName: msg.statement, portal: msg.portal, params: params() }));
  }

  /** A parameter as the log shows it: its text, or a binary one's value in its type's text form. */
  #paramText(raw: Buffer | null, format: number, oid: number, value: unknown): string | null {
    if (raw === null) return null;
    if (format === 0) return raw.toString('utf8');
    try {
      return codecForOid(oid).encodeText(value, this.#ctx);
    } catch {
      return `(${raw.length} bytes)`;
    }
  }

  #decodeParam(raw: Buffer | null, oid: number, format: number, index: number): unknown {
    if (raw === null) return null;
    const codec = codecForOid(oid);
    if (format === 0) return codec.decodeText(decodeUtf8Strict(raw), this.#ctx);
    try {
      return codec.decodeBinary(raw, this.#ctx);
    } catch (e) {
      if (e instanceof FloeError && e.sqlstate !== '22P03' && e.sqlstate !== '08P01') throw e;
      throw new FloeError('22P03', `incorrect binary data format in bind parameter ${index}`);
    }
  }

  #describe(msg: Describe): void {
    if (msg.target === 'S') {
      const st = this.#statement(msg.name);
      this.#writer.send({ kind: 'ParameterDescription', typeOids: st.prepared.paramTypeOids });
      this.#describeColumns(st.prepared.columns, []);
      return;
    }
    const p = this.#portal(msg.name);
    this.#describeColumns(p.bound.columns, p.formats);
  }

  #describeColumns(columns: readonly ColumnDescription[] | null, formats: readonly number[]): void {
    if (columns === null) this.#writer.send({ kind: 'NoData' });
    else this.#writer.send({ kind: 'RowDescription', columns, formats: columns.map((_, i) => formats[i] ?? 0) });
  }

  async #execute(msg: Execute): Promise<void> {
    const started = performance.now();
    const portal = this.#portal(msg.portal);
    this.#statementText = portal.sql;
    this.#rows = 0;
    if (portal.finished === 'spent') throw new FloeError('55000', `portal "${msg.portal}" cannot be run`);
    if (portal.finished !== undefined) {
      this.#writer.send({ kind: 'CommandComplete', tag: portal.finished.tag });
      return;
    }
    try {
      await this.#running(async (signal) => {
        if (portal.cursor === undefined) {
          const result = await portal.bound.execute(signal);
          if (result.kind !== 'rows') {
            this.#completed(await this.#sendResult(result, signal, false, 'extended'), started);
            portal.finished = 'spent';
            return;
          }
          // Rows are encoded as Describe announced them; a portal that claimed NoData falls back to the result's own columns.
          const columns = portal.bound.columns ?? result.columns;
          portal.cursor = {
            iterator: result.batches[Symbol.asyncIterator](), commandTag: result.commandTag, batch: undefined, row: 0,
            encoder: new RowEncoder(columns, resolveFormats(portal.formats, columns.length, 'result')),
          };
        }
        const done = await this.#streamRows(portal.cursor, portal.cursor.encoder, msg.maxRows, signal);
        if (done) {
          portal.finished = { tag: portal.cursor.commandTag(0) };
          portal.cursor = undefined;
          // A portal read in several Executes is timed by its last one.
          this.#completed(portal.finished.tag, started);
        }
      });
    } catch (e) {
      this.#closePortal(portal);
      this.#portals.delete(msg.portal);
      throw e;
    }
    this.#logDuration(started, () => ({
      phase: 'execute', statement: portal.sql, statementName: portal.statementName, portal: msg.portal, params: portal.params(), rows: this.#rows,
    }));
  }

  #close(msg: Close): void {
    if (msg.target === 'S') this.#statements.delete(msg.name);
    else {
      const p = this.#portals.get(msg.name);
      if (p !== undefined) {
        this.#closePortal(p);
        this.#portals.delete(msg.name);
      }
    }
    this.#writer.send({ kind: 'CloseComplete' });
  }

  #closePortal(p: PortalEntry): void {
    if (p.cursor !== undefined) {
      const it = p.cursor.iterator;
      p.cursor = undefined;
      void it.return?.().catch(() => undefined);
    }
    try {
      p.bound.close();
    } catch (e) {
      this.#opts.logger.warn({ err: e }, 'portal close failed');
    }
  }

  async #sync(): Promise<void> {
    if (this.#state.kind === 'failed') {
      try {
        await this.#session.sync();
      } catch (e) {
        if (isFatal(e)) throw e;
        this.#sendError(e);
      }
    }
    this.#state = { kind: 'idle' };
    this.#endTransactionPortals();
    await this.#readyForQuery();
  }

  /** Portals live until their transaction ends: once the session is outside a transaction block, they go. */
  #endTransactionPortals(): void {
    if (this.#portals.size === 0 || this.#session.transactionStatus() !== 'I') return;
    for (const p of this.#portals.values()) this.#closePortal(p);
    this.#portals.clear();
  }
}
