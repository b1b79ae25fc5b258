import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startPostgresCluster } from '../../src/tools/pg/postgres-cluster.js';

export interface PostgresServer {
  /** postgres://user@127.0.0.1:port/db */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly database: string;
  /** A URL of the server's maintenance database, for cluster-wide setup (roles). */
  readonly adminUrl: string;
  stop(): Promise<void>;
}

/**
 * A PostgreSQL 15 to compare Floe against. CI shares one server through
 * FLOE_TEST_PG_URL, so each caller gets its own database there; locally we
 * initdb a throwaway cluster (PostgreSQL refuses to run as root, hence runuser).
 */
export async function startPostgres(): Promise<PostgresServer> {
  const shared = process.env.FLOE_TEST_PG_URL;
  if (shared !== undefined && shared !== '') return createDatabaseOn(shared);
  return startLocalCluster();
}

async function createDatabaseOn(adminUrl: string): Promise<PostgresServer> {
  const admin = new URL(adminUrl);
  const database = `floe_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${database}`));
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const user = decodeURIComponent(admin.username || 'postgres');
  return {
    url: url.toString(),
    host: admin.hostname,
    port: Number(admin.port || 5432),
    user,
    database,
    adminUrl,
    async stop() {
      await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    },
  };
}

/** One connection for `fn`, closed after it. */
export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function startLocalCluster(): Promise<PostgresServer> {
  const cluster = await startPostgresCluster();
  try {
    // Same shape as the shared-server case: the caller gets a database of its own.
    const db = await createDatabaseOn(cluster.adminUrl);
    return { ...db, stop: () => cluster.stop() };
  } catch (e) {
    await cluster.stop();
    throw e;
  }
}
