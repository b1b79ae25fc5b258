#!/usr/bin/env node
// Runs the TypeScript CLI through tsx (Floe has no build step).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
// Resolved from here, not from the caller's directory, so `floe` works from anywhere.
const tsx = import.meta.resolve('tsx');
// V8's GC helper threads only compete with the scan workers, which the pool sizes to the
// cores: single-threaded GC made the TPC-H SF 1 geomean 11% faster on 2 cores (src/exec/README.md).
const child = spawn(process.execPath, ['--single-threaded-gc', '--import', tsx, main, ...process.argv.slice(2)], { stdio: 'inherit' });
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
