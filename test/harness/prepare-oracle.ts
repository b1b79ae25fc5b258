import pg from 'pg';
import type { PostgresServer } from './postgres-server.js';

/**
 * Makes a PostgreSQL test database look like Floe from a client's side: a
 * superuser login role `floe` owning the database, and TimeZone UTC (Floe's
 * default). Roles are cluster-wide and CI shares one cluster, so a concurrent
 * creation of the role is expected and fine.
 */
export async function prepareOracle(server: PostgresServer): Promise<{ port: number; host: string; user: string; database: string; url: string }> {
  const c = new pg.Client({ connectionString: server.adminUrl });
  await c.connect();
  try {
    try {
      await c.query('CREATE ROLE floe LOGIN SUPERUSER');
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code !== '42710' && code !== '23505') throw e;
    }
    await c.query(`ALTER DATABASE ${server.database} OWNER TO floe`);
    await c.query(`ALTER DATABASE ${server.database} SET TimeZone = 'UTC'`);
  } finally {
    await c.end();
  }
  return {
    port: server.port,
    host: server.host,
    user: 'floe',
    database: server.database,
    url: `postgres://floe@${server.host}:${server.port}/${server.database}`,
  };
}
