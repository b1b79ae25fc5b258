import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Outcome } from './outcome.js';
import type { Row } from './tlp.js';

/** One server under test (Floe or PostgreSQL) through one node-postgres connection, every value as text. */
export class SqlSide {
  /** Time spent waiting for this side, ms (for the run's timing report). */
  busyMs = 0;
  queries = 0;

  private constructor(readonly name: string, private readonly client: pg.Client) {}

  static async connect(name: string, config: pg.ClientConfig): Promise<SqlSide> {
    const client = new pg.Client({
      ...config,
      types: { getTypeParser: () => (v: string) => v },
      // A statement that hangs must fail the test, not stall CI.
      query_timeout: 60_000,
    });
    await client.connect();
    // A connection-level error (server gone) must surface as a failed query, not an uncaught event.
    client.on('error', () => undefined);
    return new SqlSide(name, client);
  }

  async run(sql: string): Promise<Outcome> {
    const started = performance.now();
    this.queries++;
    try {
      const answer: pg.QueryResult | pg.QueryResult[] = await this.client.query({ text: sql, rowMode: 'array' });
      // Several statements in one string answer with one result each; the last one speaks for them.
      const r = Array.isArray(answer) ? answer.at(-1)! : answer;
      return { ok: true, command: r.command, rowCount: r.rowCount, columns: r.fields.map((f: pg.FieldDef) => f.name), rows: r.rows as Row[] };
    } catch (e) {
      return failure(e);
    } finally {
      this.busyMs += performance.now() - started;
    }
  }

  async copyIn(sql: string, data: string): Promise<Outcome> {
    const started = performance.now();
    this.queries++;
    try {
      const stream = this.client.query(copyFrom(sql));
      await pipeline(Readable.from([Buffer.from(data, 'utf8')]), stream);
      return { ok: true, command: 'COPY', rowCount: stream.rowCount ?? null };
    } catch (e) {
      return failure(e);
    } finally {
      this.busyMs += performance.now() - started;
    }
  }

  async end(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}

function failure(e: unknown): Outcome {
  const x = e as { code?: string; message?: string };
  return { ok: false, code: x.code ?? 'no-sqlstate', message: x.message ?? String(e) };
}
