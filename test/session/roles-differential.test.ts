import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startOracleAndFloe, type OracleAndFloe } from '../harness/oracle-and-floe.js';
import { assertSameOutcomesWithNotices, psqlOutput } from '../harness/statement-outcomes.js';

/**
 * Role statements against PostgreSQL 15: the same script on both, each statement's outcome
 * (command tag or SQLSTATE and message) and its notices compared, then the catalogs. Roles
 * are cluster-wide and CI shares one PostgreSQL, so every role name has this run's prefix.
 */
const P = `r${randomBytes(3).toString('hex')}`;

const script: readonly string[] = [
  `CREATE ROLE ${P}_a`,
  `CREATE ROLE ${P}_a`,
  `CREATE ROLE public`,
  `CREATE ROLE pg_${P}`,
  `CREATE ROLE ${P}_x LOGIN LOGIN`,
  `CREATE ROLE ${P}_x CONNECTION LIMIT -2`,
  `CREATE USER ${P}_u PASSWORD 'pw'`,
  `CREATE ROLE ${P}_b CREATEROLE`,
  `CREATE ROLE ${P}_c IN ROLE ${P}_a`,
  `CREATE ROLE ${P}_d ROLE ${P}_c ADMIN ${P}_b`,
  `CREATE ROLE ${P}_y IN ROLE ${P}_nosuch`,
  `GRANT ${P}_a TO ${P}_c`,
  `GRANT ${P}_c TO ${P}_a`,
  `GRANT ${P}_a TO ${P}_a`,
  `REVOKE ${P}_b FROM ${P}_c`,
  `GRANT ${P}_a TO ${P}_b WITH ADMIN OPTION`,
  `GRANT ${P}_nosuch TO ${P}_b`,
  `SET ROLE ${P}_b`,
  `SELECT current_user, session_user, current_setting('is_superuser')`,
  `CREATE ROLE ${P}_e SUPERUSER`,
  `CREATE ROLE ${P}_e REPLICATION`,
  `CREATE ROLE ${P}_e BYPASSRLS`,
  `CREATE ROLE ${P}_e CREATEDB`,
  `ALTER ROLE ${P}_e NOLOGIN CONNECTION LIMIT 7`,
  `ALTER ROLE floe NOLOGIN`,
  `GRANT ${P}_a TO ${P}_e`,
  `DROP ROLE ${P}_b`,
  `RESET ROLE`,
  `SET ROLE ${P}_u`,
  `ALTER ROLE ${P}_u PASSWORD 'other'`,
  `ALTER ROLE CURRENT_USER PASSWORD 'third'`,
  `ALTER ROLE ${P}_u CONNECTION LIMIT 3`,
  `ALTER ROLE ${P}_e PASSWORD 'x'`,
  `CREATE ROLE ${P}_f`,
  `DROP ROLE ${P}_e`,
  `GRANT ${P}_a TO ${P}_e`,
  `SELECT current_user, session_user, current_setting('is_superuser')`,
  `SET ROLE nosuch_${P}`,
  `RESET ROLE`,
  `BEGIN`,
  `SET ROLE ${P}_a`,
  `SELECT current_user`,
  `ROLLBACK`,
  `SELECT current_user`,
  `ALTER ROLE ${P}_a RENAME TO ${P}_a2`,
  `ALTER ROLE ${P}_a2 RENAME TO ${P}_b`,
  `ALTER ROLE ${P}_a2 RENAME TO pg_${P}`,
  `ALTER ROLE ${P}_nosuch RENAME TO ${P}_z`,
  `DROP ROLE IF EXISTS ${P}_zz`,
  `DROP ROLE ${P}_zz`,
  `CREATE ROLE ${P}_v VALID UNTIL '2031-01-01 00:00:00+00' CONNECTION LIMIT 5 NOINHERIT`,
  `SET password_encryption = 'md5'`,
  `CREATE ROLE ${P}_m PASSWORD 'x'`,
  `SELECT rolpassword FROM pg_authid WHERE rolname = '${P}_m'`,
  `ALTER ROLE ${P}_m RENAME TO ${P}_m2`,
  `SELECT rolpassword IS NULL FROM pg_authid WHERE rolname = '${P}_m2'`,
  `RESET password_encryption`,
  `CREATE ROLE ${P}_n PASSWORD ''`,
  `SELECT rolpassword IS NULL FROM pg_authid WHERE rolname = '${P}_n'`,
  `CREATE ROLE ${P}_s PASSWORD 'secret'`,
  `SELECT rolpassword LIKE 'SCRAM-SHA-256$4096:%' FROM pg_authid WHERE rolname = '${P}_s'`,
  `SELECT rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolconnlimit, rolpassword, rolvaliduntil, rolbypassrls
     FROM pg_roles WHERE rolname LIKE '${P}%' ORDER BY rolname`,
  `SELECT usename, usecreatedb, usesuper, passwd FROM pg_user WHERE usename LIKE '${P}%' ORDER BY usename`,
  `SELECT r.rolname, m.rolname, g.rolname, a.admin_option FROM pg_auth_members a JOIN pg_roles r ON r.oid = a.roleid
     JOIN pg_roles m ON m.oid = a.member JOIN pg_roles g ON g.oid = a.grantor WHERE m.rolname LIKE '${P}%' ORDER BY 1, 2`,
  `SELECT pg_has_role('${P}_c', '${P}_a2', 'MEMBER'), pg_has_role('${P}_c', '${P}_a2', 'USAGE'), pg_has_role('${P}_v', '${P}_a2', 'MEMBER'), pg_has_role('${P}_b', '${P}_a2', 'MEMBER WITH ADMIN OPTION')`,
  `SELECT pg_has_role('${P}_c', '${P}_a', 'MEMBER')`,
  `SELECT pg_has_role('${P}_c', '${P}_a2', 'SELECT')`,
  `DROP ROLE ${P}_a2, ${P}_nosuch`,
  `DROP ROLE ${P}_d, ${P}_c`,
];

describe('role statements against PostgreSQL 15', () => {
  let servers: OracleAndFloe;
  before(async () => {
    servers = await startOracleAndFloe([]);
  });
  after(async () => {
    // The oracle's roles outlive its database: drop every one this run made.
    const c = new pg.Client({ connectionString: servers.oracle.adminUrl });
    await c.connect();
    const { rows } = await c.query(`SELECT rolname FROM pg_roles WHERE rolname LIKE '${P}%' OR rolname LIKE 'pg_${P}%'`);
    for (const r of rows) await c.query(`DROP ROLE IF EXISTS "${r.rolname}"`);
    await c.end();
    await servers?.stop();
  });

  test('each statement has the same outcome, notices and catalog rows', async () => {
    await assertSameOutcomesWithNotices(servers.oracleTarget.url, servers.floe.url, script);
  });

  test('psql\'s \\du lists the roles alike', async () => {
    const pattern = `\\du ${P}*`;
    assert.equal(await psqlOutput(servers.floeTarget, pattern), await psqlOutput(servers.oracleTarget, pattern));
  });
});
