import pg from 'pg';
import type { FloeServer } from './floe-server.js';

export interface LoginRoleSpec {
  readonly name: string;
  readonly password: string;
  readonly superuser?: boolean;
  /** Keep an md5 verifier (password_encryption = md5) instead of SCRAM-SHA-256's. */
  readonly md5?: boolean;
}

const quoteIdent = (s: string) => `"${s.replaceAll('"', '""')}"`;
const quoteLiteral = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** Creates login roles through SQL, as the bootstrap superuser (trusted on loopback). */
export async function addLoginRoles(server: FloeServer, roles: readonly LoginRoleSpec[]): Promise<void> {
  const c = new pg.Client({ host: server.host, port: server.port, user: server.user, database: server.database });
  await c.connect();
  try {
    for (const r of roles) {
      await c.query(`SET password_encryption = ${r.md5 === true ? "'md5'" : "'scram-sha-256'"}`);
      await c.query(`CREATE ROLE ${quoteIdent(r.name)} LOGIN${r.superuser === true ? ' SUPERUSER' : ''} PASSWORD ${quoteLiteral(r.password)}`);
    }
  } finally {
    await c.end();
  }
}
