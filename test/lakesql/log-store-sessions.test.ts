import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startPostgres } from '../harness/postgres-server.js';
import type { PostgresServer } from '../harness/postgres-server.js';
import { prepareOracle } from '../harness/prepare-oracle.js';
import { startLakeSqlGateway } from './lake-sql-gateway.js';
import type { LakeSqlGateway } from './lake-sql-gateway.js';
import { statementOutcome } from './gateway-and-oracle.js';
import type { StatementOutcome } from './gateway-and-oracle.js';

/**
 * The log store seen from sessions (issue 24, "Tests (CI)"): small commits go through the
 * gateway's log, and another session sees them on its very next statement — no polling,
 * no sleep — exactly as PostgreSQL 15 does at each isolation level. Many concurrent
 * committers lose and duplicate nothing, respect seq order, get one snapshot each and
 * share fsyncs (group commit).
 */

const textTypes = { getTypeParser: () => (v: string) => v };

function connect(port: number, host = '127.0.0.1', user = 'floe', database = 'floe'): Promise<pg.Client> {
  const c = new pg.Client({ host, port, user, database, types: textTypes });
  return c.connect().then(() => c);
}

describe('log store: a commit is visible to another session at once', () => {
  let g: LakeSqlGateway;
  let pgServer: PostgresServer;
  /** [writer, reader] on Floe and on PostgreSQL. */
  let floe: [pg.Client, pg.Client];
  let oracle: [pg.Client, pg.Client];
  before(async () => {
    [g, pgServer] = await Promise.all([startLakeSqlGateway(), startPostgres()]);
    const o = await prepareOracle(pgServer);
    floe = [g.client, await connect(g.server.port)];
    oracle = [await connect(o.port, o.host, o.user, o.database), await connect(o.port, o.host, o.user, o.database)];
    for (const s of ['CREATE TABLE vis (id int PRIMARY KEY, v text)']) {
      await g.run(s);
      await oracle[0].query(s);
    }
  });
  after(async () => {
    await floe?.[1].end().catch(() => undefined);
    for (const c of oracle ?? []) await c.end().catch(() => undefined);
    await g?.stop();
    await pgServer?.stop();
  });

  /** Runs [session, statement] steps in order on both systems; the outcomes must match. */
  async function sameOnBoth(steps: readonly (readonly [0 | 1, string])[]): Promise<StatementOutcome[]> {
    const got: StatementOutcome[] = [];
    for (const [who, sql] of steps) {
      const f = await statementOutcome(floe[who], sql);
      const o = await statementOutcome(oracle[who], sql);
      assert.deepEqual(f, o, `session ${who}: ${sql}`);
      got.push(f);
    }
    return got;
  }
  const W = 0;
  const R = 1;
  const read = [R, 'SELECT id, v FROM vis ORDER BY id'] as const;

  test('autocommit: the other session reads the row on its very next statement', async () => {
    const out = await sameOnBoth([
      [W, "INSERT INTO vis VALUES (1, 'a')"], read,
      [W, "INSERT INTO vis VALUES (2, 'b'), (3, 'c') ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v"], read,
      [W, "UPDATE vis SET v = 'B' WHERE id = 2"], read,
      [W, 'DELETE FROM vis WHERE id = 3'], read,
      [R, "SELECT v FROM vis WHERE id = 2"],
    ]);
    assert.deepEqual((out[out.length - 2] as { rows: unknown[][] }).rows, [['1', 'a'], ['2', 'B']]);
  });

  test('READ COMMITTED reader: each statement sees what committed before it', async () => {
    await sameOnBoth([
      [R, 'BEGIN'], read,
      [W, "INSERT INTO vis VALUES (10, 'rc')"], read,
      [W, 'BEGIN'], [W, "INSERT INTO vis VALUES (11, 'rc2')"], read, [W, 'COMMIT'], read,
      [R, 'COMMIT'], read,
    ]);
  });

  test('REPEATABLE READ reader: keeps its snapshot until it ends (taken at its first statement, as in PostgreSQL)', async () => {
    await sameOnBoth([
      [R, 'BEGIN ISOLATION LEVEL REPEATABLE READ'],
      [W, "INSERT INTO vis VALUES (20, 'before first read')"],
      read,
      [W, "INSERT INTO vis VALUES (21, 'rr')"], read,
      [W, "UPDATE vis SET v = 'changed' WHERE id = 1"], read,
      [R, 'COMMIT'], read,
    ]);
  });
});

