import type { TableMetadata, Warehouse } from '../../lake/index.js';
import { ProgressLine } from './progress-line.js';
import type { TpchBatch } from './tpch-generator.js';
import { TPCH_TABLES } from './tpch-schema.js';
import type { TpchTableName } from './tpch-schema.js';

export interface FloeLoadOptions {
  readonly namespace?: string;
  /** Replace existing TPC-H tables of the namespace (default: fail if one exists). */
  readonly replace?: boolean;
  readonly progress?: ProgressLine;
}

/** Creates the eight TPC-H tables, each keyed by its primary key. */
export async function createTpchTables(warehouse: Warehouse, opts: FloeLoadOptions = {}): Promise<Map<TpchTableName, TableMetadata>> {
  const namespace = opts.namespace ?? 'public';
  const tables = new Map<TpchTableName, TableMetadata>();
  for (const t of TPCH_TABLES) {
    if (opts.replace === true) await warehouse.dropTable(namespace, t.name, { ifExists: true });
    const meta = await warehouse.createTable({
      namespace,
      name: t.name,
      columns: t.columns.map((c) => ({ name: c.name, type: c.type, nullable: false })),
      primaryKey: [...t.primaryKey],
    });
    tables.set(t.name, meta);
  }
  return tables;
}

/**
 * Writes batches through the lake's normal write path: one transaction per batch
 * (begin, insert or upsert, commit), so memory stays bounded by the batch size.
 */
export async function writeTpchBatches(
  warehouse: Warehouse,
  batches: Iterable<TpchBatch>,
  mode: 'insert' | 'upsert',
  opts: FloeLoadOptions = {},
): Promise<number> {
  const namespace = opts.namespace ?? 'public';
  let rows = 0;
  for (const batch of batches) {
    const table = warehouse.getTable(namespace, batch.table);
    if (table === undefined) throw new Error(`table ${namespace}.${batch.table} does not exist`);
    const txn = await warehouse.begin();
    try {
      if (mode === 'insert') await txn.insert(table, 'main', batch.columns);
      else await txn.upsert(table, 'main', batch.columns);
      await txn.commit();
    } catch (e) {
      if (txn.state === 'open') await txn.abort();
      throw e;
    }
    rows += batch.rowCount;
    opts.progress?.add(batch.rowCount, batch.table);
  }
  return rows;
}

/** Folds every table's change files into base files (the "optimized tables" of the benchmark); `log` gets a line per table. */
export async function optimizeTpchTables(warehouse: Warehouse, namespace = 'public', log?: (line: string) => void): Promise<void> {
  for (const t of TPCH_TABLES) {
    const table = warehouse.getTable(namespace, t.name);
    if (table === undefined) continue;
    const t0 = performance.now();
    const r = await warehouse.optimize(table);
    log?.(`  optimize ${t.name}: ${r.nodesOptimized} node(s), ${r.nodesSplit} split, ${r.changeFilesFolded} change files folded, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
}
