import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startOracleAndFloe, type OracleAndFloe } from '../harness/oracle-and-floe.js';
import { psqlOutput, stepOutcomes } from '../harness/statement-outcomes.js';
import { runCommand } from '../harness/run-command.js';
import type { ConnectTarget } from '../harness/run-psql.js';

/**
 * Owners and privileges as the catalogs tell them, against PostgreSQL 15: one script of
 * CREATE ROLE, GRANT, REVOKE and ALTER … OWNER TO on both, then relacl / attacl / nspacl /
 * datacl and owners, every has_*_privilege overload (errors included), information_schema's
 * privilege views as several roles see them, psql's \dp, \z, \dn+ and \l, and the GRANT,
 * REVOKE and OWNER TO lines pg_dump writes. Roles are cluster-wide and CI shares one
 * PostgreSQL, so each name carries this run's prefix; oid 10 is `postgres` on the oracle and
 * `floe` here, so nothing compared names it unless `floe` made the object.
 */
const P = `r${randomBytes(3).toString('hex')}`;
const S = `${P}_s`;
const ROLES = [`${P}_a`, `${P}_b`, `${P}_c`, `${P}_n`, `${P} q`, `${P}_r`, `${P}_w`];
const q = (name: string) => `"${name}"`;

function script(database: string): string[] {
  return [
    `CREATE ROLE ${P}_a`,
    `CREATE ROLE ${P}_b`,
    `CREATE ROLE ${P}_c IN ROLE ${P}_a`,
    `CREATE ROLE ${P}_n NOINHERIT IN ROLE ${P}_a`,
    `CREATE ROLE ${q(`${P} q`)}`,
    `CREATE ROLE ${P}_r IN ROLE pg_read_all_data`,
    `CREATE ROLE ${P}_w IN ROLE pg_write_all_data`,
    `CREATE SCHEMA ${S}`,
    `CREATE SCHEMA ${P}_s2`,
    `CREATE TABLE ${S}.t (id int PRIMARY KEY, a int, b text)`,
    `CREATE TABLE ${S}.t2 (id int PRIMARY KEY, x int)`,
    `CREATE TABLE public.${P}_t (id int PRIMARY KEY, a int, b text)`,
    `CREATE VIEW ${S}.v AS SELECT id, a FROM ${S}.t`,
    `CREATE SEQUENCE ${S}.sq`,
    `CREATE SEQUENCE ${S}.sq2`,
    `GRANT SELECT ON ${S}.t TO ${P}_a`,
    `GRANT INSERT, UPDATE ON ${S}.t TO ${P}_b WITH GRANT OPTION`,
    `GRANT SELECT (a), UPDATE (b) ON ${S}.t TO ${P}_c`,
    `GRANT REFERENCES (a) ON ${S}.t TO PUBLIC`,
    `GRANT UPDATE (a) ON ${S}.t TO ${P}_a`,
    `REVOKE UPDATE (a) ON ${S}.t FROM ${P}_a`,
    `GRANT SELECT (b) ON ${S}.t TO ${P}_b`,
    `REVOKE SELECT ON ${S}.t FROM ${P}_b`,
    `GRANT ALL ON ${S}.t2 TO ${q(`${P} q`)}`,
    `REVOKE TRUNCATE ON ${S}.t2 FROM ${q(`${P} q`)}`,
    `GRANT USAGE ON SCHEMA ${S} TO ${P}_a, ${P}_b`,
    `GRANT CREATE ON SCHEMA ${S} TO ${P}_b WITH GRANT OPTION`,
    `GRANT USAGE, SELECT ON SEQUENCE ${S}.sq TO ${P}_a`,
    `GRANT UPDATE ON SEQUENCE ${S}.sq TO ${P}_b WITH GRANT OPTION`,
    `GRANT SELECT ON ${S}.v TO ${P}_b`,
    `SET ROLE ${P}_b`,
    `GRANT INSERT ON ${S}.t TO ${P}_c`,
    `RESET ROLE`,
    `REVOKE DELETE ON public.${P}_t FROM floe`,
    `GRANT SELECT ON public.${P}_t TO PUBLIC`,
    `ALTER VIEW ${S}.v OWNER TO ${P}_a`,
    `ALTER TABLE ${S}.t2 OWNER TO ${P}_b`,
    `ALTER SEQUENCE ${S}.sq2 OWNER TO ${P}_c`,
    `ALTER SCHEMA ${P}_s2 OWNER TO ${P}_a`,
    `GRANT USAGE ON SCHEMA ${P}_s2 TO ${P}_c`,
    `GRANT CONNECT, TEMP ON DATABASE ${database} TO ${P}_a`,
    `GRANT CREATE ON DATABASE ${database} TO ${P}_b WITH GRANT OPTION`,
    `GRANT ${P}_a TO ${P}_b WITH ADMIN OPTION`,
  ];
}

