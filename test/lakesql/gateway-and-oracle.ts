import { after, before } from 'node:test';
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
