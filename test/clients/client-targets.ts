import { startPostgres } from '../harness/postgres-server.js';
import { startFloe } from '../harness/floe-server.js';
import { prepareOracle } from '../harness/prepare-oracle.js';

export interface ClientTarget {
  readonly label: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly database: string;
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * The two servers every client test runs against: PostgreSQL 15, which proves
 * the test itself, and Floe. Each test file gets fresh ones.
 */
export async function startOracleTarget(): Promise<ClientTarget> {
  const pgs = await startPostgres();
  const t = await prepareOracle(pgs);
  return { label: 'PostgreSQL 15', ...t, stop: () => pgs.stop() };
}

export async function startFloeTarget(): Promise<ClientTarget> {
  const f = await startFloe();
  return { label: 'Floe', host: f.host, port: f.port, user: f.user, database: f.database, url: f.url, stop: () => f.stop() };
}

/** Both targets, each started lazily on first use so a failure in one is reported against that one. */
export function targetFactories(): readonly { readonly label: string; readonly start: () => Promise<ClientTarget> }[] {
  return [
    { label: 'PostgreSQL 15', start: startOracleTarget },
    { label: 'Floe', start: startFloeTarget },
  ];
}