const inSchemas = `n.nspname IN ('${S}', '${P}_s2') OR c.relname LIKE '${P}%'`;

/** Catalog rows that carry owners and ACLs. */
const CATALOG_QUERIES = [
  `SELECT c.relname, c.relkind, pg_get_userbyid(c.relowner), c.relacl::text, array_to_string(c.relacl, E'\\n'), c.relacl IS NULL
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${inSchemas} ORDER BY 1`,
  `SELECT c.relname, a.attnum, a.attname, a.attacl::text, array_to_string(a.attacl, ', ') FROM pg_attribute a
     JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE (${inSchemas}) AND c.relkind IN ('r', 'v', 'S') AND a.attnum > 0 ORDER BY 1, 2`,
  `SELECT nspname, pg_get_userbyid(nspowner), nspacl::text FROM pg_namespace WHERE nspname LIKE '${P}%' OR nspname = 'public' ORDER BY 1`,
  `SELECT pg_get_userbyid(datdba), datacl::text, array_to_string(datacl, '|') FROM pg_database WHERE datname = current_database()`,
  `SELECT schemaname, tablename, tableowner FROM pg_tables WHERE schemaname = '${S}' OR tablename LIKE '${P}%' ORDER BY 1, 2`,
  `SELECT schemaname, viewname, viewowner FROM pg_views WHERE schemaname = '${S}' ORDER BY 1, 2`,
  `SELECT schemaname, sequencename, sequenceowner FROM pg_sequences WHERE schemaname = '${S}' ORDER BY 1, 2`,
  `SELECT schema_name, schema_owner FROM information_schema.schemata WHERE schema_name LIKE '${P}%' OR schema_name = 'public' ORDER BY 1`,
  `SELECT acldefault('r', oid)::text, acldefault('s', oid)::text, acldefault('n', oid)::text, acldefault('d', oid)::text, acldefault('c', oid)::text
     FROM pg_roles WHERE rolname = '${P}_a'`,
  `SELECT pg_get_userbyid(e.grantee), pg_get_userbyid(e.grantor), e.privilege_type, e.is_grantable FROM pg_class c, aclexplode(c.relacl) e
     WHERE c.oid = '${S}.t'::regclass ORDER BY 1, 3`,
  `SELECT makeaclitem(r.oid, r.oid, 'select', true)::text, makeaclitem(0, r.oid, 'USAGE', false)::text FROM pg_roles r WHERE rolname = '${P} q'`,
  `SELECT makeaclitem(0, 0, 'select, insert', false)::text`,
  `SELECT acldefault('x', 10)`,
];

