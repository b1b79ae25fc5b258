import { connect } from 'node:net';
import pg from 'pg';

/** A result with every value as the server's text output, plus column names and type OIDs. */
export interface TextResult {
  readonly columns: readonly { readonly name: string; readonly typeOid: number }[];
  readonly rows: readonly (readonly (string | null)[])[];
}

export class QueryTimeoutError extends Error {}

const textTypes = { getTypeParser: () => (v: string) => v };

/** Sends PostgreSQL's CancelRequest for a backend (the client's own connection stays busy until the server answers). */
function sendCancel(host: string, port: number, pid: number, secret: number): Promise<void> {
  return new Promise((resolve) => {
    const msg = Buffer.alloc(16);
    msg.writeInt32BE(16, 0);
    msg.writeInt32BE(80877102, 4);
    msg.writeInt32BE(pid, 8);
    msg.writeInt32BE(secret, 12);
    const s = connect({ host, port }, () => s.end(msg));
    s.on('close', () => resolve());
    s.on('error', () => resolve());
  });
}

/**
 * Runs one statement on a fresh connection and returns text values. Past `timeoutMs` the
 * statement is cancelled on the server (so it stops using the CPU the next query needs)
 * and a QueryTimeoutError is thrown.
 */
export async function runTextQuery(url: string, sql: string, timeoutMs: number): Promise<TextResult> {
  const client = new pg.Client({ connectionString: url, types: textTypes });
  await client.connect();
  const backend = client as unknown as { processID: number; secretKey: number };
  const u = new URL(url);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void sendCancel(u.hostname, Number(u.port || 5432), backend.processID, backend.secretKey);
    // A server that ignores the cancel must not hang the caller.
    setTimeout(() => void client.end().catch(() => undefined), 5_000).unref();
  }, timeoutMs);
  try {
    const res = await client.query({ text: sql, rowMode: 'array' });
    return { columns: res.fields.map((f) => ({ name: f.name, typeOid: f.dataTypeID })), rows: res.rows as (string | null)[][] };
  } catch (e) {
    if (timedOut) throw new QueryTimeoutError(`cancelled after ${timeoutMs} ms (${(e as Error).message})`);
    throw e;
  } finally {
    clearTimeout(timer);
    await client.end().catch(() => undefined);
  }
}
