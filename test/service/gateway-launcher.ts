/**
 * Child process of the gateway crash test: `floe serve`, with its start-up split in two so
 * a kill-and-restart costs little. It loads the gateway's modules first (most of a start),
 * then waits for one line "go <JSON array of serve arguments>" on stdin and runs the real
 * src/cli/main.ts with them, exactly as `floe serve …` would. The test starts the next
 * gateway's loading while the current one runs.
 */
import { createInterface } from 'node:readline';

// Transpiled ahead (test/harness/transpiled-child.ts), this file is .js, and so is main's.
const main = new URL(`../../src/cli/main.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
// The modules floe serve imports (src/cli/serve-command.ts), loaded ahead; importing main.ts itself would start it.
const [, , , sql] = await Promise.all([
  import('../../src/exec/index.js'),
  import('../../src/lake/index.js'),
  import('../../src/session/index.js'),
  import('../../src/sql/index.js'),
  import('../../src/sql/system-catalog/index.js'),
  import('../../src/wire/index.js'),
  import('pino'),
  import('../../src/service/optimizing/optimizing-scheduler.js'),
  import('../../src/service/optimizing/housekeeping.js'),
  import('../../src/service/optimizing/optimizer-pool.js'),
  import('../../src/cli/serve-command.js'),
]);
// The SQL parser's WASM is ready before "go", as everything else is. The scan pool is not:
// serve makes it with its own --scan-threads.
await sql.loadSqlParser();
process.stdout.write('loaded\n');
const line = await new Promise<string>((resolve) => {
  const rl = createInterface({ input: process.stdin });
  rl.once('line', (l) => { rl.close(); resolve(l); });
});
const args = JSON.parse(line.replace(/^go /, '')) as string[];
process.argv = [process.argv[0]!, main.pathname, ...args];
await import(main.href);
