import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bundledNodeArgs } from '../harness/bundled-child.js';

const launcher = fileURLToPath(new URL('./gateway-launcher.ts', import.meta.url));

/** A running `floe serve` that the test may SIGKILL. */
export interface KillableGateway {
  readonly pid: number;
  readonly port: number;
  /** Milliseconds from "go" to listening: the cost of a restart once the modules are loaded. */
  readonly startMs: number;
  log(): string;
  /** SIGKILL, then wait for the process to be gone. */
  kill(): Promise<void>;
  /** SIGTERM (a clean stop), then wait. */
  stop(): Promise<void>;
}

/** A gateway process that has loaded its modules and waits to be started. */
export interface LoadedGateway {
  /** Resolves once the modules are loaded. */
  readonly loaded: Promise<void>;
  start(args: readonly string[]): Promise<KillableGateway>;
  /** Ends a gateway that was never started. */
  discard(): void;
}

/** Spawns a launcher; it loads the gateway's modules while the caller does other work. */
export function loadGateway(env: Readonly<Record<string, string>> = {}): LoadedGateway {
  const child = spawn(process.execPath, bundledNodeArgs(launcher), {
    env: { ...process.env, FLOE_LOG_FORMAT: 'json', ...env }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => { process.off('exit', killOnExit); resolve(); }));
  let logText = '';
  const lineListeners: ((line: string) => void)[] = [];
  let pending = '';
  child.stdout!.on('data', (b: Buffer) => {
    const s = b.toString('utf8');
    logText += s;
    pending += s;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      for (const l of lineListeners) l(line);
    }
  });
  child.stderr!.on('data', (b: Buffer) => { logText += b.toString('utf8'); });
  const loaded = new Promise<void>((resolve) => lineListeners.push((line) => { if (line === 'loaded') resolve(); }));
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    loaded,
    discard: () => { child.kill('SIGKILL'); },
    start: (args) => new Promise<KillableGateway>((resolve, reject) => {
      const begun = performance.now();
      const timer = setTimeout(() => reject(new Error(`floe did not start within 60 s:\n${logText}`)), 60_000);
      const onExit = () => { clearTimeout(timer); reject(new Error(`floe exited before listening:\n${logText}`)); };
      child.once('exit', onExit);
      lineListeners.push((line) => {
        let rec: { msg?: string; port?: number };
        try { rec = JSON.parse(line) as typeof rec; } catch { return; }
        if (rec.msg !== 'listening' || typeof rec.port !== 'number') return;
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve({
          pid: child.pid!, port: rec.port, startMs: performance.now() - begun,
          log: () => logText, kill: () => kill('SIGKILL'), stop: () => kill('SIGTERM'),
        });
      });
      child.stdin!.write(`go ${JSON.stringify(['serve', '--port', '0', '--http-port', '0', '--host', '127.0.0.1', ...args])}\n`);
    }),
  };
}
