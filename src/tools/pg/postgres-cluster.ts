import { execFile, execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../free-port.js';

const execFileAsync = promisify(execFile);
const PG_BIN = '/usr/lib/postgresql/15/bin';

export interface PostgresClusterOptions {
  /**
   * True: fsync, full_page_writes and synchronous_commit at PostgreSQL's defaults (a peer to
   * measure commits against). False (the tests' default): all three off, for speed.
   */
  readonly durable?: boolean;
  /** Extra `-c name=value` server settings. */
  readonly settings?: Readonly<Record<string, string>>;
  /** A fixed port; an OS-chosen free one when omitted. */
  readonly port?: number;
}

/** A throwaway PostgreSQL 15 cluster in a temp dir, owned by this process. */
export interface PostgresCluster {
  /** postgres://postgres@127.0.0.1:port/postgres */
  readonly adminUrl: string;
  readonly port: number;
  readonly dataDir: string;
  /** Starts the stopped cluster again (after `crash`), resolving once it accepts connections. */
  start(): Promise<void>;
  /** `pg_ctl stop -m immediate`: no checkpoint, so the next start runs crash recovery. */
  crash(): Promise<void>;
  /** `pg_ctl stop -m fast`: a clean shutdown (walsenders send what is left, then a checkpoint); `start` runs it again. */
  shutdown(): Promise<void>;
  /** Stops the cluster and removes its directory. */
  stop(): Promise<void>;
}

/**
 * initdb's a cluster into a temp dir and starts it on loopback. PostgreSQL refuses to run as
 * root, so as root initdb and pg_ctl run as the `postgres` user (runuser). The cluster is
 * stopped when this process exits or is signalled, even without `stop()`.
 */
export async function startPostgresCluster(opts: PostgresClusterOptions = {}): Promise<PostgresCluster> {
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
  const durable = opts.durable === true;
  await run('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C.UTF-8', ...(durable ? [] : ['--no-sync'])]);
  const port = opts.port ?? await freePort();
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    max_connections: '60',
    shared_buffers: '16MB',
    TimeZone: 'UTC',
    ...(durable ? {} : { fsync: 'off', full_page_writes: 'off', synchronous_commit: 'off' }),
    ...opts.settings,
  };
  const options = [`-p ${port}`, `-k ${sockDir}`, ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`)].join(' ');
  const start = async () => {
    await run('pg_ctl', ['-D', dataDir, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '600', 'start']);
  };
  const immediateStop = () => run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
  await start();
  let stopped = false;
  // A process that ends without calling stop() (a failed before hook, process.exit) must not leave a server behind.
  const onExit = () => {
    if (stopped) return;
    try {
      const argv = [join(PG_BIN, 'pg_ctl'), '-D', dataDir, '-m', 'immediate', '-w', 'stop'];
      if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', ...argv], { stdio: 'ignore' });
      else execFileSync(argv[0]!, argv.slice(1), { stdio: 'ignore' });
    } catch { /* already stopped, or exiting anyway */ }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  // SIGTERM/SIGINT (a runner's timeout, Ctrl-C) skip 'exit' handlers unless someone exits explicitly.
  const onSignal = (sig: NodeJS.Signals) => {
    onExit();
    process.kill(process.pid, sig);
  };
  const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
  for (const sig of signals) process.once(sig, onSignal);
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    start,
    crash: async () => { await immediateStop(); },
    shutdown: async () => { await run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '600', 'stop']); },
    async stop() {
      if (stopped) return;
      stopped = true;
      process.off('exit', onExit);
      for (const sig of signals) process.off(sig, onSignal);
      try {
        await immediateStop();
      } catch { /* already stopped (crashed and not restarted) */ }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}
