import { HelpRequest, UsageError, wantsHelp } from '../tools/command-line.js';

const BENCH_USAGE = `usage: floe bench tpch [bench|load|generate] --sf N …   (floe bench tpch --help for the options)`;

const USAGE = `usage: floe COMMAND [options]   (floe COMMAND --help for a command's options)
  floe serve       the PostgreSQL gateway on an embedded warehouse
  floe optimizer   the self-optimizing service and housekeeping without a wire server
  floe user add    a user who may connect with a password
  floe load        a CSV or Parquet file into a table
  floe bench tpch  TPC-H against DuckDB`;

/** Where the CLI prints usage and errors (the process's stdout and stderr; a test's buffers). */
export interface CliOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** 0: done (or, for serve and optimizer, running until a signal); 1: the command failed; 2: the command line was wrong (as getopt-style tools say). */
export type CliExitCode = 0 | 1 | 2;

/**
 * Runs one `floe` command line: usage asked for goes to `out.stdout`, a failure to
 * `out.stderr` as "floe: reason". Each command's modules load only when it runs, so help
 * and a wrong command line cost no more than this file.
 */
export async function runFloe(argv: readonly string[], out: CliOutput): Promise<CliExitCode> {
  try {
    await runCommand(argv);
    return 0;
  } catch (err) {
    if (err instanceof HelpRequest) {
      out.stdout(`${err.usage}\n`);
      return 0;
    }
    out.stderr(`floe: ${err instanceof Error ? err.message : String(err)}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
}

async function runCommand(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve': return (await import('./serve-command.js')).runServeCommand(rest);
    case 'optimizer': {
      const [{ runOptimizerCommand }, { createLogger }] = await Promise.all([import('./optimizer-command.js'), import('./cli-logger.js')]);
      return runOptimizerCommand(rest, createLogger());
    }
    case 'user': return (await import('./user-command.js')).runUserCommand(rest);
    case 'bench': return benchCommand(rest);
    case 'load': return (await import('../tools/load/load-command.js')).runLoadCommand(rest);
    case undefined: case 'help': case '--help': case '-h':
      throw new HelpRequest(USAGE);
    default:
      throw new UsageError(`unknown command "${command}"`, USAGE);
  }
}

async function benchCommand(argv: readonly string[]): Promise<void> {
  const [suite, ...rest] = argv;
  if (suite === undefined || suite === 'help' || wantsHelp([suite])) throw new HelpRequest(BENCH_USAGE);
  if (suite !== 'tpch') throw new UsageError(`bench: unknown suite "${suite}"`, BENCH_USAGE);
  // Loaded on demand: the benchmark brings DuckDB, a development dependency the gateway never needs.
  const { runTpchCommand } = await import('../tools/tpch/tpch-command.js');
  await runTpchCommand(rest);
}
