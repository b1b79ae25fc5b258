import type { CommitObserver } from './commit-observer.js';
import type { Catalog, TableRecord } from '../catalog/catalog.js';
import type { LogStore } from '../log/log-store.js';
import type { Storage } from '../storage/storage.js';
import type { StorageConfig } from '../storage/storage-config.js';
import type { TableMetadata } from '../table/table-metadata.js';
import type { LakeLogger } from './warehouse.js';

/** What the parts of an open warehouse share. */
export interface LakeContext {
  readonly catalog: Catalog;
  readonly storage: Storage;
  readonly storageConfig: StorageConfig;
  readonly logger: LakeLogger | undefined;
  readonly staleTransactionMs: number;
  /** This process's log store; absent when the warehouse was opened without one (then every commit goes straight to the catalog). */
  readonly log?: LogStore;
  readonly commitObserver?: CommitObserver;
}

export function nowMicros(): bigint {
  return BigInt(Date.now()) * 1000n;
}

export function toTableMetadata(r: TableRecord): TableMetadata {
  return {
    id: r.id, namespace: r.namespace, name: r.name, columns: withIndexedColumns(r), primaryKey: r.primaryKey,
    partitionBy: r.partitionBy, properties: r.properties, constraints: r.constraints, schemaId: r.schemaId,
  };
}

/** The record's columns, those a plain index covers marked `indexed` (their files get value filters). */
function withIndexedColumns(r: TableRecord): TableRecord['columns'] {
  const indexed = new Set((r.constraints ?? []).flatMap((c) => (c.kind === 'index' ? c.columns : [])));
  if (indexed.size === 0) return r.columns;
  return r.columns.map((c) => (indexed.has(c.name) ? { ...c, indexed: true } : c));
}
