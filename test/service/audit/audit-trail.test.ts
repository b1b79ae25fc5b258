import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BOOTSTRAP_SUPERUSER_OID, openWarehouse, type Warehouse } from '../../../src/lake/index.js';
import { AUDIT_NAMESPACE, AUDIT_TABLE, AuditTrail } from '../../../src/service/index.js';
import { tempWarehouse } from '../../lake/helpers/read-table.js';
import { auditRows, auditStatements, auditTable, captureLogger, event, failingCommits, NOW, until } from './audit-trail-helpers.js';

/** Commits of floe_audit so far. */
const snapshotsOf = (wh: Warehouse): number => wh.listSnapshots(auditTable(wh)).length;

test('each event is logged at once and becomes a row of audit.floe_audit, every column as recorded', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const { logger, messages } = captureLogger();
    const trail = new AuditTrail({ warehouse: wh, logger });
    const long = `SELECT '${'é'.repeat(5000)}'`;
    trail.record({
      at: NOW, userName: 'bob', clientAddr: null, applicationName: '', action: 'connect', objects: [], statement: null, rows: null,
      sqlstate: '28P01', outcome: 'failure',
    });
    trail.record({
      at: NOW + 1n, userName: 'alice', clientAddr: '192.0.2.1', applicationName: 'psql', action: 'ddl', objects: ['public.t', 'public.t_id_seq'],
      statement: 'CREATE TABLE t (id serial)', rows: null, sqlstate: '00000', outcome: 'success',
    });
    trail.record({
      at: NOW + 2n, userName: 'alice', clientAddr: '192.0.2.1', applicationName: 'psql', action: 'read', objects: ['public.t'],
      statement: long, rows: 1, sqlstate: '00000', outcome: 'success',
    });
    const logged = messages('audit');
    assert.equal(logged.length, 3, 'the log has every event before any flush');
    assert.equal(wh.getTable(AUDIT_NAMESPACE, AUDIT_TABLE), undefined, 'nothing is written until a flush');
    assert.deepEqual(logged[0]!.obj, {
      at: new Date(Number(NOW / 1000n)).toISOString().slice(0, -1) + String(NOW % 1000n).padStart(3, '0') + 'Z',
      user_name: 'bob', client_addr: null, application_name: '', action: 'connect', objects: [], statement: null, rows: null,
      sqlstate: '28P01', outcome: 'failure',
    });
    assert.equal(logged[0]!.level, 'info');
    const shown = logged[2]!.obj['statement'] as string;
    assert.ok(Buffer.byteLength(shown) <= 4096 && shown.endsWith('…') && long.startsWith(shown.slice(0, -1)), 'the log bounds the statement to 4 kB');
    assert.equal(logged[2]!.obj['statement_bytes'], Buffer.byteLength(long));

    assert.equal(await trail.flush(), true);
    const t = auditTable(wh);
    assert.deepEqual(t.primaryKey, [], 'an append table');
    assert.deepEqual(t.partitionBy, [{ sourceColumn: 'at', transform: { kind: 'day' }, name: 'at_day' }]);
    assert.deepEqual(t.columns.map((c) => [c.name, c.type.kind]), [
      ['at', 'timestamptz'], ['user_name', 'text'], ['client_addr', 'text'], ['application_name', 'text'], ['action', 'text'],
      ['objects', 'array'], ['statement', 'text'], ['rows', 'int8'], ['sqlstate', 'text'], ['outcome', 'text'],
    ]);
    const acl = wh.privileges.get({ kind: 'relation', id: t.id });
    assert.equal(acl.owner, BOOTSTRAP_SUPERUSER_OID, 'the bootstrap superuser owns it');
    assert.equal(acl.acl, null, 'nothing is granted on it');
    assert.equal(wh.privileges.get({ kind: 'schema', name: AUDIT_NAMESPACE }).acl, null, 'nor on its schema');

    assert.deepEqual(await auditRows(wh), [
      { at: NOW, user_name: 'bob', client_addr: null, application_name: '', action: 'connect', objects: [], statement: null, rows: null, sqlstate: '28P01', outcome: 'failure' },
      {
        at: NOW + 1n, user_name: 'alice', client_addr: '192.0.2.1', application_name: 'psql', action: 'ddl', objects: ['public.t', 'public.t_id_seq'],
        statement: 'CREATE TABLE t (id serial)', rows: null, sqlstate: '00000', outcome: 'success',
      },
      {
        at: NOW + 2n, user_name: 'alice', client_addr: '192.0.2.1', application_name: 'psql', action: 'read', objects: ['public.t'],
        statement: long, rows: 1n, sqlstate: '00000', outcome: 'success',
      },
    ], 'the table keeps the whole statement (up to 64 kB)');
  } finally { await cleanup(); }
});

