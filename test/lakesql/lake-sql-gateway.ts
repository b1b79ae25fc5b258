import pg from 'pg';
import { startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';

export interface SqlFailure {
  readonly code: string;
  readonly message: string;
  readonly hint?: string;
  readonly detail?: string;
  /** 1-based character position, as PostgreSQL reports it. */
  readonly position?: number;
}

/** One real gateway and one node-postgres connection to it, with small helpers for the lakehouse tests. */
export interface LakeSqlGateway {
  readonly server: FloeServer;
  readonly client: pg.Client;
  /** Rows as arrays of text (every value through ::text-like wire text; NULL stays null). */
  rows(sql: string): Promise<(string | null)[][]>;
  /** The command tag and row count of a statement. */
  run(sql: string): Promise<{ command: string; rowCount: number | null }>;
  /** The error a statement fails with; rejects if it succeeds. */
  failure(sql: string): Promise<SqlFailure>;
  stop(): Promise<void>;
}

/** Starts `floe serve` on a fresh warehouse; every value comes back as text so comparisons are exact. */
export async function startLakeSqlGateway(): Promise<LakeSqlGateway> {
  const server = await startFloe();
  const client = new pg.Client({
    host: '127.0.0.1', port: server.port, user: 'floe', database: 'floe',
    types: { getTypeParser: () => (v: string) => v },
  });
  await client.connect();
  return {
    server,
    client,
    async rows(sql) {
      const r = await client.query({ text: sql, rowMode: 'array' });
      return r.rows as (string | null)[][];
    },
    async run(sql) {
      const r = await client.query(sql);
      return { command: r.command, rowCount: r.rowCount };
    },
    async failure(sql) {
      try {
        await client.query(sql);
      } catch (e) {
        const x = e as { code?: string; message: string; hint?: string; detail?: string; position?: string };
        return {
          code: x.code ?? '', message: x.message,
          ...(x.hint !== undefined ? { hint: x.hint } : {}),
          ...(x.detail !== undefined ? { detail: x.detail } : {}),
          ...(x.position !== undefined ? { position: Number(x.position) } : {}),
        };
      }
      throw new Error(`expected an error from: ${sql}`);
    },
    async stop() {
      await client.end().catch(() => undefined);
      await server.stop();
    },
  };
}
