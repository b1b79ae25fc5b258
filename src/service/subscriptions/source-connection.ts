import pg from 'pg';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { parseConninfo } from './conninfo.js';

/**
 * Session settings the source formats values under: ISO dates, PostgreSQL intervals and
 * exact floats, as PostgreSQL's own subscriber asks for, and UTC so timestamptz text
 * carries its offset plainly.
 */
const SOURCE_OPTIONS = '-c datestyle=ISO -c intervalstyle=postgres -c extra_float_digits=3 -c TimeZone=UTC';

/**
 * A connection to a subscription's source through node-postgres: a plain one (catalog
 * queries, the initial copy) or a logical replication one (`replication=database`: slots,
 * START_REPLICATION). A failure to connect is 08006 "could not connect to the publisher",
 * PostgreSQL's words.
 */
export async function connectSource(conninfo: string, opts: { readonly replication?: boolean; readonly applicationName?: string } = {}): Promise<pg.Client> {
  const c = parseConninfo(conninfo);
  const client = new pg.Client({
    host: c.host ?? 'localhost',
    port: c.port ?? 5432,
    ...(c.database === undefined ? {} : { database: c.database }),
    ...(c.user === undefined ? {} : { user: c.user }),
    ...(c.password === undefined ? {} : { password: c.password }),
    ...(c.ssl === true ? { ssl: { rejectUnauthorized: false } } : {}),
    application_name: c.applicationName ?? opts.applicationName ?? 'floe',
    options: SOURCE_OPTIONS,
    ...(opts.replication === true ? { replication: 'database' } : {}),
    connectionTimeoutMillis: 30_000,
  } as pg.ClientConfig);
  // A connection that breaks later reports through the query in flight; an idle one must not crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (e) {
    await client.end().catch(() => undefined);
    throw new FloeError(SqlState.connectionFailure, `could not connect to the publisher: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  return client;
}

/** Ends a source connection without waiting on a server that stopped answering. */
export async function closeSource(client: pg.Client): Promise<void> {
  const ended = client.end().catch(() => undefined);
  const timer = new Promise<void>((r) => setTimeout(r, 2000).unref());
  await Promise.race([ended, timer]);
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/** An identifier quoted for the source's SQL and replication commands. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A string literal for the source's replication commands (which take no parameters). */
export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** An error the source sent, as a FloeError with its SQLSTATE (or 08006 for a lost connection). */
export function sourceError(e: unknown, context: string): FloeError {
  if (e instanceof FloeError) return e;
  const err = e as { code?: string; message?: string };
  const code = typeof err.code === 'string' && /^[0-9A-Z]{5}$/.test(err.code) ? err.code : SqlState.connectionFailure;
  return new FloeError(code, `${context}: ${err.message ?? String(e)}`, { cause: e });
}
