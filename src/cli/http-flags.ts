import { isLoopback } from '../common/is-loopback.js';
import { HTTP_AUTH_MODES, type HttpAuthMode } from '../http/index.js';
import { UsageError } from '../tools/command-line.js';

/** The management server's default port: beside the wire's 5433, clear of PostgreSQL's 5432. */
export const DEFAULT_HTTP_PORT = 5480;

export interface HttpFlags {
  readonly host: string;
  readonly port: number;
  readonly auth: HttpAuthMode;
}

/**
 * `--http-port`, `--http-host`, `--http-auth`. Serving off loopback needs TLS: HTTP Basic
 * carries the password itself, which plain HTTP would put on the network readable.
 */
export function parseHttpFlags(values: { 'http-port'?: string; 'http-host'?: string; 'http-auth'?: string }, tls: boolean, usage = ''): HttpFlags {
  const portText = values['http-port'] ?? String(DEFAULT_HTTP_PORT);
  const port = Number(portText);
  if (!/^\d+$/.test(portText.trim()) || port > 65535) throw new UsageError(`--http-port must be a port number (0 picks a free one), not "${portText}"`, usage);
  const auth = values['http-auth'] ?? 'loopback';
  if (!(HTTP_AUTH_MODES as readonly string[]).includes(auth)) throw new UsageError(`--http-auth must be ${HTTP_AUTH_MODES.join(' or ')}, not "${auth}"`, usage);
  const host = values['http-host'] ?? '127.0.0.1';
  if (!tls && !isLoopback(host)) {
    throw new UsageError(`--http-host ${host} is off loopback: give --tls-cert and --tls-key too, so passwords never cross the network in clear text`, usage);
  }
  return { host, port, auth: auth as HttpAuthMode };
}
