import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

export interface FloeServerOptions {
  /** Warehouse directory; a fresh temp dir (removed on stop) when omitted. */
  readonly dataDir?: string;
  /** Extra `floe serve` flags. */
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

export interface FloeServer {
  readonly host: string;
  readonly port: number;
  /** The management server's port (`--http-port 0`: OS-chosen), undefined with `--no-http`. */
  readonly httpPort: number | undefined;
  readonly dataDir: string;
  readonly user: string;
  readonly database: string;
  readonly url: string;
  /** Everything the server logged so far (JSON lines), for failure messages. */
  log(): string;
  /**
   * Resolves with the log once it matches `pattern`; rejects with the log after `timeoutMs`.
   * A record reaches the test through a pipe some time after the act it records, so a test
   * that asserts on the log waits for it rather than reading it once.
   */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

/**
 * FLOE_TEST_CATALOG_URL=postgres://… runs every gateway a test starts on a PostgreSQL catalog
 * there, in a schema per warehouse directory (a restart on the directory finds its tables),
 * unless the test chose a catalog itself: the gateway
 * tests as a check of the PostgreSQL catalog (by hand; CI runs them on SQLite, and the
 * catalog tests on both). Exported for CLI commands a test runs on the same warehouse (`floe user add`).
 */
export function catalogFlags(dataDir: string, args: readonly string[]): string[] {
  const url = process.env.FLOE_TEST_CATALOG_URL;
  if (url === undefined || url === '' || args.includes('--catalog')) return [];
  return ['--catalog', url, '--catalog-schema', `test_${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16)}`];
}

/**
 * Starts the real gateway exactly as a user would (`floe serve`, through tsx)
 * on a fresh warehouse and an OS-chosen port; resolves once it listens.
 */
export async function startFloe(opts: FloeServerOptions = {}): Promise<FloeServer> {
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'floe-wh-'));
  // FLOE_TEST_GATEWAY_NODE_FLAGS (space-separated, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") goes to the
  // gateway's node only: NODE_OPTIONS refuses --cpu-prof, and would profile the test process too.
  const nodeFlags = (process.env.FLOE_TEST_GATEWAY_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');
  const child = spawn(
    process.execPath,
    [...nodeFlags, '--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts'), 'serve', '--port', '0', '--http-port', '0', '--host', '127.0.0.1', '--data', dataDir,
      ...catalogFlags(dataDir, opts.args ?? []), ...(opts.args ?? [])],
    { cwd: REPO_ROOT, env: { ...process.env, FLOE_LOG_FORMAT: 'json', ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // Never outlive the test process, even when it ends without calling stop().
  const killOnExit = () => child.kill('SIGKILL');
  const onSignal = (sig: NodeJS.Signals) => {
    killOnExit();
    process.kill(process.pid, sig);
  };
  const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
  process.once('exit', killOnExit);
  for (const sig of signals) process.once(sig, onSignal);
  child.once('exit', () => {
    process.off('exit', killOnExit);
    for (const sig of signals) process.off(sig, onSignal);
  });
  let logText = '';
  const { port, httpPort } = await new Promise<{ port: number; httpPort: number | undefined }>((resolvePort, reject) => {
    let pending = '';
    const timer = setTimeout(() => reject(new Error(`floe did not start within 60 s:\n${logText}`)), 60_000);
    const onLine = (line: string) => {
      try {
        const rec = JSON.parse(line) as { msg?: string; port?: number; httpPort?: number };
        if (rec.msg === 'listening' && typeof rec.port === 'number') {
          clearTimeout(timer);
          resolvePort({ port: rec.port, httpPort: rec.httpPort });
        }
      } catch { /* not a log record */ }
    };
    child.stdout!.on('data', (b: Buffer) => {
      const s = b.toString('utf8');
      logText += s;
      pending += s;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        onLine(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
    });
    child.stderr!.on('data', (b: Buffer) => { logText += b.toString('utf8'); });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`floe exited with ${code} before listening:\n${logText}`));
    });
  });
  let stopped = false;
  return {
    host: '127.0.0.1',
    port,
    httpPort,
    dataDir,
    user: 'floe',
    database: 'floe',
    url: `postgres://floe@127.0.0.1:${port}/floe`,
    log: () => logText,
    async waitForLog(pattern, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(logText)) {
        if (Date.now() > deadline) throw new Error(`the log did not match ${pattern} within ${timeoutMs} ms:\n${logText.slice(-4000)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return logText;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopChild(child);
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  // 'close', not 'exit': the last records written before exit are read only by then.
  const exited = new Promise<void>((r) => child.once('close', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
