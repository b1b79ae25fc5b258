import { createServer, type Socket } from 'node:net';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { pino, type Logger } from 'pino';
import { CancelRegistry } from './cancel-registry.js';
import { Connection } from './connection.js';
import { certificateAuthorities } from './auth/client-certificate.js';
import { defaultMaxMessageBytes } from './messages/message-decoder.js';
import type { LoginThrottle } from '../common/login-throttle.js';
import type { StatementObserver } from './statement-observer.js';
import type { SessionHandler, StartupInfo } from './session-handler.js';
import type { AuthProvider, LoginAttemptEvent } from './auth/auth-provider.js';

export interface WireServerOptions {
  readonly host: string;
  readonly port: number;
  readonly auth: AuthProvider;
  readonly createSession: (info: StartupInfo) => SessionHandler;
  readonly logger?: Logger;
  /** Largest frontend message accepted; larger ones end that connection with FATAL 08P01. Default 1 GB. */
  readonly maxMessageBytes?: number;
  /** Time allowed from connect to the end of authentication; default 60 s, like authentication_timeout. */
  readonly startupTimeoutMs?: number;
  /** PEM key and certificate: SSLRequest is then answered 'S' and the connection upgraded to TLS. */
  readonly tls?: Pick<SecureContextOptions, 'key' | 'cert' | 'ca' | 'passphrase' | 'minVersion'>;
  /** PEM certificates of the CAs whose client certificates are trusted (--tls-ca): clients are then asked for one, which hba's cert method and clientcert check. */
  readonly clientCa?: Buffer;
  /** Told of each statement answered (floe serve's metrics). */
  readonly statementObserver?: StatementObserver;
  /** Locks out client addresses after repeated failed logins (shared with the HTTP server). */
  readonly loginThrottle?: LoginThrottle;
  /** Told of each connection attempt's end (floe serve's audit trail). */
  readonly loginObserver?: (e: LoginAttemptEvent) => void;
}

export interface WireServer {
  /** The port actually listened on (useful with port 0). */
  readonly port: number;
  /** Client connections open now (authenticating ones included). */
  readonly connectionCount: number;
  /**
   * Stops accepting, lets running statements finish for up to drainMs
   * (default 5000), then ends every session with FATAL 57P01.
   */
  close(opts?: { drainMs?: number }): Promise<void>;
}

export async function startWireServer(opts: WireServerOptions): Promise<WireServer> {
  const logger = opts.logger ?? pino({ enabled: false });
  const cancelRegistry = new CancelRegistry();
  const tls = opts.tls === undefined ? undefined : createSecureContext(opts.tls);
  const clientCas = opts.clientCa === undefined ? undefined : certificateAuthorities(opts.clientCa);
  const connections = new Map<Connection, Promise<void>>();
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', (err) => logger.debug({ err }, 'client socket error'));
    const conn = new Connection(socket, {
      auth: opts.auth,
      createSession: opts.createSession,
      cancelRegistry,
      logger,
      maxMessageBytes: opts.maxMessageBytes ?? defaultMaxMessageBytes,
      startupTimeoutMs: opts.startupTimeoutMs ?? 60000,
      tls,
      ...(clientCas === undefined ? {} : { clientCertificateAuthorities: clientCas }),
      statementObserver: opts.statementObserver,
      loginThrottle: opts.loginThrottle,
      ...(opts.loginObserver === undefined ? {} : { loginObserver: opts.loginObserver }),
      connectionsOf: (user) => {
        let n = 0;
        for (const c of connections.keys()) if (c.loggedInUser === user) n++;
        return n;
      },
    });
    const done = conn.run().finally(() => connections.delete(conn));
    connections.set(conn, done);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : opts.port;
  logger.info({ host: opts.host, port }, 'wire server listening');

  let closing: Promise<void> | undefined;
  return {
    port,
    get connectionCount() {
      return connections.size;
    },
    close(closeOpts = {}) {
      closing ??= (async () => {
        const drainMs = closeOpts.drainMs ?? 5000;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const conn of connections.keys()) conn.requestShutdown();
        const all = Promise.all(connections.values());
        let timer: NodeJS.Timeout | undefined;
        const timedOut = await Promise.race([
          all.then(() => false),
          new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(true), drainMs); }),
        ]);
        clearTimeout(timer);
        if (timedOut) {
          for (const conn of connections.keys()) conn.force();
          await Promise.race([all, new Promise((r) => setTimeout(r, 1000).unref())]);
        }
        for (const s of sockets) s.destroy();
        await stopped;
        logger.info('wire server closed');
      })();
      return closing;
    },
  };
}
