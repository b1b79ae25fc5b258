import { after, before } from 'node:test';
import pg from 'pg';
import { startFloe } from './floe-server.js';
import type { FloeServer } from './floe-server.js';
import { startPostgres } from './postgres-server.js';
import type { PostgresServer } from './postgres-server.js';
import { prepareOracle } from './prepare-oracle.js';
import type { ConnectTarget } from './run-psql.js';

export interface OracleAndFloe {
  readonly oracle: PostgresServer;
  /** The oracle as the `floe` role sees it (prepare-oracle.ts), for psql and node-postgres. */
  readonly oracleTarget: ConnectTarget & { readonly url: string };
  readonly floe: FloeServer;
  readonly floeTarget: ConnectTarget;
  stop(): Promise<void>;
}

/** A PostgreSQL 15 oracle and a Floe gateway, each given the same setup statements in order. */
export async function startOracleAndFloe(setup: readonly string[]): Promise<OracleAndFloe> {
  const oracle = await startPostgres();
  const oracleTarget = await prepareOracle(oracle);
  const floe = await startFloe();
  for (const url of [oracleTarget.url, floe.url]) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      for (const sql of setup) await c.query(sql);
    } finally {
      await c.end();
    }
  }
  return {
    oracle, oracleTarget, floe, floeTarget: { port: floe.port },
    async stop() {
      await floe.stop();
      await oracle.stop();
    },
  };
}

/** A suite's oracle and gateway: started before its tests (handed to `take`), stopped after them. */
export function oracleAndFloeForSuite(setup: readonly string[], take: (servers: OracleAndFloe) => void): void {
  let servers: OracleAndFloe | undefined;
  before(async () => {
    servers = await startOracleAndFloe(setup);
    take(servers);
  });
  after(async () => {
    await servers?.stop();
  });
}
