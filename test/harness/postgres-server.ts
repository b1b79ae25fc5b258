import { execFile, execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.js';

const execFileAsync = promisify(execFile);
const PG_BIN = '/usr/lib/postgresql/15/bin';

export interface PostgresServer {
  /** postgres://user@127.0.0.1:port/db */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly database: string;
  /** A URL of the server's maintenance database, for cluster-wide setup (roles). */
  readonly adminUrl: string;
  stop(): Promise<void>;
}

/**
 * A PostgreSQL 15 to compare Floe against. CI shares one server through
 * FLOE_TEST_PG_URL, so each caller gets its own database there; locally we
 * initdb a throwaway cluster (PostgreSQL refuses to run as root, hence runuser).
 */
export async function startPostgres(): Promise<PostgresServer> {
  const shared = process.env.FLOE_TEST_PG_URL;
  if (shared !== undefined && shared !== '') return createDatabaseOn(shared);
  return startLocalCluster();
}

async function createDatabaseOn(adminUrl: string): Promise<PostgresServer> {
  const admin = new URL(adminUrl);
  const database = `floe_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${database}`));
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const user = decodeURIComponent(admin.username || 'postgres');
  return {
    url: url.toString(),
    host: admin.hostname,
    port: Number(admin.port || 5432),
    user,
    database,
    adminUrl,
    async stop() {
      await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    },
  };
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function startLocalCluster(): Promise<PostgresServer> {
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'floe-pg-'));
  const dataDir = join(dir, 'data');
  const sockDir = join(dir, 'sock');
  mkdirSync(sockDir);
  if (asRoot) {
    const { uid, gid } = postgresIds();
    chownSync(dir, uid, gid);
    chownSync(sockDir, uid, gid);
  }
  const run = (bin: string, args: string[]) =>
    asRoot
      ? execFileAsync('runuser', ['-u', 'postgres', '--', join(PG_BIN, bin), ...args])
      : execFileAsync(join(PG_BIN, bin), args);
  const user = 'postgres';
  await run('initdb', ['-D', dataDir, '-A', 'trust', '-U', user, '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${sockDir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=60 -c shared_buffers=16MB -c TimeZone=UTC`;
  await run('pg_ctl', ['-D', dataDir, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  let stopped = false;
  // A test process that ends without calling stop() (a failed before hook, process.exit) must not leave a server behind.
  const onExit = () => {
    if (stopped) return;
    try {
      const argv = [join(PG_BIN, 'pg_ctl'), '-D', dataDir, '-m', 'immediate', '-w', 'stop'];
      if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', ...argv], { stdio: 'ignore' });
      else execFileSync(argv[0]!, argv.slice(1), { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    } catch { /* best effort while exiting */ }
  };
  process.once('exit', onExit);
  // SIGTERM/SIGINT (a runner's timeout, Ctrl-C) skip 'exit' handlers unless someone exits explicitly.
  const onSignal = (sig: NodeJS.Signals) => {
    onExit();
    process.kill(process.pid, sig);
  };
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(sig, onSignal);
  const stopCluster = async () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', onExit);
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.off(sig, onSignal);
    try {
      await run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    // Same shape as the shared-server case: the caller gets a database of its own.
    const db = await createDatabaseOn(`postgres://${user}@127.0.0.1:${port}/postgres`);
    return { ...db, stop: stopCluster };
  } catch (e) {
    await stopCluster();
    throw e;
  }
}

function postgresIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}
