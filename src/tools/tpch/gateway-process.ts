import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../cli/main.ts', import.meta.url));

/** A `floe serve` child on 127.0.0.1 and an OS-chosen port, with its pid so its peak RSS can be read. */
export interface GatewayProcess {
  readonly url: string;
  readonly pid: number;
  /** VmHWM of the child in bytes (Linux), or undefined where /proc is absent. */
  peakRss(): number | undefined;
  /** CPU the child used so far (all threads, and its main thread alone) and its RSS now (Linux), or undefined where /proc is absent. */
  usage(): GatewayUsage | undefined;
  /** True once the child has exited (crashed, killed or stopped). */
  exited(): boolean;
  /** SIGKILL, as a crash would; resolves once the child is gone. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export interface GatewayUsage {
  readonly cpuMs: number;
  readonly mainThreadCpuMs: number;
  readonly rssBytes: number;
}

export interface GatewayOptions {
  /** Sees each line the gateway writes to stdout (JSON log records), as it arrives. */
  readonly onLine?: (line: string) => void;
  /** Extra node flags for the child, before the script (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
  readonly nodeArgs?: readonly string[];
  /** Added to the environment the child inherits (credentials, say). */
  readonly env?: Readonly<Record<string, string>>;
}

/** `args` are extra `floe serve` flags (e.g. `--optimizer-threads 1`). */
export async function startGateway(dataDir: string, args: readonly string[] = [], opts: GatewayOptions = {}): Promise<GatewayProcess> {
  // Started as `floe serve` is (bin/floe.js, npm start): with single-threaded GC.
  const child = spawn(process.execPath, ['--single-threaded-gc', ...(opts.nodeArgs ?? []), '--import', 'tsx', MAIN, 'serve', '--port', '0', '--http-port', '0', '--host', '127.0.0.1', '--data', dataDir, ...args], {
    env: { ...process.env, FLOE_LOG_FORMAT: 'json', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  // A signal (Ctrl-C, a runner's timeout) skips 'exit' handlers: kill the child, then die of the signal.
  const onSignal = (sig: NodeJS.Signals) => {
    killOnExit();
    process.kill(process.pid, sig);
  };
  const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
  for (const sig of signals) process.once(sig, onSignal);
  child.once('exit', () => {
    for (const sig of signals) process.off(sig, onSignal);
  });
  let log = '';
  const port = await new Promise<number>((resolve, reject) => {
    let pending = '';
    child.stdout!.on('data', (b: Buffer) => {
      pending += b.toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        log += `${line}\n`;
        opts.onLine?.(line);
        try {
          const rec = JSON.parse(line) as { msg?: string; port?: number };
          if (rec.msg === 'listening' && typeof rec.port === 'number') resolve(rec.port);
        } catch { /* not a log record */ }
      }
    });
    child.stderr!.on('data', (b: Buffer) => { log += b.toString('utf8'); });
    child.once('exit', (code) => reject(new Error(`floe serve exited with ${code}:\n${log}`)));
  });
  return {
    url: `postgres://floe@127.0.0.1:${port}/floe`,
    pid: child.pid!,
    peakRss: () => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        return m === null ? undefined : Number(m[1]) * 1024;
      } catch {
        return undefined;
      }
    },
    usage: () => processUsage(child.pid!),
    exited: () => child.exitCode !== null || child.signalCode !== null,
    kill: async () => {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGKILL');
      await exited;
    },
    stop: () => stopChild(child, killOnExit),
  };
}

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

function processUsage(pid: number): GatewayUsage | undefined {
  try {
    // utime and stime are fields 14 and 15; the command name (field 2) may hold spaces, so count after its ')'.
    const cpu = (stat: string) => {
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return ((Number(f[11]) + Number(f[12])) * 1000) / USER_HZ;
    };
    const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return {
      cpuMs: cpu(readFileSync(`/proc/${pid}/stat`, 'utf8')),
      mainThreadCpuMs: cpu(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')),
      rssBytes: rss === null ? 0 : Number(rss[1]) * 1024,
    };
  } catch {
    return undefined;
  }
}

async function stopChild(child: ChildProcess, killOnExit: () => void): Promise<void> {
  process.off('exit', killOnExit);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
