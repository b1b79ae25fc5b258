import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Catalog } from '../catalog/catalog.js';
import { SqliteCatalog } from '../catalog/sqlite-catalog.js';
import { openStorage } from '../storage/open-storage.js';
import type { StorageConfig } from '../storage/storage-config.js';
import type { Warehouse, WarehouseOptions } from './warehouse.js';
import { WarehouseImpl } from './warehouse-impl.js';

/** Opens (creating if needed) a warehouse: by default a SQLite catalog and data files under `path`. */
export async function openWarehouse(opts: WarehouseOptions): Promise<Warehouse> {
  mkdirSync(opts.path, { recursive: true });
  // Absolute, because scan tasks carry the config into workers and other processes.
  const storageConfig: StorageConfig = opts.storage ?? { kind: 'local', root: resolve(opts.path) };
  const catalogConfig = opts.catalog ?? { kind: 'sqlite' };
  let catalog: Catalog;
  switch (catalogConfig.kind) {
    case 'sqlite': catalog = new SqliteCatalog(catalogConfig.path ?? join(opts.path, 'catalog.db')); break;
  }
  return new WarehouseImpl(opts.path, catalog, openStorage(storageConfig), storageConfig, opts.logger, opts.staleTransactionMs ?? 60_000, opts.sequenceBlock);
}
