import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sameOutcomesSuite } from '../harness/differential-suite.js';

/**
 * Views as a security boundary, against PostgreSQL 15: column masking through a
 * `security_barrier` view, `security_invoker`, row security read as the view's owner, the
 * options' checks and their catalog rows, and `row_security = off`. Role names carry this
 * run's prefix (roles are cluster-wide); the objects live in a schema of the same name.
 */
const P = `v${randomBytes(3).toString('hex')}`;
const S = P;
const T = `${S}.people`;

const setup: readonly string[] = [
  `CREATE ROLE ${P}_owner`, `CREATE ROLE ${P}_analyst`, `CREATE ROLE ${P}_hr`, `CREATE ROLE ${P}_other`,
  `CREATE SCHEMA ${S}`,
  `GRANT USAGE, CREATE ON SCHEMA ${S} TO PUBLIC`,
  `CREATE TABLE ${T} (id int PRIMARY KEY, name text, ssn text, dept text)`,
  `INSERT INTO ${T} VALUES (1, '${P}_analyst', '111-22-3333', 'eng'), (2, '${P}_hr', '222-33-4444', 'hr'), (3, 'ceo', '333-44-5555', 'exec'), (4, '${P}_other', '444-55-6666', 'eng')`,
  `ALTER TABLE ${T} OWNER TO ${P}_owner`,
  `GRANT SELECT ON ${T} TO ${P}_other`,
];

const as = (role: string, ...statements: string[]) => [`SET ROLE ${P}_${role}`, ...statements, 'RESET ROLE'];
const options = (view: string) => `SELECT relname, reloptions FROM pg_class WHERE oid = '${S}.${view}'::regclass`;
// Divides by zero on the executive's row, which the masking view's own WHERE hides.
const leaky = (view: string) => `SELECT id FROM ${S}.${view} WHERE 1 / (CASE WHEN id = 3 THEN 0 ELSE 1 END) = 1 ORDER BY id`;