test('a flush writes everything buffered in one commit; the background flush runs every flushIntervalMs, and sooner past flushRows', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const { logger } = captureLogger();
    const manual = new AuditTrail({ warehouse: wh, logger });
    await manual.ensureTable();
    const before = snapshotsOf(wh);
    for (let i = 0; i < 50; i++) manual.record(event(i));
    await manual.flush();
    assert.equal(snapshotsOf(wh), before + 1, '50 events, one commit');
    assert.equal((await auditRows(wh)).length, 50);
    await manual.flush();
    assert.equal(snapshotsOf(wh), before + 1, 'an empty buffer commits nothing');

    const timed = new AuditTrail({ warehouse: wh, logger, flushIntervalMs: 50 });
    timed.start();
    for (let i = 100; i < 110; i++) timed.record(event(i));
    await until(async () => (await auditRows(wh)).length === 60, 'the timed flush');
    assert.equal(snapshotsOf(wh), before + 2, 'the ten events recorded together, one commit');
    await timed.stop();

    const big = new AuditTrail({ warehouse: wh, logger, flushIntervalMs: 3_600_000, flushRows: 100 });
    big.start();
    for (let i = 200; i < 350; i++) big.record(event(i));
    await until(() => big.status().flushes >= 1, 'the flush past flushRows');
    assert.ok((await auditRows(wh)).length >= 160, 'the first 100 went without waiting for the interval');
    await big.stop();
    assert.equal((await auditRows(wh)).length, 210);
  } finally { await cleanup(); }
});

test('stop() writes what is buffered before it returns', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const trail = new AuditTrail({ warehouse: wh, logger: captureLogger().logger, flushIntervalMs: 3_600_000 });
    trail.start();
    for (let i = 0; i < 7; i++) trail.record(event(i));
    assert.equal(trail.status().buffered, 7);
    await trail.stop();
    assert.equal(trail.status().buffered, 0);
    assert.deepEqual(await auditStatements(wh), [0, 1, 2, 3, 4, 5, 6].map((i) => `INSERT INTO t VALUES (${i})`));
  } finally { await cleanup(); }
});

test('a failed flush keeps its rows and is retried with back-off: nothing is lost, nothing doubled, order kept', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const failures = { count: 3 };
    const { logger, messages } = captureLogger();
    const trail = new AuditTrail({ warehouse: failingCommits(wh, failures), logger, flushIntervalMs: 20 });
    trail.start();
    for (let i = 0; i < 5; i++) trail.record(event(i));
    await until(() => trail.status().consecutiveFailures === 1, 'the first failure');
    for (let i = 5; i < 8; i++) trail.record(event(i));
    await until(() => trail.status().flushes === 1, 'the flush after the failures');
    await trail.stop();
    assert.equal(failures.count, 0);
    const warned = messages('audit flush failed');
    assert.equal(warned.length, 3);
    assert.deepEqual(warned.map((w) => w.obj['retryInMs']), [20, 40, 80], 'each retry waits twice as long');
    assert.deepEqual(await auditStatements(wh), [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `INSERT INTO t VALUES (${i})`));
    assert.equal(trail.status().flushedRows, 8);
  } finally { await cleanup(); }
});

test('past maxBuffered the oldest rows are dropped, with one warning counting them; their log lines stay', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const failures = { count: 1 };
    const { logger, messages } = captureLogger();
    const trail = new AuditTrail({ warehouse: failingCommits(wh, failures), logger, maxBuffered: 10 });
    for (let i = 0; i < 8; i++) trail.record(event(i));
    assert.equal(await trail.flush(), false, 'the lake is failing');
    for (let i = 8; i < 25; i++) trail.record(event(i));
    assert.equal(trail.status().buffered, 10);
    assert.equal(messages('audit rows dropped: buffer full').length, 0, 'no warning per dropped row');
    assert.equal(await trail.flush(), true);
    const dropped = messages('audit rows dropped: buffer full');
    assert.equal(dropped.length, 1);
    assert.equal(dropped[0]!.obj['dropped'], 15);
    assert.equal(trail.status().droppedRows, 15);
    assert.equal(messages('audit').length, 25, 'every event was logged');
    assert.deepEqual(await auditStatements(wh), Array.from({ length: 10 }, (_, i) => `INSERT INTO t VALUES (${15 + i})`), 'the newest ten');
  } finally { await cleanup(); }
});

