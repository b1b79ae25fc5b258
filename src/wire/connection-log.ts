import type { Logger } from 'pino';
import { isFloeError } from '../common/floe-error.js';
import { errorFields } from './error-fields.js';
import { errorLogLevel } from './error-log-level.js';

/** Longest statement (or parameter list) a log line carries; the rest is cut, and the cut said. */
export const MAX_LOGGED_TEXT_CHARS = 4096;

/** Text bounded for a log line: a 1 MB INSERT must not make a 1 MB line. */
export function loggedText(text: string): string {
  if (text.length <= MAX_LOGGED_TEXT_CHARS) return text;
  return `${text.slice(0, MAX_LOGGED_TEXT_CHARS)}… (${text.length} characters)`;
}

/** Which protocol step a duration line times: a simple Query's whole string, or one extended-protocol message. */
export type DurationPhase = 'statement' | 'parse' | 'bind' | 'execute';

export interface DurationEntry {
  readonly phase: DurationPhase;
  readonly statement: string;
  /** Rows returned or changed (the counts of the command tags sent, DataRows for a suspended portal). */
  readonly rows?: number;
  /** Extended protocol: the prepared statement's name and the portal's ('' is unnamed). */
  readonly statementName?: string;
  readonly portal?: string;
  /** Bind and Execute: the parameters as PostgreSQL logs them ($1 = '42', $2 = NULL). */
  readonly params?: string;
}

/**
 * The log lines of one client connection, after PostgreSQL's log_connections,
 * log_disconnections, failed-statement and log_min_duration_statement lines: who connected
 * from where and for how long, authentication failures (never a password), every statement
 * that failed (SQLSTATE, message, position, text) and every one that ran long. Each line
 * carries the session's user, database and application_name, so a line read alone says whose.
 */
export class ConnectionLog {
  readonly #logger: Logger;
  readonly #clientAddr: string;
  readonly #clientPort: number | undefined;
  readonly #connectedAt = performance.now();
  #user: string | undefined;
  #database: string | undefined;
  #applicationName = '';
  #backendPid: number | undefined;
  /** The FATAL error that ended the session, for the disconnection line. */
  #fatal: { sqlstate: string; message: string } | undefined;

  constructor(logger: Logger, remoteAddress: string, remotePort: number | undefined) {
    this.#logger = logger;
    this.#clientAddr = remoteAddress.replace(/^::ffff:/, '');
    this.#clientPort = remotePort;
  }

  /** The startup packet named who connects (authentication has not run yet). */
  startup(user: string, database: string, applicationName: string | undefined): void {
    this.#user = user;
    this.#database = database;
    this.#applicationName = applicationName ?? '';
  }

  set applicationName(name: string) {
    this.#applicationName = name;
  }

  /** Authentication succeeded and the session runs: PostgreSQL's "connection authorized". */
  authorized(backendPid: number): void {
    this.#backendPid = backendPid;
    this.#logger.info(this.#who(), 'connection authorized');
  }

  /** A 28xxx FATAL before the session started: bad password, no user name, no method. */
  authenticationFailed(e: unknown): void {
    const f = errorFields(e);
    this.#logger.warn({ ...this.#who(), sqlstate: f.sqlstate, message: f.message }, 'authentication failed');
  }

  /** The session ends with a FATAL (terminate, shutdown, idle timeout, protocol violation): said on the disconnection line. */
  fatal(e: unknown): void {
    const f = errorFields(e);
    this.#fatal = { sqlstate: f.sqlstate, message: f.message };
  }

  /** An authorized session ended: PostgreSQL's "disconnection", with the session's length. */
  disconnected(): void {
    if (this.#backendPid === undefined) return;
    const sessionMs = Math.round(performance.now() - this.#connectedAt);
    this.#logger.info({ ...this.#who(), session_ms: sessionMs, ...this.#fatal }, 'disconnection');
  }

  /** An ErrorResponse was sent for a statement (or a protocol step of one). */
  statementFailed(e: unknown, statement: string | undefined): void {
    const f = errorFields(e);
    const level = isFloeError(e) ? errorLogLevel(f.sqlstate) : 'error';
    this.#logger[level]({
      ...this.#who(), sqlstate: f.sqlstate, message: f.message,
      ...(f.position === undefined ? {} : { position: f.position }),
      ...(f.detail === undefined ? {} : { detail: f.detail }),
      ...(statement === undefined ? {} : { statement: loggedText(statement) }),
      // An internal error is a bug: its stack is what whoever fixes it needs.
      ...(level === 'error' && e instanceof Error ? { err: e } : {}),
    }, 'statement failed');
  }

  /**
   * A statement (or protocol step) that ran `ms`, logged when that is at least minMs
   * (log_min_duration_statement: -1 never, 0 always); `describe` runs only then.
   */
  duration(minMs: number, ms: number, describe: () => DurationEntry): void {
    if (minMs < 0 || ms < minMs) return;
    const entry = describe();
    this.#logger.info({
      ...this.#who(), phase: entry.phase, duration_ms: Math.round(ms * 1000) / 1000,
      ...(entry.rows === undefined ? {} : { rows: entry.rows }),
      ...(entry.statementName === undefined ? {} : { statement_name: entry.statementName }),
      ...(entry.portal === undefined ? {} : { portal: entry.portal }),
      statement: loggedText(entry.statement),
      ...(entry.params === undefined || entry.params === '' ? {} : { params: loggedText(entry.params) }),
    }, 'duration');
  }

  #who(): Record<string, unknown> {
    return {
      ...(this.#backendPid === undefined ? {} : { backend_pid: this.#backendPid }),
      user: this.#user, database: this.#database, application_name: this.#applicationName,
      client_addr: this.#clientAddr, ...(this.#clientPort === undefined ? {} : { client_port: this.#clientPort }),
    };
  }
}

/** Bind parameters as PostgreSQL's log DETAIL prints them: `$1 = '42', $2 = NULL`. */
export function formatLoggedParams(texts: readonly (string | null)[]): string {
  return texts.map((t, i) => `$${i + 1} = ${t === null ? 'NULL' : `'${t.replaceAll("'", "''")}'`}`).join(', ');
}
