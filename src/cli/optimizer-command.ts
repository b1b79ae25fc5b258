import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { stopOnSignal } from './stop-on-signal.js';
import { openWarehouse } from '../lake/index.js';
import { UsageError, parseCommandLine } from '../tools/command-line.js';
import { OPTIMIZER_FLAGS, createOptimizingRuntime, parseOptimizerFlags } from './optimizing-runtime.js';
import { WAREHOUSE_FLAGS, WAREHOUSE_USAGE, warehouseLocation } from '../tools/warehouse-location.js';

const OPTIMIZER_USAGE = `usage: floe optimizer [--group NAME ...] [--optimizer-threads 1] [--optimizer-memory 1GB] [--optimizer-nice 19]
${WAREHOUSE_USAGE}
  The self-optimizing service and housekeeping of a warehouse without a wire server, until SIGTERM (--data is required).
  --group (repeatable) optimizes only the tables of those optimizer groups; default: every group.`;

/**
 * `floe optimizer --data DIR`: the self-optimizing scheduler and housekeeping of a
 * warehouse without a wire server, until SIGTERM (the scale-out shape: a gateway with
 * --optimizer-threads 0 and one or more of these). Processes share groups, claims and
 * history through the catalog, whose claims are leases, so they never both take a table.
 */
export async function runOptimizerCommand(argv: string[], logger: Logger): Promise<void> {
  const parsed = parseCommandLine(OPTIMIZER_USAGE, argv, (args) => parseArgs({ args, options: { ...WAREHOUSE_FLAGS, ...OPTIMIZER_FLAGS, group: { type: 'string', multiple: true } } }));
  const { values } = parsed;
  if (values.data === undefined) throw new UsageError('optimizer: --data DIR is required (the warehouse a gateway serves)', OPTIMIZER_USAGE);
  const location = warehouseLocation(values, OPTIMIZER_USAGE);
  const dataDir = location.dir;
  // A SQLite catalog lives in the directory; a PostgreSQL one is elsewhere, and the directory only holds local state.
  if (location.catalog === undefined && !existsSync(dataDir)) throw new Error(`no warehouse at ${dataDir}`);
  const flags = parseOptimizerFlags(values);
  const warehouse = await openWarehouse({
    path: dataDir, logger: logger.child({ component: 'lake' }), ...(location.storage === undefined ? {} : { storage: location.storage }),
    ...(location.catalog === undefined ? {} : { catalog: location.catalog }),
  });
  const groups = values.group;
  const known = new Set(['default', ...warehouse.listOptimizerGroups().map((g) => g.name)]);
  const missing = groups?.find((g) => !known.has(g));
  if (missing !== undefined) {
    await warehouse.close();
    throw new Error(`optimizer group "${missing}" does not exist (CREATE OPTIMIZER GROUP makes one)`);
  }
  const runtime = createOptimizingRuntime(warehouse, { ...flags, logger: logger.child({ component: 'optimizer' }), ...(groups === undefined ? {} : { groups }) });
  runtime.start();
  logger.info({
    data: location.data, ...(location.catalogShown === undefined ? {} : { catalog: location.catalogShown }), optimizerThreads: flags.threads, groups: groups ?? 'all',
  }, 'optimizer running');
  // Timers are unref'd: this keeps the process alive until a signal ends it.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  stopOnSignal(logger, 'stopping optimizer', async () => {
    await runtime.stop();
    await warehouse.close();
    clearInterval(keepAlive);
  });
}