test('retention deletes rows older than maxAgeMs, logs how many, and is no audit event itself', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const day = 86_400_000_000n;
    const { logger, messages } = captureLogger();
    const trail = new AuditTrail({ warehouse: wh, logger, retention: { maxAgeMs: 86_400_000 }, now: () => NOW });
    trail.record(event(0, { at: NOW - 3n * day, statement: 'three days ago' }));
    trail.record(event(0, { at: NOW - 2n * day, statement: 'two days ago' }));
    await trail.flush();
    trail.record(event(0, { at: NOW - day - 1n, statement: 'a day and a microsecond ago' }));
    trail.record(event(0, { at: NOW - day + 1n, statement: 'just under a day ago' }));
    trail.record(event(0, { at: NOW, statement: 'now' }));
    await trail.flush();
    const t = auditTable(wh);
    const before = wh.listSnapshots(t).length;
    assert.equal(await trail.runRetention(), 3);
    assert.equal(wh.listSnapshots(t).length, before + 1, 'one commit');
    assert.deepEqual(await auditStatements(wh), ['just under a day ago', 'now']);
    const logged = messages('audit retention');
    assert.equal(logged.length, 1);
    assert.equal(logged[0]!.obj['deleted'], 3);
    assert.equal(await trail.runRetention(), 0);
    assert.equal(wh.listSnapshots(t).length, before + 1, 'nothing to delete, nothing committed');
    assert.equal(messages('audit').length, 5, 'the trail audits none of its own writes');

    // In the background: a trail's first round runs it, later ones wait for its interval.
    const bg = captureLogger();
    const background = new AuditTrail({ warehouse: wh, logger: bg.logger, flushIntervalMs: 10, retention: { maxAgeMs: 86_400_000 }, now: () => NOW });
    background.record(event(0, { at: NOW - 5n * day, statement: 'late arrival' }));
    background.start();
    await until(() => bg.messages('audit retention').length === 1, 'the background retention');
    assert.equal(bg.messages('audit retention')[0]!.obj['deleted'], 1, 'the round flushed the late arrival, then deleted it');
    await new Promise((r) => setTimeout(r, 100));
    await background.stop();
    assert.equal(bg.messages('audit retention').length, 1, 'at most once per interval (an hour)');
    assert.deepEqual(await auditStatements(wh), ['just under a day ago', 'now']);
  } finally { await cleanup(); }
});

test('floe_audit can be read as of an earlier snapshot or time', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const trail = new AuditTrail({ warehouse: wh, logger: captureLogger().logger });
    trail.record(event(1));
    trail.record(event(2));
    await trail.flush();
    const first = wh.resolveSnapshot(auditTable(wh))!;
    await new Promise((r) => setTimeout(r, 5));
    trail.record(event(3));
    await trail.flush();
    assert.equal((await auditRows(wh)).length, 3);
    const early = ['INSERT INTO t VALUES (1)', 'INSERT INTO t VALUES (2)'];
    assert.deepEqual((await auditRows(wh, { kind: 'snapshot', id: first.id })).map((r) => r['statement']), early);
    assert.deepEqual((await auditRows(wh, { kind: 'timestamp', micros: first.committedAtMicros })).map((r) => r['statement']), early);
  } finally { await cleanup(); }
});

test('two trails on one catalog both create-or-find floe_audit, and both write to it', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  const other = await openWarehouse({ path: dir });
  try {
    const { logger } = captureLogger();
    const trails = [new AuditTrail({ warehouse: wh, logger }), new AuditTrail({ warehouse: wh, logger }), new AuditTrail({ warehouse: other, logger })];
    const tables = await Promise.all(trails.map((t) => t.ensureTable()));
    assert.equal(new Set(tables.map((t) => t.id)).size, 1, 'one table');
    trails.forEach((t, i) => t.record(event(i)));
    assert.deepEqual(await Promise.all(trails.map((t) => t.flush())), [true, true, true]);
    assert.deepEqual(await auditStatements(wh), [0, 1, 2].map((i) => `INSERT INTO t VALUES (${i})`));

    // A table a superuser dropped is made again at the next flush: auditing does not stop.
    await wh.dropTable(AUDIT_NAMESPACE, AUDIT_TABLE);
    trails[0]!.record(event(3));
    assert.equal(await trails[0]!.flush(), true);
    assert.deepEqual(await auditStatements(wh), ['INSERT INTO t VALUES (3)']);
  } finally {
    await other.close();
    await cleanup();
  }
});

test('rows flushed before a crash are there after the warehouse is opened again; rows only buffered are not', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  const image = mkdtempSync(join(tmpdir(), 'floe-audit-crash-'));
  try {
    const trail = new AuditTrail({ warehouse: wh, logger: captureLogger().logger, flushIntervalMs: 3_600_000 });
    trail.start();
    for (let i = 0; i < 4; i++) trail.record(event(i));
    await trail.flush();
    trail.record(event(4));
    // The crash: the disk as it is now, with the warehouse still open and a row unwritten.
    cpSync(dir, image, { recursive: true });
    assert.equal(trail.abandon(), 1);
    const reopened = await openWarehouse({ path: image });
    try {
      assert.deepEqual(await auditStatements(reopened), [0, 1, 2, 3].map((i) => `INSERT INTO t VALUES (${i})`));
    } finally { await reopened.close(); }
  } finally {
    rmSync(image, { recursive: true, force: true });
    await cleanup();
  }
});
