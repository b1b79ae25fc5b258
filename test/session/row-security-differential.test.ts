import { describe } from 'node:test';
import { randomBytes } from 'node:crypto';
import { sameOutcomesSuite } from '../harness/differential-suite.js';

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
const C = `${S}.counters`;
const allOf = (table: string) => `SELECT * FROM ${table} ORDER BY id`;

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
  `CREATE POLICY small ON ${T} AS RESTRICTIVE USING (id < 100)`,
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
  // Writes that read their rows must see them (SELECT's policies); an upsert's update path is held to UPDATE's.
  `CREATE TABLE ${C} (id int PRIMARY KEY, name text UNIQUE, owner text, v int)`,
  `INSERT INTO ${C} VALUES (1, 'one', '${P}_alice', 0), (2, 'two', '${P}_bob', 0)`,
  `GRANT SELECT, INSERT, UPDATE, DELETE ON ${C} TO ${P}_alice`,
  `ALTER TABLE ${C} ENABLE ROW LEVEL SECURITY`,
  `CREATE POLICY sel ON ${C} FOR SELECT USING (v < 6)`,
  `CREATE POLICY ins ON ${C} FOR INSERT WITH CHECK (owner = current_user)`,
  `CREATE POLICY upd ON ${C} FOR UPDATE USING (owner = current_user) WITH CHECK (v < 10)`,
  `CREATE POLICY del ON ${C} FOR DELETE USING (owner = current_user)`,
  ...as('alice', ...upserts('id'), ...upserts('name'),
    `UPDATE ${C} SET v = 8 WHERE id = 1`, `UPDATE ${C} SET v = v + 7`, `UPDATE ${C} SET v = 7`, `UPDATE ${C} SET v = 3 RETURNING id, v`,
    `INSERT INTO ${C} VALUES (7, 'seven', '${P}_alice', 8) RETURNING id`, `INSERT INTO ${C} VALUES (8, 'eight', '${P}_alice', 8)`,
    `DELETE FROM ${C} WHERE v > 100`, `DELETE FROM ${C} RETURNING id`),
  allOf(C),
  // The policies as the catalogs (and psql's \d) print them.
  `SELECT policyname, permissive, roles, cmd, qual, with_check FROM pg_policies WHERE schemaname = '${S}' ORDER BY tablename, policyname`,
  `SELECT polname, pg_get_expr(polqual, polrelid), pg_get_expr(polwithcheck, polrelid) FROM pg_policy WHERE polrelid = '${C}'::regclass ORDER BY 1`,
];

/** Upserts on the primary key or a UNIQUE column that insert, update, are refused by a policy, or are skipped by WHERE. */
function upserts(arbiter: 'id' | 'name'): string[] {
  const upsert = (id: number, name: string, owner: string, v: number, tail = '') =>
    `INSERT INTO ${C} VALUES (${id}, '${name}', '${owner}', ${v}) ON CONFLICT (${arbiter}) DO UPDATE SET v = excluded.v${tail}`;
  return [
    upsert(1, 'one', `${P}_alice`, 5), upsert(2, 'two', `${P}_alice`, 5), upsert(1, 'one', `${P}_alice`, 50),
    upsert(3, 'three', 'x', 5), `INSERT INTO ${C} VALUES (2, 'two', '${P}_alice', 5) ON CONFLICT (${arbiter}) DO NOTHING`,
    upsert(1, 'one', `${P}_alice`, 7, ` WHERE ${C}.v > 100`), upsert(1, 'one', `${P}_alice`, 8), upsert(4, 'four', `${P}_alice`, 8),
    upsert(1, 'one', `${P}_alice`, 2, ' RETURNING id, v'), allOf(C),
  ];
}

describe('row-level security against PostgreSQL 15', () => {
  const servers = sameOutcomesSuite({ setup, script, prefix: P, schema: S });
});
