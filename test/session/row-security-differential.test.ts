import { after, before, describe, test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { startOracleAndFloe, type OracleAndFloe } from '../harness/oracle-and-floe.js';
import { assertSameOutcomesWithNotices, dropOracleTestObjects } from '../harness/statement-outcomes.js';

/**
 * Row-level security against PostgreSQL 15: the same policies and the same statements run
 * as different roles on both, with the same rows seen, changed and refused (SQLSTATE and
 * message). Role names carry this run's prefix (roles are cluster-wide); the table lives in
 * a schema of the same name.
 */
const P = `s${randomBytes(3).toString('hex')}`;
const S = P;
const T = `${S}.docs`;

const setup: readonly string[] = [
  `CREATE ROLE ${P}_alice`, `CREATE ROLE ${P}_bob`, `CREATE ROLE ${P}_carol`,
  `CREATE SCHEMA ${S}`,
  `GRANT USAGE ON SCHEMA ${S} TO PUBLIC`,
  `CREATE TABLE ${T} (id int PRIMARY KEY, owner text, body text)`,
  `INSERT INTO ${T} VALUES (1, '${P}_alice', 'a1'), (2, '${P}_alice', 'a2'), (3, '${P}_bob', 'b3'), (150, '${P}_bob', 'b150')`,
  `GRANT SELECT, INSERT, UPDATE, DELETE ON ${T} TO ${P}_alice, ${P}_bob, ${P}_carol`,
];

const as = (role: string, ...statements: string[]) => [`SET ROLE ${P}_${role}`, ...statements, 'RESET ROLE'];
const all = `SELECT id, owner, body FROM ${T} ORDER BY id`;

const script: readonly string[] = [
  ...as('alice', all),
  `ALTER TABLE ${T} ENABLE ROW LEVEL SECURITY`,
  // Enabled with no policy: nobody but the owner (and superusers) sees a row.
  ...as('alice', all, `INSERT INTO ${T} VALUES (4, '${P}_alice', 'a4')`, `UPDATE ${T} SET body = 'x'`, `DELETE FROM ${T}`),
  all,
  `CREATE POLICY own ON ${T} USING (owner = current_user)`,
  `CREATE POLICY own ON ${T} USING (true)`,
  `CREATE POLICY bad ON ${T} FOR SELECT USING (true) WITH CHECK (true)`,
  `CREATE POLICY bad ON ${T} FOR INSERT USING (true)`,
  `CREATE POLICY bad ON ${T} USING (nosuch = 1)`,
  ...as('alice', all, `SELECT count(*) FROM ${T}`,
    `UPDATE ${T} SET body = body || '!' WHERE id IN (1, 3)`, `DELETE FROM ${T} WHERE id = 3`,
    `INSERT INTO ${T} VALUES (5, '${P}_alice', 'a5')`, `INSERT INTO ${T} VALUES (6, '${P}_bob', 'forged')`,
    `UPDATE ${T} SET owner = '${P}_bob' WHERE id = 1`, all),
  ...as('bob', all),
  // A user's predicate never sees a row the policy hides: this one divides by zero on every hidden row.
  ...as('alice', `SELECT id FROM ${T} WHERE id / (CASE WHEN owner = current_user THEN 1 ELSE 0 END) > 0 ORDER BY id`,
    `SELECT d.id FROM ${T} d JOIN (VALUES (1), (2), (3), (150)) v(id) ON v.id = d.id WHERE d.id / (CASE WHEN d.owner = current_user THEN 1 ELSE 0 END) > 0 ORDER BY 1`),
  // A SELECT policy for everyone: all rows visible, but still only one's own to change.
  `CREATE POLICY read_all ON ${T} FOR SELECT TO ${P}_alice USING (true)`,
  ...as('alice', all, `UPDATE ${T} SET body = 'y' WHERE id = 3`, `SELECT id FROM ${T} WHERE id = 3`),
  ...as('bob', all),
  // A restrictive policy narrows what the permissive ones allow.
  `CREATE POLICY small AS RESTRICTIVE ON ${T} USING (id < 100)`,
  ...as('bob', all, `INSERT INTO ${T} VALUES (200, '${P}_bob', 'big')`, `INSERT INTO ${T} VALUES (7, '${P}_bob', 'b7')`, all),
  `ALTER POLICY small ON ${T} RENAME TO tiny`,
  `ALTER POLICY tiny ON ${T} USING (id < 1000)`,
  ...as('bob', all),
  `DROP POLICY tiny ON ${T}`,
  `DROP POLICY tiny ON ${T}`,
  `DROP POLICY IF EXISTS tiny ON ${T}`,
  // The owner is exempt unless FORCE; superusers always are.
  `ALTER TABLE ${T} OWNER TO ${P}_carol`,
  ...as('carol', all),
  `ALTER TABLE ${T} FORCE ROW LEVEL SECURITY`,
  ...as('carol', all, `ALTER TABLE ${T} NO FORCE ROW LEVEL SECURITY`, all),
  ...as('bob', `ALTER TABLE ${T} DISABLE ROW LEVEL SECURITY`, `CREATE POLICY mine ON ${T} USING (true)`),
  all,
  `ALTER TABLE ${T} DISABLE ROW LEVEL SECURITY`,
  ...as('bob', all),
];

describe('row-level security against PostgreSQL 15', () => {
  let servers: OracleAndFloe;
  before(async () => {
    servers = await startOracleAndFloe(setup);
  });
  after(async () => {
    await dropOracleTestObjects(servers.oracleTarget.url, P, S);
    await servers?.stop();
  });

  test('each statement sees, changes and is refused the same rows', async () => {
    await assertSameOutcomesWithNotices(servers.oracleTarget.url, servers.floe.url, script);
  });
});
