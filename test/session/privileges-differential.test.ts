import { describe } from 'node:test';
import { randomBytes } from 'node:crypto';
import { sameOutcomesSuite } from '../harness/differential-suite.js';

/**
 * Object privileges against PostgreSQL 15: the same roles, grants and statements on both,
 * run as different roles through SET ROLE, with the same allowed and denied outcomes
 * (SQLSTATE and message), warnings and visible rows. Role names carry this run's prefix
 * (roles are cluster-wide; CI shares one PostgreSQL); tables live in a schema of the same name.
 */
const P = `p${randomBytes(3).toString('hex')}`;
const S = P;

const setup: readonly string[] = [
  `CREATE ROLE ${P}_alice`, `CREATE ROLE ${P}_bob`, `CREATE ROLE ${P}_carol`, `CREATE ROLE ${P}_team`,
  `GRANT ${P}_team TO ${P}_carol`,
  `CREATE SCHEMA ${S}`,
  `CREATE TABLE ${S}.t (id int PRIMARY KEY, a int, secret text)`,
  `INSERT INTO ${S}.t VALUES (1, 10, 'x'), (2, 20, 'y')`,
  `CREATE VIEW ${S}.v AS SELECT id, a FROM ${S}.t`,
  `CREATE TABLE ${S}.u (id int PRIMARY KEY, note text)`,
];

const as = (role: string, ...statements: string[]) => [`SET ROLE ${P}_${role}`, ...statements, 'RESET ROLE'];

