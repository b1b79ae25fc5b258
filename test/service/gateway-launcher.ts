/**
 * Child process of the gateway crash test: `floe serve`, with its start-up split in two so
 * a kill-and-restart costs little. It loads the gateway's modules first (most of a start),
 * then waits for one line "go <JSON array of serve arguments>" on stdin and runs the real
 * src/cli/main.ts with them, exactly as `floe serve …` would. The test starts the next
 * gateway's loading while the current one runs.
 */
import { createInterface } from 'node:readline';

const main = new URL('../../src/cli/main.ts', import.meta.url);
// The modules main.ts imports, loaded ahead; importing main.ts itself would start it.
await Promise.all([
  import('../../src/exec/index.js'),
  import('../../src/lake/index.js'),
  import('../../src/session/index.js'),
  import('../../src/sql/index.js'),
  import('../../src/sql/system-catalog/index.js'),
  import('../../src/wire/index.js'),
  import('pino'),
  // The service layer, once it exists (src/service has no index in older trees).
  import(new URL('../../src/service/index.ts', import.meta.url).href).catch(() => undefined),
]);
process.stdout.write('loaded\n');
const line = await new Promise<string>((resolve) => {
  const rl = createInterface({ input: process.stdin });
  rl.once('line', (l) => { rl.close(); resolve(l); });
});
const args = JSON.parse(line.replace(/^go /, '')) as string[];
process.argv = [process.argv[0]!, main.pathname, ...args];
await import(main.href);
if (process.env['FLOE_TEST_EMBED_SCHEDULER'] === '1') await embedScheduler(args[args.indexOf('--data') + 1]!);

/**
 * Until `floe serve` runs the self-optimizing scheduler itself, the crash test runs one in
 * the gateway's process (so the kill takes both), on its own handle to the warehouse.
 */
async function embedScheduler(dir: string): Promise<void> {
  const { openWarehouse } = await import('../../src/lake/index.js');
  const { OptimizingScheduler } = await import('../../src/service/optimizing/optimizing-scheduler.js');
  new OptimizingScheduler({ warehouse: await openWarehouse({ path: dir }) }).start();
}