/** Every overload of the has_*_privilege functions, for several roles, objects and privilege strings. */
function privilegeCalls(): string[] {
  const roleOid = (r: string) => `(SELECT oid FROM pg_roles WHERE rolname = '${r.replaceAll("'", "''")}')`;
  const roles = [...ROLES, 'public', 'floe'];
  const roleForms = (r: string) => (r === 'public' ? [`'public'`] : [`'${r}'`, roleOid(r)]);
  const out: string[] = [];
  const calls = (fn: string, objects: readonly string[], privileges: readonly string[], extra: readonly string[] = []) => {
    for (const obj of objects) {
      for (const p of privileges) {
        out.push(`SELECT ${fn}(${[...extra, obj, p].join(', ')})`);
        for (const r of roles) for (const rf of roleForms(r)) out.push(`SELECT ${fn}(${[rf, ...extra, obj, p].join(', ')})`);
      }
    }
  };
  const rel = (name: string) => `'${name}'::regclass::oid`;
  calls('has_table_privilege', [`'${S}.t'`, rel(`${S}.t`), `'${S}.v'`, `'${S}.t2'`, `'public.${P}_t'`, `'${S}.t_pkey'`],
    [`'SELECT'`, `'insert'`, `' Update , DELETE '`, `'TRUNCATE'`, `'REFERENCES'`, `'TRIGGER'`, `'UPDATE WITH GRANT OPTION'`, `'select with grant option'`, `'RULE'`]);
  calls('has_table_privilege', [`'pg_class'`, `'pg_authid'`, `'pg_catalog.pg_settings'`, `'information_schema.tables'`], [`'SELECT'`, `'INSERT'`, `'UPDATE'`]);
  calls('has_sequence_privilege', [`'${S}.sq'`, rel(`${S}.sq`), `'${S}.sq2'`], [`'USAGE'`, `'select'`, `'UPDATE WITH GRANT OPTION'`, `'usage, update'`]);
  calls('has_any_column_privilege', [`'${S}.t'`, rel(`${S}.t`), `'${S}.v'`], [`'SELECT'`, `'UPDATE'`, `'REFERENCES'`, `'INSERT WITH GRANT OPTION'`]);
  calls('has_column_privilege', [`'a'`, `'b'`, `'ctid'`, `2::int2`, `3::int2`, `(-1)::int2`], [`'SELECT'`, `'UPDATE'`, `'REFERENCES'`], [`'${S}.t'`]);
  calls('has_column_privilege', [`'a'`, `2::int2`], [`'SELECT'`, `'update'`], [rel(`${S}.t`)]);
  calls('has_column_privilege', [`'a'`, `1::int2`], [`'SELECT'`], [`'${S}.v'`]);
  calls('has_schema_privilege', [`'${S}'`, `'${P}_s2'`, `'public'`, `'pg_catalog'`, `(SELECT oid FROM pg_namespace WHERE nspname = '${S}')`],
    [`'USAGE'`, `'CREATE'`, `'create with grant option'`, `'USAGE, CREATE'`]);
  calls('has_database_privilege', [`current_database()`, `(SELECT oid FROM pg_database WHERE datname = current_database())`],
    [`'CONNECT'`, `'TEMP'`, `'temporary'`, `'CREATE'`, `'CREATE WITH GRANT OPTION'`, `'connect, create'`]);
  // Errors and NULLs: a missing role, object or column, a bad privilege, a bad name, and the oid forms' NULL for a missing object.
  out.push(
    `SELECT has_table_privilege('${P}_nosuch', '${S}.t', 'SELECT')`,
    `SELECT has_table_privilege(999999::oid, '${S}.t', 'SELECT')`,
    `SELECT has_table_privilege('${P}_a', '${S}.nosuch', 'SELECT')`,
    `SELECT has_table_privilege('nosuch_${P}', 'SELECT')`,
    `SELECT has_table_privilege('${P}_nosch.t', 'SELECT')`,
    `SELECT has_table_privilege('${P}_nosuch', 'nosuch', 'bogus')`,
    `SELECT has_table_privilege('${S}.t', 'bogus')`,
    `SELECT has_table_privilege('${S}.t', '')`,
    `SELECT has_table_privilege('${S}.t', 'SELECT,')`,
    `SELECT has_table_privilege('${S}.t', 'SELECT  WITH GRANT OPTION')`,
    `SELECT has_table_privilege('${S}.t', 'USAGE')`,
    `SELECT has_table_privilege(999999, 'SELECT')`,
    `SELECT has_table_privilege(999999, 'bogus')`,
    `SELECT has_table_privilege('${P}_a', 999999, 'SELECT')`,
    `SELECT has_table_privilege(NULL, 'SELECT')`,
    `SELECT has_table_privilege('${S}.t', NULL)`,
    `SELECT has_table_privilege(NULL::name, '${S}.t', 'SELECT')`,
    `SELECT has_table_privilege('${S.toUpperCase()}.T', 'SELECT')`,
    `SELECT has_table_privilege('"${S}"."t"', 'SELECT')`,
    `SELECT has_table_privilege(' ${S} . t ', 'SELECT')`,
    `SELECT has_table_privilege('${S}.', 'SELECT')`,
    `SELECT has_table_privilege('"${S}', 'SELECT')`,
    `SELECT has_table_privilege('a.b.c.d', 'SELECT')`,
    `SELECT has_table_privilege('otherdb.${S}.t', 'SELECT')`,
    `SELECT has_table_privilege(current_database() || '.${S}.t', 'SELECT')`,
    `SELECT has_sequence_privilege('${S}.t', 'USAGE')`,
    `SELECT has_sequence_privilege('${S}.t', 'bogus')`,
    `SELECT has_sequence_privilege('${S}.nosuch', 'USAGE')`,
    `SELECT has_sequence_privilege('${S}.t'::regclass::oid, 'USAGE')`,
    `SELECT has_sequence_privilege(999999, 'USAGE')`,
    `SELECT has_sequence_privilege('${S}.sq', 'DELETE')`,
    `SELECT has_column_privilege('${S}.t', 'nosuch', 'SELECT')`,
    `SELECT has_column_privilege('${S}.t', 'A', 'SELECT')`,
    `SELECT has_column_privilege('${S}.t', 99::int2, 'SELECT')`,
    `SELECT has_column_privilege('${S}.t', 0::int2, 'SELECT')`,
    `SELECT has_column_privilege('${S}.t', 'a', 'DELETE')`,
    `SELECT has_column_privilege('${S}.nosuch', 'a', 'SELECT')`,
    `SELECT has_column_privilege(999999, 'a', 'SELECT')`,
    `SELECT has_column_privilege(999999, 1::int2, 'bogus')`,
    `SELECT has_column_privilege('${S}.t'::regclass::oid, 'nosuch', 'SELECT')`,
    `SELECT has_column_privilege('${S}.t', 'nosuch', 'bogus')`,
    `SELECT has_column_privilege('${S}.v', 'ctid', 'SELECT')`,
    `SELECT has_column_privilege('${S}.sq', 'last_value', 'SELECT')`,
    `SELECT has_any_column_privilege('${S}.nosuch', 'SELECT')`,
    `SELECT has_any_column_privilege(999999, 'SELECT')`,
    `SELECT has_any_column_privilege('${S}.t', 'DELETE')`,
    `SELECT has_schema_privilege('${S.toUpperCase()}', 'USAGE')`,
    `SELECT has_schema_privilege('nosuch_${P}', 'USAGE')`,
    `SELECT has_schema_privilege(999999, 'USAGE')`,
    `SELECT has_schema_privilege('${S}', 'SELECT')`,
    `SELECT has_database_privilege('nosuch_${P}', 'CONNECT')`,
    `SELECT has_database_privilege(999999, 'CONNECT')`,
    `SELECT has_database_privilege(current_database(), 'USAGE')`,
    `SELECT has_database_privilege('${P}_nosuch', current_database(), 'CONNECT')`,
    // pg_has_role takes an oid as is, as these functions do.
    `SELECT pg_has_role(999999::oid, 'USAGE')`,
    `SELECT pg_has_role('${P}_a', 999999::oid, 'MEMBER')`,
    `SELECT pg_has_role(999999::oid, '${P}_a', 'USAGE')`,
  );
  return out;
}

