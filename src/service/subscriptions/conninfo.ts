import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';

/** The parts of a libpq connection string a subscription uses, as node-postgres takes them. */
export interface SourceConnectionConfig {
  readonly host?: string;
  readonly port?: number;
  readonly database?: string;
  readonly user?: string;
  readonly password?: string;
  readonly applicationName?: string;
  readonly ssl?: boolean;
}

const KEYWORDS = new Set([
  'host', 'hostaddr', 'port', 'dbname', 'user', 'password', 'application_name', 'sslmode', 'connect_timeout', 'options',
  'fallback_application_name', 'keepalives', 'keepalives_idle', 'target_session_attrs', 'passfile', 'gssencmode',
]);

/**
 * A libpq conninfo string: `key=value` pairs (values in single quotes with backslash
 * escapes) or a postgres:// URI, as CREATE SUBSCRIPTION's CONNECTION takes it. An
 * unknown keyword is 42601 with libpq's words, as PostgreSQL reports it.
 */
export function parseConninfo(text: string): SourceConnectionConfig {
  const pairs = /^\s*postgres(ql)?:\/\//.test(text) ? uriPairs(text) : keywordPairs(text);
  for (const k of pairs.keys()) {
    if (!KEYWORDS.has(k)) throw invalidConninfo(`invalid connection option "${k}"`);
  }
  const port = pairs.get('port');
  if (port !== undefined && !/^\d+$/.test(port)) throw invalidConninfo(`invalid integer value "${port}" for connection option "port"`);
  const sslmode = pairs.get('sslmode');
  return {
    ...(pairs.has('host') || pairs.has('hostaddr') ? { host: pairs.get('hostaddr') ?? pairs.get('host')! } : {}),
    ...(port === undefined ? {} : { port: Number(port) }),
    ...(pairs.has('dbname') ? { database: pairs.get('dbname')! } : {}),
    ...(pairs.has('user') ? { user: pairs.get('user')! } : {}),
    ...(pairs.has('password') ? { password: pairs.get('password')! } : {}),
    ...(pairs.has('application_name') ? { applicationName: pairs.get('application_name')! } : {}),
    ...(sslmode === 'require' || sslmode === 'verify-ca' || sslmode === 'verify-full' ? { ssl: true } : {}),
  };
}

function invalidConninfo(detail: string): FloeError {
  return new FloeError(SqlState.syntaxError, `invalid connection string syntax: ${detail}`);
}

function keywordPairs(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  const skipSpace = () => { while (i < text.length && /\s/.test(text[i]!)) i++; };
  for (;;) {
    skipSpace();
    if (i >= text.length) return out;
    const keyStart = i;
    while (i < text.length && text[i] !== '=' && !/\s/.test(text[i]!)) i++;
    const key = text.slice(keyStart, i);
    skipSpace();
    if (text[i] !== '=') throw invalidConninfo(`missing "=" after "${key}" in connection info string`);
    i++;
    skipSpace();
    let value = '';
    if (text[i] === "'") {
      i++;
      for (;;) {
        if (i >= text.length) throw invalidConninfo('unterminated quoted string in connection info string');
        const ch = text[i]!;
        if (ch === '\\' && i + 1 < text.length) { value += text[i + 1]; i += 2; continue; }
        if (ch === "'") { i++; break; }
        value += ch;
        i++;
      }
    } else {
      while (i < text.length && !/\s/.test(text[i]!)) {
        if (text[i] === '\\' && i + 1 < text.length) { value += text[i + 1]; i += 2; continue; }
        value += text[i];
        i++;
      }
    }
    out.set(key, value);
  }
}

function uriPairs(text: string): Map<string, string> {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw invalidConninfo(`invalid URI "${text}"`);
  }
  const out = new Map<string, string>();
  if (url.hostname !== '') out.set('host', decodeURIComponent(url.hostname.replace(/^\[|\]$/g, '')));
  if (url.port !== '') out.set('port', url.port);
  if (url.username !== '') out.set('user', decodeURIComponent(url.username));
  if (url.password !== '') out.set('password', decodeURIComponent(url.password));
  const db = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (db !== '') out.set('dbname', db);
  for (const [k, v] of url.searchParams) out.set(k, v);
  return out;
}