const script: readonly string[] = [
  // Nothing granted yet, not even USAGE on the schema.
  ...as('alice', `SELECT * FROM ${S}.t`, `SELECT * FROM ${S}.v`),
  `GRANT USAGE ON SCHEMA ${S} TO PUBLIC`,
  ...as('alice', `SELECT * FROM ${S}.t`, `INSERT INTO ${S}.t VALUES (3, 30, 'z')`, `DELETE FROM ${S}.t`, `TRUNCATE ${S}.t`),
  // Column privileges.
  `GRANT SELECT (id, a), UPDATE (a) ON ${S}.t TO ${P}_alice`,
  ...as('alice',
    `SELECT id, a FROM ${S}.t ORDER BY id`, `SELECT * FROM ${S}.t`, `SELECT count(*) FROM ${S}.t`, `SELECT secret FROM ${S}.t`,
    `UPDATE ${S}.t SET a = a + 1 WHERE id = 1`, `UPDATE ${S}.t SET secret = 's'`, `UPDATE ${S}.t SET a = 0 WHERE secret = 'x'`,
    `SELECT id, a FROM ${S}.t ORDER BY id`),
  // Table privileges, PUBLIC and a role's members.
  `GRANT SELECT ON ${S}.v TO ${P}_bob`,
  `GRANT INSERT, DELETE ON ${S}.u TO ${P}_team`,
  `GRANT SELECT ON ${S}.u TO PUBLIC`,
  ...as('bob', `SELECT * FROM ${S}.v ORDER BY id`, `SELECT * FROM ${S}.t`, `SELECT * FROM ${S}.u`, `INSERT INTO ${S}.u VALUES (1, 'b')`),
  ...as('carol', `INSERT INTO ${S}.u VALUES (1, 'c')`, `SELECT * FROM ${S}.u`, `DELETE FROM ${S}.u WHERE id = 1`, `UPDATE ${S}.u SET note = 'n'`),
  // Grant options and what a non-owner may grant.
  `GRANT SELECT ON ${S}.t TO ${P}_bob WITH GRANT OPTION`,
  ...as('bob', `GRANT SELECT ON ${S}.t TO ${P}_carol`, `GRANT UPDATE ON ${S}.t TO ${P}_carol`, `GRANT ALL ON ${S}.u TO ${P}_carol`),
  ...as('carol', `SELECT id FROM ${S}.t ORDER BY id`),
  `REVOKE SELECT ON ${S}.t FROM ${P}_bob`,
  `REVOKE SELECT ON ${S}.t FROM ${P}_bob CASCADE`,
  ...as('carol', `SELECT id FROM ${S}.t`),
  // Creating needs CREATE on the schema; owners may do what they like with their own.
  ...as('alice', `CREATE TABLE ${S}.mine (id int PRIMARY KEY)`),
  `GRANT CREATE ON SCHEMA ${S} TO ${P}_alice`,
  ...as('alice', `CREATE TABLE ${S}.mine (id int PRIMARY KEY)`, `INSERT INTO ${S}.mine VALUES (1)`, `SELECT * FROM ${S}.mine`,
    `GRANT SELECT ON ${S}.mine TO ${P}_bob`, `DROP TABLE ${S}.t`, `ALTER TABLE ${S}.t ADD COLUMN z int`, `CREATE INDEX ON ${S}.t (a)`),
  ...as('bob', `SELECT * FROM ${S}.mine`, `DROP TABLE ${S}.mine`),
  `ALTER TABLE ${S}.mine OWNER TO ${P}_bob`,
  ...as('bob', `INSERT INTO ${S}.mine VALUES (2)`, `SELECT * FROM ${S}.mine ORDER BY id`),
  // A view reads its tables with its owner's privileges.
  `GRANT SELECT ON ${S}.t TO ${P}_alice`,
  ...as('alice', `CREATE VIEW ${S}.av AS SELECT id, secret FROM ${S}.t`, `GRANT SELECT ON ${S}.av TO ${P}_bob`),
  ...as('bob', `SELECT * FROM ${S}.av ORDER BY id`, `SELECT * FROM ${S}.t`),
  `REVOKE SELECT ON ${S}.t FROM ${P}_alice`,
  ...as('bob', `SELECT * FROM ${S}.av`),
  // Sequences: nextval needs USAGE or UPDATE, currval SELECT or USAGE, setval UPDATE; a serial column's
  // sequence needs USAGE of whoever inserts, an identity column's nothing beyond the table's INSERT.
  `CREATE SEQUENCE ${S}.sq`,
  `CREATE TABLE ${S}.ser (id serial PRIMARY KEY, v int)`,
  `CREATE TABLE ${S}.ident (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v int)`,
  `GRANT INSERT, SELECT ON ${S}.ser, ${S}.ident TO ${P}_carol`,
  ...as('carol', `SELECT nextval('${S}.sq')`, `INSERT INTO ${S}.ser (v) VALUES (1)`, `INSERT INTO ${S}.ident (v) VALUES (1)`, `SELECT id, v FROM ${S}.ident`),
  `GRANT USAGE ON SEQUENCE ${S}.sq, ${S}.ser_id_seq TO ${P}_carol`,
  ...as('carol', `SELECT nextval('${S}.sq')`, `SELECT currval('${S}.sq')`, `SELECT lastval()`, `SELECT setval('${S}.sq', 10)`,
    `INSERT INTO ${S}.ser (v) VALUES (2)`, `SELECT id, v FROM ${S}.ser`),
  // Superuser-only catalogs.
  ...as('bob', `SELECT count(*) > 0 FROM pg_authid`, `SELECT count(*) >= 0 FROM pg_roles`),
  // Default privileges: what alice's new tables and sequences start with; only alice (or a superuser) may change hers.
  `ALTER DEFAULT PRIVILEGES FOR ROLE ${P}_alice IN SCHEMA ${S} GRANT SELECT ON TABLES TO ${P}_bob`,
  `ALTER DEFAULT PRIVILEGES FOR ROLE ${P}_alice GRANT USAGE ON SEQUENCES TO ${P}_carol WITH GRANT OPTION`,
  `ALTER DEFAULT PRIVILEGES FOR ROLE ${P}_alice REVOKE ALL ON TABLES FROM PUBLIC`,
  `ALTER DEFAULT PRIVILEGES IN SCHEMA ${S} GRANT SELECT ON SCHEMAS TO ${P}_bob`,
  `ALTER DEFAULT PRIVILEGES IN SCHEMA ${S} GRANT USAGE ON SCHEMAS TO ${P}_bob`,
  ...as('bob', `ALTER DEFAULT PRIVILEGES FOR ROLE ${P}_alice GRANT SELECT ON TABLES TO ${P}_bob`),
  ...as('alice', `CREATE TABLE ${S}.dflt (id int PRIMARY KEY)`, `CREATE SEQUENCE ${S}.dseq`),
  ...as('bob', `SELECT * FROM ${S}.dflt`),
  `SELECT relname, relacl::text FROM pg_class WHERE relname IN ('dflt', 'dseq') ORDER BY 1`,
  `SELECT d.defaclobjtype, d.defaclnamespace <> 0, d.defaclacl::text FROM pg_default_acl d JOIN pg_roles r ON r.oid = d.defaclrole WHERE r.rolname = '${P}_alice' ORDER BY 1, 2`,
  `ALTER DEFAULT PRIVILEGES FOR ROLE ${P}_alice IN SCHEMA ${S} REVOKE SELECT ON TABLES FROM ${P}_bob`,
  `ALTER DEFAULT PRIVILEGES FOR ROLE ${P}_alice GRANT ALL ON TABLES TO PUBLIC`,
  `SELECT count(*) FROM pg_default_acl d JOIN pg_roles r ON r.oid = d.defaclrole WHERE r.rolname = '${P}_alice'`,
  // Dropping a role that owns or holds something.
  `DROP ROLE ${P}_bob`,
  // ALTER … OWNER TO asks whether the new owner holds CREATE on the schema, by the schema's ACL like any
  // privilege: a schema's owner that revoked its own CREATE holds it no more, owner or not.
  `CREATE ROLE ${P}_dave`, `CREATE ROLE ${P}_erin`, `GRANT ${P}_dave TO ${P}_erin`,
  `ALTER SCHEMA ${S} OWNER TO ${P}_dave`,
  `CREATE TABLE ${S}.handed (id int PRIMARY KEY)`, `ALTER TABLE ${S}.handed OWNER TO ${P}_erin`,
  ...as('dave', `REVOKE CREATE ON SCHEMA ${S} FROM ${P}_dave`, `CREATE TABLE ${S}.d1 (id int PRIMARY KEY)`),
  `SELECT nspacl::text FROM pg_namespace WHERE nspname = '${S}'`,
  ...as('erin', `ALTER TABLE ${S}.handed OWNER TO ${P}_dave`),
  ...as('dave', `GRANT CREATE ON SCHEMA ${S} TO ${P}_dave`),
  ...as('erin', `ALTER TABLE ${S}.handed OWNER TO ${P}_dave`),
  `SELECT pg_get_userbyid(c.relowner) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '${S}' AND c.relname = 'handed'`,
  // A schema the role may not use drops out of its search_path: an unqualified name is found in the next one.
  `CREATE SCHEMA ${S}_hidden`, `CREATE TABLE ${S}_hidden.shadow (id int)`, `CREATE TABLE ${S}.shadow (id int)`,
  `INSERT INTO ${S}.shadow VALUES (7)`, `GRANT SELECT ON ${S}.shadow TO ${P}_carol`,
  ...as('carol', `SET search_path = ${S}_hidden, ${S}`, 'SELECT * FROM shadow', 'SELECT current_schema()', `SELECT * FROM ${S}_hidden.shadow`,
    `SET search_path = ${S}_hidden`, 'CREATE TABLE nowhere (id int)', 'SELECT current_schema()', 'RESET search_path'),
  // pg_write_all_data gives UPDATE on sequences (nextval, setval), pg_read_all_data SELECT.
  `CREATE ROLE ${P}_writer IN ROLE pg_write_all_data`, `CREATE ROLE ${P}_reader IN ROLE pg_read_all_data`, `CREATE SEQUENCE ${S}.allseq`,
  ...as('writer', `SELECT nextval('${S}.allseq')`, `SELECT setval('${S}.allseq', 5)`, `SELECT currval('${S}.allseq')`),
  ...as('reader', `SELECT nextval('${S}.allseq')`, `SELECT last_value FROM ${S}.allseq`),
  // Types: USAGE for everyone until revoked; an array type answers with its element type's ACL.
  `CREATE TYPE ${S}.mood AS ENUM ('sad', 'ok')`,
  typeUsage('carol'),
  `REVOKE USAGE ON TYPE ${S}.mood FROM PUBLIC`,
  typeUsage('carol'),
  `GRANT USAGE ON TYPE ${S}.mood TO ${P}_carol WITH GRANT OPTION`,
  typeUsage('carol'), typeUsage('alice'),
  `SELECT typacl::text FROM pg_type WHERE typname = 'mood' AND typnamespace = '${S}'::regnamespace`,
  `GRANT SELECT ON TYPE ${S}.mood TO ${P}_alice`, `GRANT USAGE ON TYPE ${S}.nosuch TO ${P}_alice`,
  ...as('carol', `GRANT USAGE ON TYPE ${S}.mood TO ${P}_alice`),
  ...as('bob', `GRANT USAGE ON TYPE ${S}.mood TO ${P}_bob`),
  typeUsage('alice'),
  `REVOKE USAGE ON TYPE ${S}.mood FROM ${P}_carol CASCADE`,
  typeUsage('alice'),
  `SELECT has_type_privilege('${P}_carol', '${S}.mood', 'USAGE WITH GRANT OPTION'), has_type_privilege('${S}.mood', 'usage')`,
  `SELECT has_type_privilege('${S}.nosuch', 'USAGE')`, `SELECT has_type_privilege('${S}.mood', 'SELECT')`, 'SELECT has_type_privilege(1::oid, \'USAGE\')',
];

function typeUsage(role: string): string {
  const u = (type: string) => `has_type_privilege('${P}_${role}', '${type}', 'USAGE')`;
  return `SELECT ${u(`${S}.mood`)}, ${u(`${S}.mood[]`)}, ${u('int4')}, ${u('text[]')}`;
}

describe('object privileges against PostgreSQL 15', () => {
  const servers = sameOutcomesSuite({ setup, script, prefix: P, schema: S, title: 'each statement is allowed or denied alike, with the same rows and warnings' });
});
