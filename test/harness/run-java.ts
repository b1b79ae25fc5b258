import { runCommand } from './run-command.js';
import type { CommandResult, RunOptions } from './run-command.js';

export const PGJDBC_JAR = '/usr/share/java/postgresql.jar';

/**
 * Runs a single-file Java program (java's source-file mode, so no javac step)
 * with pgjdbc on the classpath.
 */
export function runJava(sourceFile: string, args: readonly string[], opts: RunOptions = {}): Promise<CommandResult> {
  return runCommand('java', ['-Xshare:auto', '-XX:TieredStopAtLevel=1', '-cp', PGJDBC_JAR, sourceFile, ...args], {
    timeoutMs: 120_000,
    ...opts,
  });
}
