import { existsSync, mkdirSync, statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FloeError, isFloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { openWarehouse } from '../../lake/index.js';
import { UsageError, parseCommandLine } from '../command-line.js';
import { WAREHOUSE_FLAGS, WAREHOUSE_USAGE, warehouseLocation } from '../warehouse-location.js';
import { ProgressLine } from '../tpch/progress-line.js';
import { BatchWriter } from './batch-writer.js';
import { loadCsv } from './csv-loader.js';
import { KeyGuard } from './key-guard.js';
import { loadParquet } from './parquet-loader.js';

export const LOAD_USAGE = `usage: floe load --table [schema.]name FILE
${WAREHOUSE_USAGE}
    [--format csv|parquet] [--header | --skip-header] [--delimiter ,] [--null '']
    [--batch-rows 100000] [--upsert] [--timezone UTC]
  Each batch of --batch-rows rows commits on its own: after an error the earlier batches stay loaded.`;

/** `floe load`: a CSV or Parquet file into an existing table through the lake's write path. */
export async function runLoadCommand(argv: string[]): Promise<void> {
  const parsed = parseCommandLine(LOAD_USAGE, argv, (args) => parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...WAREHOUSE_FLAGS,
      table: { type: 'string' },
      format: { type: 'string' },
      header: { type: 'boolean', default: false },
      'skip-header': { type: 'boolean', default: false },
      delimiter: { type: 'string', default: ',' },
      null: { type: 'string', default: '' },
      'batch-rows': { type: 'string', default: '100000' },
      upsert: { type: 'boolean', default: false },
      timezone: { type: 'string', default: 'UTC' },
    },
  }));
  const { values, positionals } = parsed;
  const file = positionals[0];
  if (values.table === undefined) throw new UsageError('load: --table is required', LOAD_USAGE);
  if (file === undefined || positionals.length > 1) throw new UsageError('load: one FILE is expected', LOAD_USAGE);
  const location = warehouseLocation(values, LOAD_USAGE);
  const dataDir = location.dir;
  // A mistyped --data must not create a new, empty warehouse (and report the table missing);
  // with a PostgreSQL catalog the directory only holds this process's local state.
  if (location.catalog === undefined && !existsSync(dataDir)) throw new Error(`no warehouse at ${dataDir}`);
  mkdirSync(dataDir, { recursive: true });
  const format = values.format ?? (/^\.(parquet|pq)$/i.test(extname(file)) ? 'parquet' : 'csv');
  if (format !== 'csv' && format !== 'parquet') throw new Error('--format must be csv or parquet');
  const batchRows = Number(values['batch-rows']);
  if (!Number.isInteger(batchRows) || batchRows < 1) throw new Error('--batch-rows must be a positive integer');
  if ([...values.delimiter!].length !== 1) throw new Error('--delimiter must be a single character');
  const dot = values.table.indexOf('.');
  const [namespace, name] = dot < 0 ? ['public', values.table] : [values.table.slice(0, dot), values.table.slice(dot + 1)];
  const path = resolve(file);
  let size: number;
  try {
    size = statSync(path).size;
  } catch (e) {
    process.stderr.write(`floe load: ERROR 58P01: could not open file "${path}": ${(e as Error).message}\n`);
    process.exitCode = 1;
    return;
  }

  const warehouse = await openWarehouse({
    path: dataDir, ...(location.storage === undefined ? {} : { storage: location.storage }),
    ...(location.catalog === undefined ? {} : { catalog: location.catalog }),
  });
  const progress = new ProgressLine(`load ${namespace}.${name}`);
  let fraction = 0;
  const pct = () => `${(fraction * 100).toFixed(1)}%`;
  let writer: BatchWriter | undefined;
  try {
    const table = warehouse.getTable(namespace, name);
    if (table === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${namespace}.${name}" does not exist`);
    const keyGuard = values.upsert ? undefined : KeyGuard.create(table);
    writer = new BatchWriter(warehouse, table, { batchRows, upsert: values.upsert!, keyGuard, onCommit: (rows) => progress.add(rows, pct()) });
    const settings = { timeZone: values.timezone! };
    if (format === 'csv') {
      await loadCsv(path, table, writer, {
        delimiter: values.delimiter!, null: values.null!, settings,
        header: values.header ? 'match' : values['skip-header'] ? 'skip' : 'none',
        onBytes: (n) => { fraction = size > 0 ? Math.min(1, n / size) : 1; },
      });
    } else {
      await loadParquet(path, table, writer, { settings, onFraction: (f) => { fraction = f; } });
    }
    await writer.flush();
    fraction = 1;
    progress.done(`${writer.committedBatches} batch${writer.committedBatches === 1 ? '' : 'es'}, ${pct()}`);
  } catch (e) {
    const committed = writer === undefined ? '' : `\n${writer.committedRows} rows in ${writer.committedBatches} earlier batches were committed; `
      + `the ${writer.pending} rows of the failing batch were not written`;
    const err = isFloeError(e) ? e : undefined;
    process.stderr.write(`floe load: ERROR ${err?.sqlstate ?? 'XX000'}: ${(e as Error).message ?? String(e)}\n`
      + (err?.detail === undefined ? '' : `DETAIL: ${err.detail}\n`) + (err?.hint === undefined ? '' : `HINT: ${err.hint}\n`)
      + `${committed.trimStart()}\n`);
    process.exitCode = 1;
  } finally {
    await warehouse.close();
  }
}
