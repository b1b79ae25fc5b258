/**
 * An append table compacted under a session's open transaction, by another process on the
 * same warehouse (as the self-optimizing service does): the transaction's DELETE and UPDATE,
 * whose row ids name the files before the compaction, commit with PostgreSQL's results,
 * beside a concurrent session's writes. PostgreSQL does no compaction; nothing may differ.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openWarehouse } from '../../src/lake/index.js';
import type { OptimizeKind, Warehouse } from '../../src/lake/index.js';
import { startGatewayAndOracle, statementOutcome } from './gateway-and-oracle.js';
import type { GatewayAndOracle } from './gateway-and-oracle.js';

/** A statement for session 1 or 2 (run on both sides), or a compaction of x (Floe only). */
type Step = string | { readonly s2: string } | { readonly optimize: OptimizeKind };

const inserts = Array.from({ length: 8 }, (_, i) => `INSERT INTO x SELECT g, 'r' || g FROM generate_series(${i * 5}, ${i * 5 + 4}) g`);

describe('append tables: transactions spanning a compaction answer as PostgreSQL does', () => {
  let both!: GatewayAndOracle;
  let wh!: Warehouse;
  let floe2!: pg.Client;
  let oracle2!: pg.Client;
  before(async () => {
    both = await startGatewayAndOracle(['CREATE TABLE x (a int, b text)', ...inserts]);
    const text = { getTypeParser: () => (v: string) => v };
    floe2 = new pg.Client({ host: '127.0.0.1', port: both.g.server.port, user: 'floe', database: 'floe', types: text });
    oracle2 = new pg.Client({ host: both.oracle.host, port: both.oracle.port, user: both.oracle.user, database: both.oracle.database, types: text });
    await floe2.connect();
    await oracle2.connect();
    wh = await openWarehouse({ path: both.g.server.dataDir });
  });
  after(async () => {
    await floe2?.end().catch(() => undefined);
    await oracle2?.end().catch(() => undefined);
    await wh?.close();
    await both?.stop();
  });

  async function run(steps: readonly Step[], table = 'x'): Promise<void> {
    for (const step of steps) {
      if (typeof step === 'object' && 'optimize' in step) {
        const r = await wh.optimize(wh.getTable('public', table)!, { kind: step.optimize });
        assert.ok(r.filesIn > 0, `the ${step.optimize} compaction rewrote files`);
        continue;
      }
      const [f, o, sql] = typeof step === 'string' ? [both.g.client, both.oracle, step] : [floe2, oracle2, step.s2];
      assert.deepEqual(await statementOutcome(f, sql), await statementOutcome(o, sql), sql);
    }
  }

  test('DELETE and UPDATE before a compaction, a concurrent session writing after it, COMMIT after both', () => run([
    'BEGIN',
    'DELETE FROM x WHERE a IN (3, 14, 38)',
    "UPDATE x SET b = 'u' WHERE a IN (5, 22)",
    { optimize: 'full' },
    { s2: 'DELETE FROM x WHERE a IN (7, 30)' },
    { s2: "UPDATE x SET b = 's2' WHERE a = 11" },
    'COMMIT',
    'SELECT * FROM x ORDER BY a',
    'SELECT count(*), sum(a) FROM x',
  ]));

  test('statements before and after two compactions in one transaction, rows it inserted itself included', () => run([
    { s2: "INSERT INTO x VALUES (100, 'a'), (101, 'b')" },
    'BEGIN',
    "INSERT INTO x VALUES (200, 'mine')",
    'DELETE FROM x WHERE a % 9 = 1',
    { optimize: 'major' },
    { s2: "INSERT INTO x VALUES (102, 'c')" },
    { optimize: 'minor' },
    "UPDATE x SET b = b || '!' WHERE a < 20 OR a = 200",
    'DELETE FROM x WHERE a = 12',
    'COMMIT',
    'SELECT * FROM x ORDER BY a',
  ]));

  // The arrays are sorted as text: ORDER BY carrying a text[] column fails before any
  // compaction (XX000 "Cannot read properties of undefined (reading 'byteLength')").
  test('every column type reads the same after its files are rewritten', () => run([
    `CREATE TABLE ty (b bool, i2 int2, i8 int8, f4 float4, f8 float8, n numeric(10,2), nbig numeric(30,5), nfree numeric,
      t text, vc varchar(8), ch char(3), by bytea, d date, tm time, ts timestamp, tz timestamptz, iv interval, u uuid,
      j json, jb jsonb, a int4[], ta text[])`,
    `INSERT INTO ty VALUES (true, 1, 9007199254740993, 1.5, 2.25, 12345678.91, 1234567890123456789012345.12345, 0.000001,
      'é', 'abc', 'x', '\\x00ff', '2024-02-29', '12:34:56.789', '2024-01-01 00:00:00.000001', '2024-06-01 12:00:00+02',
      '1 year 2 mons 3 days 04:05:06', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": [1, 2]}', '{"b": null}', '{1,NULL,3}', '{"x",NULL}')`,
    'INSERT INTO ty VALUES (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)',
    `INSERT INTO ty VALUES (false, -32768, -1, 'NaN', '-Infinity', -0.01, -1.00001, 1e20, '', '', '', '\\x', '0001-01-01', '00:00', '1999-12-31 23:59:59', '1970-01-01 00:00:00+00',
      '-1 days', '00000000-0000-0000-0000-000000000000', '[]', '{}', '{}', '{}')`,
    { optimize: 'minor' },
    'SELECT b, i2, i8, f4, f8, n, nbig, nfree, t, vc, ch, by, d, tm, ts, tz, iv, u, j, jb, a::text, ta::text FROM ty ORDER BY i2 NULLS LAST',
    "INSERT INTO ty (i2, t) VALUES (7, 'after')",
    'ALTER TABLE ty ADD COLUMN extra int4 DEFAULT 42',
    "INSERT INTO ty (i2, t, extra) VALUES (8, 'later', 1)",
    { optimize: 'full' },
    'SELECT b, i2, i8, f4, f8, n, nbig, nfree, t, vc, ch, by, d, tm, ts, tz, iv, u, j, jb, a::text, ta::text, extra FROM ty ORDER BY i2 NULLS LAST',
  ], 'ty'));
});

