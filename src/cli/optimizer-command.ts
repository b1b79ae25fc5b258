import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { openWarehouse } from '../lake/index.js';
import { UsageError, parseCommandLine } from '../tools/command-line.js';
import { OPTIMIZER_FLAGS, createOptimizingRuntime, parseOptimizerFlags } from './optimizing-runtime.js';

const OPTIMIZER_USAGE = `usage: floe optimizer --data DIR [--optimizer-threads 1] [--optimizer-memory 1GB]
  The self-optimizing service and housekeeping of a warehouse without a wire server, until SIGTERM.`;

/**
 * `floe optimizer --data DIR`: the self-optimizing scheduler and housekeeping of a
 * warehouse without a wire server, until SIGTERM (the scale-out shape: a gateway with
 * --optimizer-threads 0 and one or more of these). Processes share groups, claims and
 * history through the catalog, whose claims are leases, so they never both take a table.
 */
export async function runOptimizerCommand(argv: string[], logger: Logger): Promise<void> {
  const parsed = parseCommandLine(OPTIMIZER_USAGE, argv, (args) => parseArgs({ args, options: { data: { type: 'string' }, ...OPTIMIZER_FLAGS } }));
  const { values } = parsed;
  if (values.data === undefined) throw new UsageError('optimizer: --data DIR is required (the warehouse a gateway serves)', OPTIMIZER_USAGE);
  const dataDir = resolve(values.data);
  if (!existsSync(dataDir)) throw new Error(`no warehouse at ${dataDir}`);
  const flags = parseOptimizerFlags(values);
  const warehouse = await openWarehouse({ path: dataDir, logger: logger.child({ component: 'lake' }) });
  const runtime = createOptimizingRuntime(warehouse, { ...flags, logger: logger.child({ component: 'optimizer' }) });
  runtime.start();
  logger.info({ data: dataDir, optimizerThreads: flags.threads }, 'optimizer running');
  // Timers are unref'd: this keeps the process alive until a signal ends it.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(1), 15_000).unref();
    try {
      logger.info({ signal }, 'stopping optimizer');
      await runtime.stop();
      await warehouse.close();
      clearInterval(keepAlive);
      logger.info('stopped');
      logger.flush?.();
      process.exit(0);
    } catch (err) {
      try { logger.error({ err }, 'error while stopping'); } finally { process.exit(1); }
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
