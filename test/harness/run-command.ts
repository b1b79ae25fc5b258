import { spawn } from 'node:child_process';

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly input?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Kill the program after this many milliseconds (default 60 s) so a hung client cannot hang the suite. */
  readonly timeoutMs?: number;
  /** Send stderr into stdout in the order the program wrote them (through sh's 2>&1). */
  readonly mergeStderr?: boolean;
}

/** Runs a program to completion, feeding `input` on stdin; never throws on a non-zero exit. */
export function runCommand(cmd: string, args: readonly string[], opts: RunOptions = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const [file, argv] = opts.mergeStderr ? ['sh', ['-c', 'exec "$@" 2>&1', 'sh', cmd, ...args]] : [cmd, args];
    const child = spawn(file, argv, {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
    child.stdin.on('error', () => { /* the program may exit before reading all input */ });
    child.stdin.end(opts.input ?? '');
  });
}
