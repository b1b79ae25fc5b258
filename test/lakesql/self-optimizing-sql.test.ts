import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, existsSync, openSync, rmSync, writeSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { runPsql } from '../harness/run-psql.js';
import { startGatewayAndOracle } from './gateway-and-oracle.js';
import type { GatewayAndOracle } from './gateway-and-oracle.js';
import type pg from 'pg';

/*
 * The SQL face of the self-optimizing service through a real gateway: CALL optimize,
 * optimizer group DDL, the floe_optimizing / floe_optimizing_history / floe_optimizer_groups
 * views and the self-optimizing table properties. PostgreSQL 15 is the oracle for the shape
 * of a CALL that returns OUT parameters and for DROP of an object something depends on.
 */

const CALL_COLUMNS = ['kind', 'nodes', 'splits', 'merges', 'files_in', 'files_out', 'rows_in', 'rows_out', 'bytes_in', 'bytes_out', 'duration_ms', 'snapshot_id'];

describe('self-optimizing SQL', () => {
  let go: GatewayAndOracle;
  before(async () => { go = await startGatewayAndOracle([]); });
  after(async () => { await go?.stop(); });

  const fields = (r: pg.QueryResult) => r.fields.map((f) => [f.name, f.dataTypeID]);

  test('CALL optimize answers one row tagged CALL, shaped as PostgreSQL answers a procedure\'s OUT parameters', async () => {
    const { g, oracle } = go;
    await g.run('CREATE TABLE orders (id int PRIMARY KEY, v text)');
    for (let i = 0; i < 5; i++) await g.run(`INSERT INTO orders VALUES (${i * 2}, 'a${i}'), (${i * 2 + 1}, 'b${i}') ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v`);
    await g.run("UPDATE orders SET v = 'changed' WHERE id = 3");
    await g.run('DELETE FROM orders WHERE id = 4');
    const before = await g.rows('SELECT id, v FROM orders ORDER BY id');

    const r = await g.client.query({ text: "CALL optimize('orders')", rowMode: 'array' });
    await oracle.query(`CREATE PROCEDURE optimize(p_table text, p_kind text, ${CALL_COLUMNS.map((c) => `OUT ${c} ${c === 'kind' ? 'text' : 'bigint'}`).join(', ')})
      LANGUAGE plpgsql AS $$ BEGIN kind := 'major'; nodes := 1; END $$`);
    const o = await oracle.query({ text: `CALL optimize('orders', NULL${', NULL'.repeat(CALL_COLUMNS.length)})`, rowMode: 'array' });
    assert.deepEqual(fields(r), fields(o));
    assert.deepEqual([r.command, r.rowCount, r.rows.length], [o.command, o.rowCount, o.rows.length]);
    assert.equal(r.command, 'CALL');

    const row = Object.fromEntries(CALL_COLUMNS.map((c, i) => [c, r.rows[0][i]]));
    assert.equal(row.kind, 'major', 'major is the default kind');
    assert.ok(Number(row.nodes) >= 1, JSON.stringify(row));
    assert.ok(Number(row.duration_ms) >= 0);
    assert.notEqual(row.snapshot_id, null, 'the process committed a snapshot');
    assert.deepEqual(await g.rows('SELECT id, v FROM orders ORDER BY id'), before, 'the table reads the same');

    // Each kind, case-insensitive, named or positional; extended protocol describes the same columns.
    for (const kind of ['minor', 'FULL']) {
      const k = await g.client.query({ name: `optimize_${kind}`, text: `CALL optimize('public.orders', kind => '${kind}')`, rowMode: 'array' });
      assert.deepEqual(k.fields.map((f) => f.name), CALL_COLUMNS);
      assert.equal(k.rows[0][0], kind.toLowerCase());
    }
    assert.deepEqual(await g.rows('SELECT id, v FROM orders ORDER BY id'), before);
  });

  test('bad CALL optimize input: SQLSTATEs and hints, nothing recorded', async () => {
    const { g } = go;
    const runs = async () => (await g.rows('SELECT count(*) FROM floe_optimizing_history'))[0]![0];
    const n = await runs();
    let e = await g.failure("CALL optimize('orders', 'medium')");
    assert.equal(e.code, '22023');
    assert.match(e.message, /invalid optimize kind: "medium"/);
    assert.match(e.hint ?? '', /'minor'.*'major'.*'full'/);
    assert.equal((await g.failure("CALL optimize('nosuch')")).code, '42P01');
    assert.equal((await g.failure('CALL optimize()')).code, '42883');
    assert.equal((await g.failure("CALL optimize('orders', 'minor', 1)")).code, '42883');
    e = await g.failure("CALL optimize('orders', level => 'minor')");
    assert.equal(e.code, '42883');
    assert.match(e.hint ?? '', /table, kind/);
    assert.equal(await runs(), n);
  });

  test('optimizer group DDL round-trips through floe_optimizer_groups', async () => {
    const { g } = go;
    assert.deepEqual(await g.run("CREATE OPTIMIZER GROUP etl WITH (threads = 2, scheduling_policy = 'balanced')"), { command: 'CREATE', rowCount: null });
    await g.run('CREATE OPTIMIZER GROUP "Bulk"');
    await g.run('CREATE OPTIMIZER GROUP IF NOT EXISTS etl WITH (threads = 9)');
    assert.deepEqual(await g.rows("SELECT group_name, threads, scheduling_policy, tables FROM floe_optimizer_groups WHERE group_name <> 'default' ORDER BY group_name"),
      [['Bulk', '1', 'quota', '0'], ['etl', '2', 'balanced', '0']]);
    await g.run("ALTER OPTIMIZER GROUP etl SET (scheduling_policy = quota)");
    await g.run("ALTER OPTIMIZER GROUP etl SET ('threads' = '3')");
    // Only the policy: default keeps the threads the service gave it.
    await g.run("ALTER OPTIMIZER GROUP default SET (scheduling_policy = 'quota')");
    await g.run('ALTER OPTIMIZER GROUP default SET (threads = 2)');
    assert.deepEqual(await g.rows("SELECT group_name, threads, scheduling_policy FROM floe_optimizer_groups WHERE group_name IN ('etl', 'default') ORDER BY 1"),
      [['default', '2', 'quota'], ['etl', '3', 'quota']]);

    await g.run("CREATE TABLE lines (id int PRIMARY KEY) WITH ('self-optimizing.group' = 'etl')");
    assert.deepEqual(await g.rows("SELECT tables FROM floe_optimizer_groups WHERE group_name = 'etl'"), [['1']]);
    assert.deepEqual(await g.run('DROP OPTIMIZER GROUP "Bulk"'), { command: 'DROP', rowCount: null });
    await g.run('DROP OPTIMIZER GROUP IF EXISTS "Bulk"');
    assert.deepEqual(await g.rows("SELECT group_name FROM floe_optimizer_groups WHERE group_name = 'Bulk'"), []);

    // psql sees the views as views of pg_catalog.
    const psql = await runPsql(go.g.server, ['-c', '\\d floe_optimizer_groups']);
    assert.equal(psql.code, 0, psql.stderr);
    assert.match(psql.stdout, /View "pg_catalog\.floe_optimizer_groups"/);
    assert.match(psql.stdout, /scheduling_policy \| text/);
    assert.deepEqual(await g.rows("SELECT table_name FROM information_schema.views WHERE table_name LIKE 'floe%' ORDER BY 1"),
      [['floe_optimizer_groups'], ['floe_optimizers'], ['floe_optimizing'], ['floe_optimizing_history']]);
  });

  test('bad group DDL: SQLSTATEs as PostgreSQL would give them, nothing changed', async () => {
    const { g, oracle } = go;
    const groups = () => g.rows('SELECT group_name, threads, scheduling_policy FROM floe_optimizer_groups ORDER BY 1');
    const before = await groups();
    assert.equal((await g.failure('CREATE OPTIMIZER GROUP etl')).code, '42710');
    assert.equal((await g.failure('ALTER OPTIMIZER GROUP nope SET (threads = 1)')).code, '42704');
    assert.equal((await g.failure('DROP OPTIMIZER GROUP nope')).code, '42704');
    for (const bad of ['threads = 0', 'threads = -1', "threads = 'many'", 'threads = 1.5', "scheduling_policy = 'fifo'", 'workers = 2']) {
      const e = await g.failure(`CREATE OPTIMIZER GROUP g2 WITH (${bad})`);
      assert.equal(e.code, '22023', bad);
      assert.ok(e.hint, `a hint for ${bad}`);
    }
    assert.equal((await g.failure("ALTER OPTIMIZER GROUP etl SET (scheduling_policy = 'fifo')")).code, '22023');
    let e = await g.failure('CREATE OPTIMIZER GROUP g2 WITH (threads 2)');
    assert.deepEqual([e.code, e.message, e.position], ['42601', 'syntax error at or near "2"', 41]);
    e = await g.failure('ALTER OPTIMIZER GROUP etl (threads = 2)');
    assert.deepEqual([e.code, e.position], ['42601', 27]);
    e = await g.failure('CREATE OPTIMIZER GROUP g2 WITH (threads = 1, threads = 2)');
    assert.deepEqual([e.code, e.message], ['42601', 'conflicting or redundant options']);
    e = await g.failure('DROP OPTIMIZER GROUP etl CASCADE');
    assert.deepEqual([e.code, e.position], ['42601', 26]);

    // DROP of a group a table names, and of the one the system needs: 2BP01, as PostgreSQL.
    e = await g.failure('DROP OPTIMIZER GROUP etl');
    const detail = await g.client.query('DROP OPTIMIZER GROUP etl').catch((x: { detail?: string }) => x.detail);
    await oracle.query('CREATE TABLE t1 (a int)');
    await oracle.query('CREATE VIEW v1 AS SELECT * FROM t1');
    const o = await oracle.query('DROP TABLE t1').catch((x: { code: string; message: string }) => x);
    assert.equal(e.code, (o as { code: string }).code);
    assert.equal(e.message, 'cannot drop optimizer group "etl" because other objects depend on it');
    assert.match((o as { message: string }).message, /^cannot drop table t1 because other objects depend on it$/);
    assert.equal(detail, 'table lines depends on optimizer group "etl"');
    e = await g.failure('DROP OPTIMIZER GROUP default');
    const od = await oracle.query('DROP SCHEMA pg_catalog').catch((x: { code: string; message: string }) => x) as { code: string; message: string };
    assert.equal(e.code, od.code);
    assert.equal(e.message, 'cannot drop optimizer group "default" because it is required by the database system');
    assert.deepEqual(await groups(), before);
  });

  test('self-optimizing table properties are validated, with hints; SHOW TBLPROPERTIES lists them', async () => {
    const { g } = go;
    await g.run(`ALTER TABLE orders SET ('self-optimizing.minor.trigger.file-count' = '20', 'self-optimizing.target-size' = '64MB',
      'self-optimizing.read-amplification.max' = '8', 'snapshot.max-age' = '2h', 'self-optimizing.enabled' = 'false')`);
    assert.deepEqual(await g.rows('SHOW TBLPROPERTIES orders'), [
      ['self-optimizing.enabled', 'false'], ['self-optimizing.minor.trigger.file-count', '20'],
      ['self-optimizing.read-amplification.max', '8'], ['self-optimizing.target-size', '64MB'], ['snapshot.max-age', '2h'],
    ]);
    let e = await g.failure("ALTER TABLE orders SET ('self-optimizing.quota' = '-1')");
    assert.equal(e.code, '22023');
    assert.match(e.hint ?? '', /^self-optimizing\.quota: /);
    e = await g.failure("ALTER TABLE orders SET ('self-optimizing.minor.trigger.filecount' = '3')");
    assert.equal(e.code, '22023');
    assert.match(e.hint ?? '', /Did you mean "self-optimizing.minor.trigger.file-count"/);
    e = await g.failure("ALTER TABLE orders SET ('self-optimizing.group' = 'nightly')");
    assert.equal(e.code, '42704');
    assert.match(e.hint ?? '', /CREATE OPTIMIZER GROUP nightly/);
    assert.equal((await g.failure("CREATE TABLE q (id int) WITH ('self-optimizing.group' = 'nightly')")).code, '42704');
    assert.equal((await g.failure('SELECT * FROM q')).code, '42P01', 'nothing was created');
    await g.run("ALTER TABLE orders SET ('self-optimizing.group' = 'default', 'write.target-file-size' = '1GB')");
    assert.equal((await g.failure("ALTER TABLE orders SET ('write.target-file-size' = '1XB')")).code, '22023');
    await g.run("ALTER TABLE orders RESET ('self-optimizing.enabled', 'self-optimizing.group')");
    assert.deepEqual((await g.rows('SHOW TBLPROPERTIES orders')).map((r) => r[0]),
      ['self-optimizing.minor.trigger.file-count', 'self-optimizing.read-amplification.max', 'self-optimizing.target-size', 'snapshot.max-age', 'write.target-file-size']);
  });

  // floe serve's scheduler may add runs of its own (trigger 'scheduler'); these are the CALLs'.
  test('floe_optimizing_history shows the CALL runs, successful and failed, newest first', async () => {
    const { g } = go;
    // Not tiered meanwhile, so the log file corrupted below is the one the optimize reads.
    await g.run("CREATE TABLE broken (id int PRIMARY KEY, v text) WITH ('log.tier-interval' = '1h')");
    await g.run("INSERT INTO broken VALUES (1, 'x')");
    await g.run("INSERT INTO broken VALUES (2, 'y')");
    // A data file lost from under the table: the optimize that reads it fails and says why.
    const [[path]] = await g.rows("SELECT file_path FROM broken$files WHERE store = 'change' LIMIT 1") as [[string]];
    // A logged change file is a byte range of a log segment that other tables share: overwrite just its bytes.
    const [key, range] = path.split('#') as [string, string | undefined];
    const file = isAbsolute(key) ? key : join(g.server.dataDir, key);
    assert.ok(existsSync(file), file);
    if (range === undefined) rmSync(file);
    else {
      const [offset, length] = range.split('+').map(Number) as [number, number];
      const fd = openSync(file, 'r+');
      try { writeSync(fd, Buffer.alloc(length, 0xff), 0, length, offset); } finally { closeSync(fd); }
    }
    const e = await g.failure("CALL optimize('broken', 'minor')");
    assert.notEqual(e.code, '');

    const h = await g.rows(`SELECT table_schema, table_name, kind, status, trigger, error IS NULL, snapshot_id IS NULL, started <= now(), duration_ms >= 0
      FROM floe_optimizing_history WHERE trigger = 'call' ORDER BY started DESC`);
    assert.deepEqual(h[0], ['public', 'broken', 'minor', 'failed', 'call', 'f', 't', 't', 't']);
    const orders = h.filter((r) => r[1] === 'orders');
    assert.deepEqual(orders.map((r) => [r[2], r[3], r[4], r[5]]),
      [['full', 'success', 'call', 't'], ['minor', 'success', 'call', 't'], ['major', 'success', 'call', 't']]);
    assert.equal(orders[2]![6], 'f', 'the major that folded the changes committed a snapshot');
    const [[error]] = await g.rows("SELECT error FROM floe_optimizing_history WHERE status = 'failed' AND table_name = 'broken'") as [[string]];
    assert.ok(error.length > 0);
  });

  test('floe_optimizing lists every table with sane values after a few commits', async (t) => {
    const { g } = go;
    await g.run('CREATE TABLE events (id int PRIMARY KEY, n int)');
    for (let i = 0; i < 4; i++) await g.run(`INSERT INTO events VALUES (${i}, ${i}) ON CONFLICT (id) DO UPDATE SET n = EXCLUDED.n`);
    let rows: (string | null)[][];
    try {
      rows = await g.rows(`SELECT table_schema, table_name, group_name, enabled, status, pending_change_files, pending_change_rows,
        pending_change_bytes > 0, read_amplification, read_amplification_max, health_score BETWEEN 0 AND 100, optimizing_lag >= interval '0'
        FROM floe_optimizing ORDER BY table_name`);
    } catch (e) {
      // Until the lake's optimizingMetrics is merged (the lake-optimize part of issue 23) the view cannot be computed.
      if (/not built yet/.test(String((e as Error).message))) return t.skip('Warehouse.optimizingMetrics is not built yet on this branch');
      throw e;
    }
    const tables = (await g.rows("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname = 'public' ORDER BY 1")).map((r) => r[0]);
    assert.deepEqual(rows.map((r) => r[1]), tables, 'one row per table');
    const events = rows.find((r) => r[1] === 'events')!;
    assert.deepEqual(events, ['public', 'events', 'default', 't', 'idle', '4', '4', 't', '4', '16', 't', 't']);
    const lines = rows.find((r) => r[1] === 'lines')!;
    assert.deepEqual([lines[2], lines[5]], ['etl', '0']);
  });
});
