/**
 * What every `floe` command does with its command line, so they all behave alike:
 * `--help` (or `-h`) is a HelpRequest that carries the command's usage, which the CLI
 * prints to stdout, and the command does nothing else (exit 0); a line that cannot be
 * parsed (an unknown flag, a missing value, a stray argument) is a UsageError that
 * carries the usage, which the CLI prints to stderr with exit status 2. Commands print
 * neither themselves, so the CLI's one runner (src/cli/floe-cli.ts) decides where both go.
 */

/** The line asked for help: the command stops, and the CLI prints `usage` to stdout. */
export class HelpRequest extends Error {
  constructor(readonly usage: string) {
    super(usage);
    this.name = 'HelpRequest';
  }
}

/** A command line the command cannot take: the reason, then its usage. */
export class UsageError extends Error {
  constructor(reason: string, readonly usage: string) {
    super(`${reason}\n${usage}`);
    this.name = 'UsageError';
  }
}

/** True when the line asks for help (before a `--`, after which everything is positional). */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** Parses a command's line with `parse` (node:util's parseArgs, usually); throws HelpRequest when the line asks for help. */
export function parseCommandLine<R>(usage: string, argv: readonly string[], parse: (args: string[]) => R): R {
  if (wantsHelp(argv)) throw new HelpRequest(usage);
  try {
    return parse([...argv]);
  } catch (e) {
    // parseArgs' own errors (ERR_PARSE_ARGS_UNKNOWN_OPTION, …) say what was wrong, not how to do it right.
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) throw new UsageError((e as Error).message, usage);
    throw e;
  }
}

/** A flag's value that must be a positive number (an integer when `integer`); otherwise a UsageError naming the flag. */
export function positiveOption(flag: string, text: string | undefined, usage: string, integer: boolean): number {
  const n = Number(text);
  if (!(n > 0) || (integer && !Number.isInteger(n))) throw new UsageError(`${flag} must be a positive ${integer ? 'integer' : 'number'}, got ${text}`, usage);
  return n;
}
