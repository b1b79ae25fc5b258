import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forEachCatalogBackend } from '../harness/catalog-backends.js';
import { oneChangeFileWrite } from '../harness/catalog-rows.js';

/*
 * The catalog keeps its reads until the database changes: a write through the same
 * catalog, or a commit through another connection to the same catalog (another
 * process's gateway or CLI), must be seen by the very next read. On SQLite and PostgreSQL.
 */

forEachCatalogBackend((backend) => {
test('cached catalog reads see this catalog\'s writes and other connections\' commits at once, and cannot be changed in place', () => {
  const place = backend().place();
  const a = place.connect();
  const b = place.connect();
  try {
    a.createNamespace('first', false);
    assert.deepEqual(b.listNamespaces().filter((n) => n !== 'public'), ['first']);
    // Nothing changed: the same (cached) answer.
    assert.equal(b.listNamespaces(), b.listNamespaces());

    // Another connection commits: the next read sees it.
    a.createNamespace('second', false);
    assert.deepEqual(b.listNamespaces().filter((n) => n !== 'public'), ['first', 'second']);

    // This connection writes: likewise.
    b.createNamespace('third', false);
    assert.deepEqual(b.listNamespaces().filter((n) => n !== 'public'), ['first', 'second', 'third']);

    const t = b.createTable({
      namespace: 'first', name: 't', columns: [{ id: 1, name: 'k', type: { kind: 'int4' }, nullable: false }],
      primaryKey: ['k'], partitionBy: [], properties: {}, nextFieldId: 2,
    } as never, 0n, false).table;
    const before = a.getTableById(t.id)!;
    assert.equal(before.name, 't');
    b.updateTable(t.id, { name: 'renamed' });
    assert.equal(a.getTableById(t.id)!.name, 'renamed');
    assert.equal(a.getTable('first', 't'), undefined);
    assert.equal(a.getTable('first', 'renamed')!.id, t.id);

    // A shared answer is frozen: changing it throws rather than changing every later reader's.
    assert.throws(() => { (b.listNamespaces() as string[]).push('x'); }, TypeError);
    assert.throws(() => { (a.getTableById(t.id)!.columns as unknown[]).length = 0; }, TypeError);
  } finally {
    place.dispose();
  }
});

test('a commit that fails part way leaves no cached trace: the next read sees the branch head as it was', () => {
  const place = backend().place();
  const c = place.connect();
  try {
    const t = c.createTable({
      namespace: 'public', name: 't', columns: [{ id: 1, name: 'k', type: { kind: 'int4' }, nullable: false }],
      primaryKey: ['k'], partitionBy: [], properties: {}, nextFieldId: 2,
    } as never, 0n, false).table;
    const head = c.getRef(t.id, 'main')!.snapshotId;
    assert.equal(c.getSnapshot(t.id, head)!.id, head);
    const request = { tableId: t.id, branch: 'main', operation: 'append', summary: {}, schemaId: t.schemaId, addFiles: [], removeFileIds: [] };
    // The first request moves the head (and reads it back inside the transaction); the second
    // expects the old head, so the whole commit rolls back.
    assert.throws(() => c.commit([request, { ...request, expectHead: head }], undefined, 1n), (e: unknown) => (e as { sqlstate?: string }).sqlstate === '40001');
    assert.equal(c.getRef(t.id, 'main')!.snapshotId, head, 'the rolled-back head is not served from the cache');
    assert.equal(c.listSnapshots(t.id).length, 1);
  } finally {
    place.dispose();
  }
});

/** A change file row as a commit adds it (its path names no real file: nothing reads it here). */
/** The end of a synchronous run: the catalog reads data_version once per run. */
const nextRun = (): Promise<void> => new Promise((r) => setImmediate(r));

test('the catalog\'s own transactions and commits keep its cached definitions; refs, new snapshots and other connections\' commits are read afresh', async () => {
  const place = backend().place();
  const c = place.connect();
  try {
    const t = c.createTable({
      namespace: 'public', name: 't', columns: [{ id: 1, name: 'k', type: { kind: 'int4' }, nullable: false }],
      primaryKey: ['k'], partitionBy: [], properties: {}, nextFieldId: 2,
    } as never, 0n, false).table;
    await nextRun();
    const table = c.getTableById(t.id)!;
    const namespaces = c.listNamespaces();
    // What every statement's privilege checks read.
    const definitions = () => [c.roles.list(), c.roles.memberships(), c.privileges.list(), c.rowPolicies.policies(), c.replication.listPublications(), c.replication.listSlots(), c.listOptimizingStates()];
    const read = definitions();
    const head = c.getRef(t.id, 'main')!.snapshotId;
    // Read before they exist (a snapshot id the next commit will take): absent, and no files.
    assert.equal(c.getSnapshot(t.id, head + 1n), undefined);
    assert.deepEqual(c.visibleFiles(t.id, head + 1n), []);
    await nextRun();

    const request = (seq: bigint, path: string) => oneChangeFileWrite(t, seq, path);
    const seq = c.beginTxn('txn-1', process.pid, 1n);
    await nextRun();
    assert.equal(c.getTableById(t.id), table, 'beginTxn keeps the cached table');
    const [first] = c.commit([request(seq, 'a.parquet')], 'txn-1', 2n);
    await nextRun();
    assert.equal(first!.id, head + 1n);
    assert.equal(c.getTableById(t.id), table, 'a commit keeps the cached table');
    assert.equal(c.listNamespaces(), namespaces, 'and the namespaces');
    definitions().forEach((d, i) => assert.equal(d, read[i], `and definition read ${i} (roles, members, grants, policies, publications, slots, optimizing states)`));
    assert.equal(c.getRef(t.id, 'main')!.snapshotId, first!.id, 'the ref it moved is read afresh');
    assert.equal(c.getSnapshot(t.id, first!.id)?.id, first!.id, 'a snapshot read before it existed is read afresh');
    assert.deepEqual(c.visibleFiles(t.id, first!.id).map((f) => f.path), ['a.parquet'], 'and so are its files');

    // The log store's apply, likewise.
    c.registerLogWriter({ id: 'w', pid: process.pid, host: 'h' }, 3n);
    await nextRun();
    const defined = c.getTableById(t.id);
    const readAgain = definitions();
    const seq2 = c.beginTxn('txn-2', process.pid, 4n);
    const [applied] = c.applyLoggedCommits('w', [{ requests: [request(seq2, 'b.parquet')], txnId: 'txn-2', lsn: 1n }], 10n, 5n);
    assert.ok(applied!.ok);
    await nextRun();
    assert.equal(c.getTableById(t.id), defined, 'an applied logged commit keeps the cached table');
    definitions().forEach((d, i) => assert.equal(d, readAgain[i], `and definition read ${i}`));
    const second = c.getRef(t.id, 'main')!.snapshotId;
    assert.notEqual(second, first!.id);
    assert.deepEqual(c.visibleFiles(t.id, second).map((f) => f.path), ['a.parquet', 'b.parquet']);

    // Another connection commits, then this catalog writes: that write must not make the cache look current.
    const other = place.connectAsAnotherProcess();
    other.createNamespace('elsewhere', false);
    other.updateTable(t.id, { name: 'moved' });
    await nextRun();
    c.beginTxn('txn-3', process.pid, 6n);
    assert.ok(c.listNamespaces().includes('elsewhere'));
    assert.equal(c.getTableById(t.id)!.name, 'moved');
    await nextRun();
    c.endTxn('txn-3', 7n);
    assert.ok(c.listNamespaces().includes('elsewhere'));
  } finally {
    place.dispose();
  }
});

test('the materialized views\' ids, read by every statement, are kept through commits; creating or dropping a view anywhere is seen at once', async () => {
  const place = backend().place();
  const c = place.connect();
  const other = place.connectAsAnotherProcess();
  try {
    assert.deepEqual(c.materializedViewIds(), []);
    const column = [{ id: 1, name: 'k', type: { kind: 'int4' }, nullable: false }];
    const t = c.createTable({ namespace: 'public', name: 't', columns: column, primaryKey: ['k'], partitionBy: [], properties: {}, nextFieldId: 2 } as never, 0n, false).table;
    const mv = c.createMaterializedView({ namespace: 'public', name: 'mv', columns: column, primaryKey: ['k'], partitionBy: [], properties: {}, nextFieldId: 2 } as never,
      { definition: 'SELECT k FROM t', searchPath: ['public'], dependsOn: [t.id], options: [], fullRefreshReason: undefined }, 0n);
    await nextRun();
    const ids = c.materializedViewIds();
    assert.deepEqual(ids, [mv.id], 'the catalog\'s own CREATE is seen');
    const seq = c.beginTxn('txn-1', process.pid, 1n);
    c.commit([oneChangeFileWrite(t, seq, 'a.parquet')], 'txn-1', 2n);
    await nextRun();
    assert.equal(c.materializedViewIds(), ids, 'a commit keeps the cached ids');
    other.dropTable(mv.id);
    await nextRun();
    assert.deepEqual(c.materializedViewIds(), [], 'another process\'s DROP is seen');
    assert.deepEqual(c.listMaterializedViews(), []);
  } finally {
    place.dispose();
  }
});
});