const script: readonly string[] = [
  // Column masking: the analyst reads masked numbers and no executive through the view, and nothing from the table.
  ...as('owner',
    `CREATE VIEW ${S}.masked WITH (security_barrier) AS SELECT id, name, CASE WHEN pg_has_role(current_user, '${P}_hr', 'member') THEN ssn ELSE 'xxx-xx-' || right(ssn, 4) END AS ssn FROM ${T} WHERE dept <> 'exec'`,
    `GRANT SELECT ON ${S}.masked TO ${P}_analyst, ${P}_hr`),
  ...as('analyst', `SELECT * FROM ${S}.masked ORDER BY id`, `SELECT * FROM ${T}`, leaky('masked'),
    `SELECT m.id FROM ${S}.masked m JOIN (VALUES (1), (2), (3), (4)) v(id) ON v.id = m.id WHERE 1 / (CASE WHEN m.id = 3 THEN 0 ELSE 1 END) = 1 ORDER BY 1`,
    `SELECT count(*) FROM ${S}.masked WHERE ssn LIKE 'xxx%'`),
  ...as('hr', `SELECT * FROM ${S}.masked ORDER BY id`),
  options('masked'),
  // The options, checked as PostgreSQL checks them, and their catalog rows.
  `CREATE VIEW ${S}.bad WITH (foo) AS SELECT 1`,
  `CREATE VIEW ${S}.bad WITH (security_barrier = maybe) AS SELECT 1`,
  `CREATE VIEW ${S}.bad WITH (security_barrier, security_barrier = off) AS SELECT 1`,
  `CREATE VIEW ${S}.bad WITH (x.security_barrier) AS SELECT 1`,
  `CREATE VIEW ${S}.odd WITH (security_barrier = 1, security_invoker = 'of') AS SELECT 1 AS one`,
  options('odd'),
  `ALTER VIEW ${S}.odd SET (security_barrier)`,
  options('odd'),
  `ALTER VIEW ${S}.odd RESET (security_invoker, nosuch)`,
  options('odd'),
  `ALTER TABLE ${S}.odd SET (security_barrier = false)`,
  options('odd'),
  `ALTER VIEW ${S}.odd RESET (security_barrier = true)`,
  `ALTER VIEW ${S}.odd SET (fillfactor = 10)`,
  `ALTER VIEW ${T} SET (security_barrier)`,
  `ALTER VIEW ${S}.nosuch SET (security_barrier)`,
  `ALTER VIEW IF EXISTS ${S}.nosuch SET (security_barrier)`,
  `CREATE OR REPLACE VIEW ${S}.odd AS SELECT 1 AS one`,
  options('odd'),
  // security_invoker: the view's relations are checked as the analyst, who holds no SELECT on the table.
  ...as('owner',
    `CREATE VIEW ${S}.invoker WITH (security_invoker) AS SELECT id, name FROM ${T}`,
    `CREATE VIEW ${S}.definer AS SELECT id, name FROM ${T}`,
    `GRANT SELECT ON ${S}.invoker, ${S}.definer TO ${P}_analyst`),
  ...as('analyst', `SELECT * FROM ${S}.invoker ORDER BY id`, `SELECT * FROM ${S}.definer ORDER BY id`),
  `GRANT SELECT (id, name) ON ${T} TO ${P}_analyst`,
  ...as('analyst', `SELECT * FROM ${S}.invoker ORDER BY id`),
  // A view over an invoker view: the inner one's table is still checked as the current user.
  ...as('other', `CREATE VIEW ${S}.outer_view AS SELECT * FROM ${S}.invoker`),
  `GRANT SELECT ON ${S}.invoker TO ${P}_other`,
  `REVOKE SELECT (id, name) ON ${T} FROM ${P}_analyst`,
  `GRANT SELECT ON ${S}.outer_view TO ${P}_analyst`,
  ...as('analyst', `SELECT * FROM ${S}.outer_view ORDER BY id`, `SELECT * FROM ${S}.invoker ORDER BY id`),
  // Row security through views: a definer view reads as its owner, an invoker view as its user.
  `GRANT SELECT (id, name) ON ${T} TO ${P}_analyst`,
  `ALTER TABLE ${T} ENABLE ROW LEVEL SECURITY`,
  `CREATE POLICY own ON ${T} USING (name = current_user)`,
  ...as('analyst', `SELECT * FROM ${S}.definer ORDER BY id`, `SELECT * FROM ${S}.invoker ORDER BY id`, `SELECT * FROM ${S}.outer_view ORDER BY id`,
    `SELECT * FROM ${S}.masked ORDER BY id`),
  `ALTER VIEW ${S}.definer OWNER TO ${P}_other`,
  ...as('analyst', `SELECT * FROM ${S}.definer ORDER BY id`),
  `ALTER TABLE ${T} FORCE ROW LEVEL SECURITY`,
  ...as('analyst', `SELECT * FROM ${S}.masked ORDER BY id`),
  `ALTER TABLE ${T} NO FORCE ROW LEVEL SECURITY`,
  // row_security = off: a read the policies would filter fails, one they would not goes through.
  ...as('analyst', 'SET row_security = off', `SELECT * FROM ${S}.masked ORDER BY id`, `SELECT * FROM ${S}.invoker ORDER BY id`,
    `SELECT * FROM ${S}.definer ORDER BY id`, 'RESET row_security'),
  ...as('owner', 'SET row_security = off', `SELECT id FROM ${T} ORDER BY id`, `ALTER TABLE ${T} FORCE ROW LEVEL SECURITY`,
    `SELECT id FROM ${T} ORDER BY id`, `ALTER TABLE ${T} NO FORCE ROW LEVEL SECURITY`, 'RESET row_security'),
];

describe('views as a security boundary against PostgreSQL 15', () => {
  const servers = sameOutcomesSuite({ setup, script, prefix: P, schema: S });

  test("a security barrier keeps the outer predicate above the view's own", async () => {
    const c = new pg.Client(servers().floe.url);
    await c.connect();
    try {
      const plan = async (view: string) => (await c.query(`EXPLAIN (COSTS OFF) SELECT id FROM ${S}.${view} WHERE name = 'x'`)).rows.map((r) => r['QUERY PLAN'] as string);
      await c.query(`CREATE VIEW ${S}.open_view AS SELECT id, name FROM ${T} WHERE dept <> 'exec'`);
      await c.query(`CREATE VIEW ${S}.closed_view WITH (security_barrier) AS SELECT id, name FROM ${T} WHERE dept <> 'exec'`);
      // Without the barrier both predicates reach the scan; with it the outer one stays a filter above the view.
      const open = await plan('open_view');
      const closed = await plan('closed_view');
      const filterAbove = (lines: string[]) => lines.findIndex((l) => /name = 'x'/.test(l)) < lines.findIndex((l) => /dept <> 'exec'/.test(l));
      assert.equal(filterAbove(closed), true, closed.join('\n'));
      assert.equal(open.some((l) => /dept <> 'exec'.*name = 'x'|name = 'x'.*dept <> 'exec'/.test(l)), true, open.join('\n'));
    } finally {
      await c.end();
    }
  });
});
