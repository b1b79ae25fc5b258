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

  async function run(steps: readonly Step[]): Promise<void> {
    for (const step of steps) {
      if (typeof step === 'object' && 'optimize' in step) {
        const r = await wh.optimize(wh.getTable('public', 'x')!, { kind: step.optimize });
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
});
