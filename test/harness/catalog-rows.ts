import type { CommitRequest, NewFileRecord } from '../../src/lake/catalog/catalog.js';
import type { SqlCatalog } from '../../src/lake/catalog/sql-catalog.js';

/** A one-row data file record at `path` (a change file unless `store` says otherwise), for catalog-level tests. */
export function newFileRecord(path: string, store: 'change' | 'base' = 'change', seq = 1n): NewFileRecord {
  return {
    store, path, partitionKey: '', partitionValues: [], nodeMask: 0, nodeIndex: 0, rowCount: 1, sizeBytes: 10,
    seq, firstOffset: 0, stats: {}, dvTarget: undefined, dvPositions: undefined, rowGroups: undefined, keyBitmap: undefined,
  };
}

/** A keyed table `public.<name>` (k int4 primary key) created straight in the catalog: its id and schema id. */
export function createKeyedTable(c: SqlCatalog, name = 't'): { readonly id: number; readonly schemaId: number } {
  const t = c.createTable({
    namespace: 'public', name, columns: [{ id: 1, name: 'k', type: { kind: 'int4' }, nullable: false }],
    primaryKey: ['k'], partitionBy: [], properties: {}, nextFieldId: 2,
  } as never, 0n, false).table;
  return { id: t.id, schemaId: t.schemaId };
}

/** A write to table `t`'s main branch of one change file at `path`, written by the transaction of `seq`. */
export function oneChangeFileWrite(t: { readonly id: number; readonly schemaId: number }, seq: bigint, path: string): CommitRequest {
  return {
    tableId: t.id, branch: 'main', operation: 'write', summary: {}, schemaId: t.schemaId, removeFileIds: [],
    addFiles: [newFileRecord(path, 'change', seq)],
  };
}
