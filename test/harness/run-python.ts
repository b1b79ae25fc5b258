import { runCommand } from './run-command.js';
import type { CommandResult, RunOptions } from './run-command.js';

/** Debian's python3, which is the one with psycopg2 and SQLAlchemy 1.4 installed. */
export const SYSTEM_PYTHON = '/usr/bin/python3';

export function runPython(scriptFile: string, args: readonly string[], opts: RunOptions = {}): Promise<CommandResult> {
  return runCommand(SYSTEM_PYTHON, [scriptFile, ...args], opts);
}
