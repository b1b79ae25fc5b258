import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from './run-command.js';
import type { CommandResult } from './run-command.js';
import type { ConnectTarget } from './run-psql.js';

export const PSQLODBC_DRIVER = '/usr/lib/x86_64-linux-gnu/odbc/psqlodbcw.so';

/**
 * unixODBC's isql against psqlODBC, configured through a throwaway
 * odbcinst.ini/odbc.ini so nothing outside the temp dir is touched.
 * `sql` holds one statement per line; output is batch mode with a header row
 * and '|' between fields.
 */
export async function runIsql(target: ConnectTarget, sql: string, extraDsn: Readonly<Record<string, string>> = {}): Promise<CommandResult> {
  const dir = mkdtempSync(join(tmpdir(), 'floe-odbc-'));
  try {
    writeFileSync(join(dir, 'odbcinst.ini'), `[PostgreSQL Unicode]\nDescription=psqlODBC\nDriver=${PSQLODBC_DRIVER}\n`);
    const dsn: Record<string, string> = {
      Driver: 'PostgreSQL Unicode',
      Servername: target.host ?? '127.0.0.1',
      Port: String(target.port),
      Database: target.database ?? 'floe',
      Username: target.user ?? 'floe',
      Password: '',
      SSLmode: 'disable',
      ...extraDsn,
    };
    writeFileSync(join(dir, 'odbc.ini'), `[floe]\n${Object.entries(dsn).map(([k, v]) => `${k}=${v}`).join('\n')}\n`);
    return await runCommand('isql', ['floe', '-b', '-c', '-d|', '-v'], {
      input: sql.endsWith('\n') ? sql : `${sql}\n`,
      env: { ODBCSYSINI: dir, ODBCINI: join(dir, 'odbc.ini') },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
