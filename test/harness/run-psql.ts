import { runCommand } from './run-command.js';
import type { CommandResult, RunOptions } from './run-command.js';

export interface ConnectTarget {
  readonly port: number;
  readonly host?: string;
  readonly user?: string;
  readonly database?: string;
}

/**
 * psql 15 with no ~/.psqlrc (-X), talking TCP to 127.0.0.1. Extra args come
 * after the connection flags, e.g. ['-c', 'select 1'] or ['-f', file].
 */
export function runPsql(target: ConnectTarget, args: readonly string[], opts: RunOptions = {}): Promise<CommandResult> {
  return runCommand(
    'psql',
    ['-X', '-h', target.host ?? '127.0.0.1', '-p', String(target.port), '-U', target.user ?? 'floe', '-d', target.database ?? 'floe', ...args],
    { ...opts, env: { PGCONNECT_TIMEOUT: '10', PAGER: '', PSQL_PAGER: '', TZ: 'UTC', PGTZ: 'UTC', ...opts.env } },
  );
}