describe('log store: 16 concurrent committers', () => {
  let g: LakeSqlGateway;
  before(async () => {
    g = await startLakeSqlGateway();
    await g.run('CREATE TABLE cc (id int PRIMARY KEY, v text)');
    await g.run('CREATE TABLE ci (id int PRIMARY KEY, v text)');
  });
  after(async () => { await g?.stop(); });

  const CLIENTS = 16;
  const COMMITS = 25;
  const SHARED_KEYS = 8;

  const serializationFailure = (e: unknown) => (e as { code?: string }).code === '40001';

  // PostgreSQL never fails concurrent INSERTs of distinct keys. Through the log, every
  // checked INSERT expects the head it checked against; the group committer rebases it over
  // earlier commits of its batch that wrote none of its keys (rebaseWithinBatch), so none fails.
  test('concurrent INSERTs of distinct keys never fail, as in PostgreSQL', async () => {
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => connect(g.server.port)));
    let failures = 0;
    try {
      await Promise.all(clients.map(async (c, n) => {
        for (let i = 0; i < COMMITS; i++) {
          await c.query('INSERT INTO ci VALUES ($1, $2)', [n * COMMITS + i, 'x']).catch((e: unknown) => {
            if (!serializationFailure(e)) throw e;
            failures++;
          });
        }
      }));
    } finally {
      await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    }
    assert.equal(failures, 0, `${failures} of ${CLIENTS * COMMITS} INSERTs of distinct keys failed 40001`);
  });

  test('no row lost or duplicated, the greatest seq wins each shared key, one snapshot per commit, fsyncs shared', async () => {
    // The self-optimizing service commits optimize snapshots too: count the writes.
    const [[before]] = await g.rows("SELECT count(*) FROM cc$snapshots WHERE operation = 'write'");
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => connect(g.server.port)));
    let retries = 0;
    try {
      await Promise.all(clients.map(async (c, n) => {
        for (let i = 0; i < COMMITS; i++) {
          // Disjoint keys: a plain INSERT; shared keys: a blind upsert that many clients race on.
          // A failed commit leaves nothing; the client retries it (see the test above for why it fails).
          for (;;) {
            try {
              if (i % 2 === 0) await c.query('INSERT INTO cc VALUES ($1, $2)', [1000 + n * COMMITS + i, `c${n}.${i}`]);
              else await c.query('INSERT INTO cc VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v', [(n + i) % SHARED_KEYS, `c${n}.${i}`]);
              break;
            } catch (e) {
              if (!serializationFailure(e)) throw e;
              retries++;
            }
          }
        }
      }));
    } finally {
      await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    }
    const rows = await g.rows('SELECT id, v FROM cc ORDER BY id');
    const disjoint = rows.filter((r) => Number(r[0]) >= 1000);
    const want: string[][] = [];
    for (let n = 0; n < CLIENTS; n++) for (let i = 0; i < COMMITS; i += 2) want.push([String(1000 + n * COMMITS + i), `c${n}.${i}`]);
    assert.deepEqual(disjoint, want.sort((a, b) => Number(a[0]) - Number(b[0])), 'every disjoint insert once');
    assert.deepEqual(rows.filter((r) => Number(r[0]) < 1000).map((r) => r[0]), Array.from({ length: SHARED_KEYS }, (_, k) => String(k)), 'each shared key once');

    // Each shared key holds the value its greatest-seq writer wrote.
    const [[dups]] = await g.rows('SELECT count(*) FROM (SELECT _seq FROM cc$audit_log GROUP BY _seq HAVING count(DISTINCT _commit_snapshot_id) > 1) d');
    assert.equal(dups, '0', 'a seq is one transaction');
    const latest = await g.rows(`SELECT a.id, a.v FROM cc$audit_log a
      WHERE a.id < 1000 AND a._change_type IN ('INSERT', 'UPDATE_AFTER')
        AND a._seq = (SELECT max(b._seq) FROM cc$audit_log b WHERE b.id = a.id AND b._change_type IN ('INSERT', 'UPDATE_AFTER'))
      ORDER BY a.id`);
    assert.deepEqual(latest, rows.filter((r) => Number(r[0]) < 1000));

    // One snapshot per committed transaction.
    const [[afterCount]] = await g.rows("SELECT count(*) FROM cc$snapshots WHERE operation = 'write'");
    assert.equal(Number(afterCount) - Number(before), CLIENTS * COMMITS, 'one snapshot per commit');
    const [[writes]] = await g.rows('SELECT count(DISTINCT _commit_snapshot_id) FROM cc$audit_log');
    assert.equal(Number(writes), CLIENTS * COMMITS, 'every commit has changes under its own snapshot');

    // Group commit: the log store reports its rounds when the gateway stops.
    await g.stop();
    const closed = g.server.log().split('\n').flatMap((l) => {
      try {
        const r = JSON.parse(l) as { msg?: string; commits?: number; batches?: number };
        return r.msg === 'log store closed' ? [r] : [];
      } catch { return []; }
    });
    assert.equal(closed.length, 1, g.server.log());
    const { commits, batches } = closed[0]!;
    assert.ok(commits! >= CLIENTS * COMMITS, `every commit went through the log (${commits})`);
    assert.ok(batches! < commits!, `group commit shared fsyncs: ${batches} rounds for ${commits} commits`);
    console.log(`group commit: ${commits} commits in ${batches} fsync rounds; ${retries} INSERTs retried after 40001`);
  });
});