const inTestSchemas = (column: string) => `${column} IN ('${S}', 'public') AND table_name NOT LIKE 'pg\\_%'`;

/** information_schema's privilege views, as the current role sees them. */
const INFORMATION_SCHEMA_QUERIES = [
  `SELECT * FROM information_schema.table_privileges WHERE ${inTestSchemas('table_schema')} AND (table_schema = '${S}' OR table_name LIKE '${P}%') ORDER BY 4, 5, 2, 6, 1`,
  `SELECT * FROM information_schema.role_table_grants WHERE ${inTestSchemas('table_schema')} AND (table_schema = '${S}' OR table_name LIKE '${P}%') ORDER BY 4, 5, 2, 6, 1`,
  `SELECT * FROM information_schema.column_privileges WHERE ${inTestSchemas('table_schema')} AND (table_schema = '${S}' OR table_name LIKE '${P}%') ORDER BY 4, 5, 6, 2, 7, 1, 8`,
  `SELECT * FROM information_schema.role_column_grants WHERE ${inTestSchemas('table_schema')} AND (table_schema = '${S}' OR table_name LIKE '${P}%') ORDER BY 4, 5, 6, 2, 7, 1, 8`,
  `SELECT * FROM information_schema.usage_privileges WHERE object_type = 'SEQUENCE' AND object_schema = '${S}' ORDER BY 5, 2, 1`,
  `SELECT * FROM information_schema.role_usage_grants WHERE object_type = 'SEQUENCE' AND object_schema = '${S}' ORDER BY 5, 2, 1`,
  `SELECT * FROM information_schema.enabled_roles WHERE role_name LIKE '${P}%' ORDER BY 1`,
  `SELECT * FROM information_schema.applicable_roles WHERE grantee LIKE '${P}%' ORDER BY 1, 2`,
  `SELECT * FROM information_schema.administrable_role_authorizations WHERE grantee LIKE '${P}%' ORDER BY 1, 2`,
  // The other views show only what the current role may use.
  `SELECT table_schema, table_name, table_type FROM information_schema.tables WHERE table_schema IN ('${S}', '${P}_s2') OR table_name LIKE '${P}%' ORDER BY 1, 2`,
  `SELECT table_schema, table_name, column_name FROM information_schema.columns WHERE table_schema IN ('${S}', '${P}_s2') OR table_name LIKE '${P}%' ORDER BY 1, 2, 3`,
  `SELECT table_schema, table_name FROM information_schema.views WHERE table_schema = '${S}' ORDER BY 1, 2`,
  `SELECT sequence_schema, sequence_name FROM information_schema.sequences WHERE sequence_schema = '${S}' ORDER BY 1, 2`,
  `SELECT schema_name, schema_owner FROM information_schema.schemata WHERE schema_name LIKE '${P}%' OR schema_name = 'public' ORDER BY 1`,
  `SELECT table_name FROM information_schema.tables WHERE table_schema = 'pg_catalog' AND table_name IN ('pg_authid', 'pg_class', 'pg_settings') ORDER BY 1`,
  `SELECT column_name FROM information_schema.columns WHERE table_schema = 'pg_catalog' AND table_name = 'pg_subscription' AND column_name IN ('subname', 'subconninfo') ORDER BY 1`,
];

