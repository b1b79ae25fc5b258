import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Catalog } from '../catalog/catalog.js';
import { SqliteCatalog } from '../catalog/sqlite/sqlite-catalog.js';
import { PostgresCatalog } from '../catalog/postgres/postgres-catalog.js';
import { openStorage } from '../storage/open-storage.js';
import type { StorageConfig } from '../storage/storage-config.js';
import { LogStore } from '../log/log-store.js';
import { replayDeadWriters } from '../log/replay-dead-writers.js';
import type { LogReplay } from '../log/replay-dead-writers.js';
import type { LogLocation } from '../log/log-location.js';
import type { Warehouse, WarehouseOptions } from './warehouse.js';
import type { CatalogConfig } from '../catalog/catalog-config.js';
import { DEFAULT_BOOTSTRAP_SUPERUSER } from '../security/role-metadata.js';
import { WarehouseImpl } from './warehouse-impl.js';

/** Opens (creating if needed) a warehouse: by default a SQLite catalog and data files under `path`; `path` holds the local state in any case. */
export async function openWarehouse(opts: WarehouseOptions): Promise<Warehouse> {
  mkdirSync(opts.path, { recursive: true });
  // Absolute, because scan tasks carry the config into workers and other processes.
  const catalogConfig = opts.catalog ?? { kind: 'sqlite' };
  const storageConfig: StorageConfig = sharedLogStorage(opts.storage ?? { kind: 'local', root: resolve(opts.path) }, catalogConfig.kind);
  const storage = openStorage(storageConfig);
  // A wrong bucket or credentials fail the start, not the first query.
  await storage.checkReachable?.();
  const catalog = openCatalog(opts.path, catalogConfig, opts.firstTableId);
  catalog.roles.ensureBootstrap(opts.superuser ?? DEFAULT_BOOTSTRAP_SUPERUSER, null);
  const staleMs = opts.staleTransactionMs ?? 60_000;
  let log: LogStore | undefined;
  let replay: LogReplay | undefined;
  // The log store's records are read through the data store by their `log/` keys. One host:
  // segment files under the warehouse root, or (data on S3) under the config's logRoot,
  // beside the SQLite catalog. A shared PostgreSQL catalog with data on S3 means gateways on
  // several hosts: there the log is objects in the bucket, which every gateway can read
  // (docs/design-notes.md, "The log store on object storage").
  const logLocation: LogLocation | undefined = storageConfig.kind === 'local' ? { kind: 'directory', root: storageConfig.root }
    : catalogConfig.kind === 'postgres' ? { kind: 'objects', storage }
      : storageConfig.logRoot === undefined ? undefined : { kind: 'directory', root: storageConfig.logRoot };
  if (logLocation !== undefined) {
    // Before anything reads: commits a dead process acknowledged are only in its log.
    replay = await replayDeadWriters(catalog, logLocation, staleMs);
    if (replay.writers > 0) opts.logger?.info({ ...replay }, 'log replayed');
    if (opts.log !== false) {
      log = await LogStore.open(catalog, {
        location: logLocation, storage, heartbeatMs: Math.max(50, Math.floor(staleMs / 4)),
        ...(opts.log?.maxTransactionBytes === undefined ? {} : { maxTransactionBytes: opts.log.maxTransactionBytes }),
        ...(opts.log?.segmentBytes === undefined ? {} : { segmentBytes: opts.log.segmentBytes }),
        ...(opts.log?.releaseGraceMs === undefined ? {} : { releaseGraceMs: opts.log.releaseGraceMs }),
        ...(opts.logger === undefined ? {} : { logger: opts.logger }),
      });
    }
  }
  return new WarehouseImpl(opts.path, catalog, storage, storageConfig, opts.logger, staleMs, opts.sequenceBlock, log, replay, opts.commitObserver);
}

/** The catalog alone (SQLite under `path` unless configured otherwise), for tools that change no data: `floe user`. */
export function openCatalog(path: string, config: CatalogConfig, firstTableId?: number): Catalog {
  switch (config.kind) {
    case 'sqlite': return new SqliteCatalog(config.path ?? join(path, 'catalog.db'), firstTableId === undefined ? {} : { firstTableId });
    case 'postgres': return new PostgresCatalog({ url: config.url, ...(config.schema === undefined ? {} : { schema: config.schema }) });
  }
}

/**
 * With a PostgreSQL catalog and data on S3 the log's objects go to the bucket, so no key may
 * route to a local directory: every host's scans must find them where they were written.
 */
function sharedLogStorage(config: StorageConfig, catalog: 'sqlite' | 'postgres'): StorageConfig {
  if (config.kind !== 's3' || catalog !== 'postgres' || config.logRoot === undefined) return config;
  const { logRoot: _local, ...shared } = config;
  return shared;
}
