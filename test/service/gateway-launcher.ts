/**
 * Child process of the gateway crash tests: `floe serve`, with its start-up split in two so
 * a kill-and-restart costs little. It loads the gateway's modules first (most of a start),
 * then waits for one line "go <JSON array of serve arguments>" on stdin and runs the CLI
 * with them as src/cli/main.ts does, exactly as `floe serve …` would. The test starts the
 * next gateway's loading while the current one runs. It runs bundled into one file
 * (test/harness/bundled-child.ts), so main.ts is not imported: a second copy of the modules
 * would load. main.ts itself would start the CLI on import, before "go".
 */
import { createInterface } from 'node:readline';
import { runFloe } from '../../src/cli/floe-cli.js';

// The modules floe serve imports (src/cli/serve-command.ts), loaded ahead.
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
process.argv = [process.argv[0]!, process.argv[1]!, ...args];
// What src/cli/main.ts does with `floe …`'s arguments.
void runFloe(args, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then((code) => {
  if (code !== 0) process.exit(code);
});