/** The GRANT, REVOKE and OWNER TO lines pg_dump writes for the test's objects. */
async function dumpedPrivileges(target: ConnectTarget): Promise<string[]> {
  const r = await runCommand('/usr/lib/postgresql/15/bin/pg_dump',
    ['-h', target.host ?? '127.0.0.1', '-p', String(target.port), '-U', target.user ?? 'floe', '--schema-only', target.database ?? 'floe'],
    { env: { PGCONNECT_TIMEOUT: '10' } });
  assert.equal(r.code, 0, `pg_dump failed:\n${r.stderr}`);
  return r.stdout.split('\n').filter((l) => /^(GRANT|REVOKE|ALTER .* OWNER TO)/.test(l) && (l.includes(P) || /SCHEMA public/.test(l)));
}

describe('owners and privileges in the catalogs, against PostgreSQL 15', () => {
  let servers: OracleAndFloe;
  let oracleUrl: string;
  let floeUrl: string;
  let floeTarget: ConnectTarget;

  before(async () => {
    servers = await startOracleAndFloe([]);
    // Floe serves any database name: connect to it under the oracle's, so GRANT … ON DATABASE and \l name the same database.
    const database = servers.oracle.database;
    oracleUrl = servers.oracleTarget.url;
    floeUrl = `postgres://floe@127.0.0.1:${servers.floe.port}/${database}`;
    floeTarget = { port: servers.floe.port, database };
    const steps = script(database);
    const want = await stepOutcomes(oracleUrl, steps);
    const got = await stepOutcomes(floeUrl, steps);
    for (let i = 0; i < steps.length; i++) assert.deepEqual(got[i], want[i], `setup step ${i}: ${steps[i]}`);
  });
  after(async () => {
    // The oracle's roles outlive its database (on a shared server); their privileges on it go with it once it is dropped.
    // A throwaway cluster goes away whole with its roles, so then there is nothing left to connect to.
    const adminUrl = servers.oracle.adminUrl;
    await servers?.stop();
    if (process.env.FLOE_TEST_PG_URL === undefined || process.env.FLOE_TEST_PG_URL === '') return;
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      const { rows } = await c.query(`SELECT rolname FROM pg_roles WHERE rolname LIKE '${P}%'`);
      for (const r of rows) await c.query(`DROP ROLE IF EXISTS "${String(r.rolname).replaceAll('"', '""')}"`);
    } finally {
      await c.end();
    }
  });

  const compare = async (steps: readonly string[], prefix: readonly string[] = []) => {
    const want = await stepOutcomes(oracleUrl, [...prefix, ...steps]);
    const got = await stepOutcomes(floeUrl, [...prefix, ...steps]);
    for (let i = 0; i < want.length; i++) assert.deepEqual(got[i], want[i], [...prefix, ...steps][i]);
  };

  test('owners and ACLs: relacl, attacl, nspacl, datacl and the owner columns', async () => {
    await compare(CATALOG_QUERIES);
  });

  test('has_*_privilege in every overload, with PostgreSQL\'s errors and NULLs', async () => {
    await compare(privilegeCalls());
  });

  test('information_schema privilege views as a superuser sees them', async () => {
    await compare(INFORMATION_SCHEMA_QUERIES);
  });

  for (const role of [`${P}_c`, `${P}_b`, `${P}_n`, `${P}_r`, `${P}_w`]) {
    test(`information_schema and has_*_privilege as ${role}`, async () => {
      await compare([
        ...INFORMATION_SCHEMA_QUERIES,
        `SELECT has_table_privilege('${S}.t', 'SELECT'), has_table_privilege('${S}.t', 'INSERT'), has_column_privilege('${S}.t', 'b', 'UPDATE')`,
        `SELECT has_schema_privilege('${S}', 'USAGE'), has_schema_privilege('${P}_s2', 'USAGE'), has_database_privilege(current_database(), 'TEMP')`,
        // Unqualified names go through search_path, which skips schemas the role may not use.
        `SELECT has_table_privilege('t', 'SELECT')`,
        `SELECT has_table_privilege('${P}_t', 'SELECT'), has_sequence_privilege('sq', 'USAGE')`,
      ], [`SET ROLE ${role}`, `SET search_path = ${S}, public`]);
    });
  }

  for (const cmd of [`\\dp ${S}.*`, `\\z public.${P}*`, '\\dn+', `\\dn+ ${P}*`]) {
    test(`psql ${cmd}`, async () => {
      assert.equal(await psqlOutput(floeTarget, cmd), await psqlOutput(servers.oracleTarget, cmd));
    });
  }

  test('psql \\l names the database\'s owner and ACL alike', async () => {
    const cmd = `\\l ${servers.oracle.database}`;
    assert.equal(await psqlOutput(floeTarget, cmd), await psqlOutput(servers.oracleTarget, cmd));
  });

  test('pg_dump writes the same GRANT, REVOKE and OWNER TO statements', async () => {
    const want = await dumpedPrivileges(servers.oracleTarget);
    assert.ok(want.length > 10, want.join('\n'));
    assert.deepEqual((await dumpedPrivileges(floeTarget)).sort(), [...want].sort());
  });

  // Last: it adds objects the tests above would list.
  test('what GRANT, REVOKE and ALTER … OWNER TO leave in the catalog', async () => {
    const S3 = `${P}_s3`;
    const attacl = (table: string) => `SELECT attname, attacl::text FROM pg_attribute WHERE attrelid = '${S3}.${table}'::regclass AND attnum > 0 ORDER BY attnum`;
    await compare([
      `CREATE SCHEMA ${S3}`,
      `CREATE TABLE ${S3}.t (id int PRIMARY KEY, a int)`,
      `GRANT SELECT (a) ON ${S3}.t TO ${P}_a`,
      // PostgreSQL hands the column grants to the new owner too.
      `ALTER TABLE ${S3}.t OWNER TO ${P}_b`,
      attacl('t'),
      // A renamed column keeps its grants.
      `ALTER TABLE ${S3}.t RENAME COLUMN a TO a2`,
      attacl('t'),
      // A serial column's sequence changes owner only with its table.
      `CREATE TABLE ${S3}.u (id serial PRIMARY KEY)`,
      `ALTER SEQUENCE ${S3}.u_id_seq OWNER TO ${P}_a`,
      // pg_catalog takes grants like any schema.
      `GRANT USAGE ON SCHEMA pg_catalog TO ${P}_a`,
      `REVOKE USAGE ON SCHEMA pg_catalog FROM ${P}_a`,
      // A role with no privilege at all on the table may not grant on it: an error, not a warning.
      `GRANT USAGE ON SCHEMA ${S3} TO ${P}_c`,
      `SET ROLE ${P}_c`,
      `GRANT SELECT ON ${S3}.t TO ${P}_b`,
      `RESET ROLE`,
    ]);
  });
});
