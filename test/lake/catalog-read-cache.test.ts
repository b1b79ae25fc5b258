import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteCatalog } from '../../src/lake/catalog/sqlite-catalog.js';

/*
 * The SQLite catalog keeps its reads until the database changes: a write through the
 * same catalog, or a commit through another connection to the same file (another
 * process's gateway or CLI), must be seen by the very next read.
 */

test('cached catalog reads see this catalog\'s writes and other connections\' commits at once, and cannot be changed in place', () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-catalog-cache-'));
  const path = join(dir, 'catalog.db');
  const a = new SqliteCatalog(path);
  const b = new SqliteCatalog(path);
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
    a.close();
    b.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a commit that fails part way leaves no cached trace: the next read sees the branch head as it was', () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-catalog-cache-'));
  const c = new SqliteCatalog(join(dir, 'catalog.db'));
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
    c.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
