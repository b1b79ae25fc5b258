import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sameOutcomesSuite } from '../harness/differential-suite.js';

/**
 * Names and literals that try to break out: quotes, backslashes, commas, equals signs,
 * slashes and Unicode in role names, passwords, policy names and expressions, through
 * every name-taking security statement, against PostgreSQL 15 — the same outcomes, the
 * same catalog text (aclitem quoting included) — and a login with such a role.
 */
const P = `q${randomBytes(3).toString('hex')}`;
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const odd = [`${P} "quoted"`, `${P},comma=eq/slash`, `${P}_ünïcødé_名前`, `${P}'single`, `${P}\\back`];
const [q1, q2, q3, q4, q5] = odd.map(quote) as [string, string, string, string, string];
const S = P;

const script: readonly string[] = [
  ...odd.map((n) => `CREATE ROLE ${quote(n)} LOGIN PASSWORD 'pw''"; DROP ROLE floe; --'`),
  `CREATE SCHEMA ${S}`,
  `CREATE TABLE ${S}.t (id int PRIMARY KEY, "we""ird col" text, owner text)`,
  `INSERT INTO ${S}.t VALUES (1, 'x', '${odd[2]}'), (2, 'y', 'someone else')`,
  `GRANT USAGE ON SCHEMA ${S} TO ${q1}, ${q2}, ${q3}, ${q4}, ${q5}`,
  `GRANT SELECT ON ${S}.t TO ${q1} WITH GRANT OPTION`,
  `GRANT SELECT ("we""ird col"), UPDATE (owner) ON ${S}.t TO ${q2}`,
  `GRANT ${q1} TO ${q3} WITH ADMIN OPTION`,
  `SET ROLE ${q1}`,
  `GRANT SELECT ON ${S}.t TO ${q4}`,
  'RESET ROLE',
  `ALTER DEFAULT PRIVILEGES FOR ROLE ${q5} IN SCHEMA ${S} GRANT INSERT ON TABLES TO ${q2}`,
  `ALTER TABLE ${S}.t ENABLE ROW LEVEL SECURITY`,
  `CREATE POLICY "pol ""x"" ü" ON ${S}.t USING (owner = current_user OR owner = '''; DROP TABLE t; --')`,
  `GRANT SELECT ON ${S}.t TO ${q3}`,
  `SET ROLE ${q3}`,
  `SELECT id, owner FROM ${S}.t ORDER BY id`,
  'RESET ROLE',
  `ALTER ROLE ${q4} RENAME TO ${quote(`${P}_renamed "again"`)}`,
  `SELECT relacl::text FROM pg_class WHERE oid = '${S}.t'::regclass`,
  `SELECT attname, attacl::text FROM pg_attribute WHERE attrelid = '${S}.t'::regclass AND attacl IS NOT NULL ORDER BY attnum`,
  `SELECT nspacl::text FROM pg_namespace WHERE nspname = '${S}'`,
  `SELECT rolname FROM pg_roles WHERE rolname LIKE '${P}%' ORDER BY 1`,
  `SELECT defaclacl::text FROM pg_default_acl d JOIN pg_roles r ON r.oid = d.defaclrole WHERE r.rolname LIKE '${P}%'`,
  // The policy's name only: PostgreSQL shows its expression deparsed, Floe as written (docs/design-notes.md).
  `SELECT policyname, qual IS NOT NULL FROM pg_policies WHERE schemaname = '${S}'`,
  `SELECT has_table_privilege(${`'${odd[0]!.replaceAll("'", "''")}'`}, '${S}.t', 'SELECT WITH GRANT OPTION')`,
  `DROP POLICY "pol ""x"" ü" ON ${S}.t`,
];

describe('quotes, separators and Unicode in security statements, against PostgreSQL 15', () => {
  const servers = sameOutcomesSuite({ setup: [], script, prefix: P, schema: S, title: 'the same outcomes and catalog text; nothing breaks out' });

  test('a role with such a name and password logs in with SCRAM', async () => {
    const c = new pg.Client({ host: '127.0.0.1', port: servers().floe.port, user: odd[2], password: `pw'"; DROP ROLE floe; --`, database: 'floe' });
    await c.connect();
    try {
      assert.deepEqual((await c.query('SELECT current_user AS u')).rows, [{ u: odd[2] }]);
    } finally {
      await c.end();
    }
  });
});
