import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startPostgres } from '../harness/postgres-server.js';
import { prepareOracle } from '../harness/prepare-oracle.js';
import { startLakeSqlGateway } from './lake-sql-gateway.js';
import type { LakeSqlGateway } from './lake-sql-gateway.js';

/** A Floe gateway and a PostgreSQL 15 oracle side by side, each given the same `setup` statements. */
export interface GatewayAndOracle {
  readonly g: LakeSqlGateway;
  /** A connection to the oracle that returns every value as text, as the gateway helper does. */
  readonly oracle: pg.Client;
  stop(): Promise<void>;
}

export async function startGatewayAndOracle(setup: readonly string[]): Promise<GatewayAndOracle> {
  const [g, server] = await Promise.all([startLakeSqlGateway(), startPostgres()]);
  const o = await prepareOracle(server);
  const oracle = new pg.Client({ host: o.host, port: o.port, user: o.user, database: o.database, types: { getTypeParser: () => (v: string) => v } });
  await oracle.connect();
  for (const s of setup) {
    await g.run(s);
    await oracle.query(s);
  }
  return {
    g,
    oracle,
    async stop() {
      await oracle.end().catch(() => undefined);
      await g.stop();
      await server.stop();
    },
  };
}

/**
 * Starts a gateway and an oracle before the enclosing suite's tests (handing them to
 * `take`) and stops both after them.
 */
export function gatewayAndOracleForSuite(setup: readonly string[], take: (both: GatewayAndOracle) => void): void {
  let both: GatewayAndOracle | undefined;
  before(async () => {
    both = await startGatewayAndOracle(setup);
    take(both);
  });
  after(async () => {
    await both?.stop();
  });
}

/** What one statement did: its tag, count and rows (as text), or its SQLSTATE, message, DETAIL and HINT. */
export type StatementOutcome =
  | { command: string; rowCount: number | null; rows: unknown[][] }
  | { code: string; message: string; detail?: string; hint?: string };

export async function statementOutcome(c: pg.Client, sql: string): Promise<StatementOutcome> {
  try {
    const r = await c.query({ text: sql, rowMode: 'array' });
    return { command: r.command, rowCount: r.rowCount, rows: r.rows as unknown[][] };
  } catch (e) {
    const x = e as { code?: string; message: string; detail?: string; hint?: string };
    return { code: x.code ?? '?', message: x.message, ...(x.detail ? { detail: x.detail } : {}), ...(x.hint ? { hint: x.hint } : {}) };
  }
}

/** Runs each statement on the gateway and on the oracle, in order, and insists on the same outcome. */
export async function sameOnBoth(both: GatewayAndOracle, statements: readonly string[]): Promise<void> {
  for (const sql of statements) {
    const floe = await statementOutcome(both.g.client, sql);
    const oracle = await statementOutcome(both.oracle, sql);
    assert.deepEqual(floe, oracle, sql);
  }
}
