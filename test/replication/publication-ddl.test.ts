import { describe, test } from 'node:test';
import { assertSameOutcomes } from '../harness/statement-outcomes.js';
import { oracleAndFloeForSuite, type OracleAndFloe } from '../harness/oracle-and-floe.js';

const PUBLICATIONS = 'SELECT pubname, puballtables, pubinsert, pubupdate, pubdelete, pubtruncate, pubviaroot FROM pg_publication ORDER BY 1';
const PUBLISHED = 'SELECT pubname, schemaname, tablename, attnames, rowfilter FROM pg_publication_tables ORDER BY 1, 2, 3';
const MEMBERS = `SELECT p.pubname, c.relname FROM pg_publication_rel r JOIN pg_publication p ON p.oid = r.prpubid
  JOIN pg_class c ON c.oid = r.prrelid ORDER BY 1, 2`;

describe('CREATE / ALTER / DROP PUBLICATION, differential against PostgreSQL 15', () => {
  let servers: OracleAndFloe;
  oracleAndFloeForSuite([
    'CREATE TABLE a (id int PRIMARY KEY, v text)',
    'CREATE TABLE b (x int, y text)',
    'CREATE VIEW vw AS SELECT 1 AS one',
  ], (s) => { servers = s; });

  test('publications, their tables and PostgreSQL\'s errors', async () => {
    await assertSameOutcomes(servers.oracleTarget.url, servers.floe.url, [
      'CREATE PUBLICATION p1 FOR TABLE a, b',
      'CREATE PUBLICATION p1',
      'CREATE PUBLICATION p2 FOR ALL TABLES',
      'CREATE PUBLICATION p3 FOR TABLE missing',
      'CREATE PUBLICATION p3 FOR TABLE vw',
      "CREATE PUBLICATION p3 WITH (publish = 'insert, delete')",
      "CREATE PUBLICATION p4 WITH (publish = 'bogus')",
      'CREATE PUBLICATION p4 WITH (foo = 1)',
      PUBLICATIONS,
      PUBLISHED,
      'ALTER PUBLICATION p3 ADD TABLE a',
      'ALTER PUBLICATION p3 ADD TABLE a',
      'ALTER PUBLICATION p3 DROP TABLE b',
      'ALTER PUBLICATION p3 SET TABLE b',
      'ALTER PUBLICATION p2 ADD TABLE a',
      'ALTER PUBLICATION nope ADD TABLE a',
      "ALTER PUBLICATION p3 SET (publish = 'update')",
      PUBLICATIONS,
      PUBLISHED,
      MEMBERS,
      'DROP PUBLICATION nope',
      'DROP PUBLICATION IF EXISTS nope',
      'DROP PUBLICATION p1, nope',
      PUBLICATIONS,
      'DROP TABLE b',
      PUBLISHED,
      'DROP PUBLICATION p1, p2',
      PUBLICATIONS,
    ]);
  });
});
