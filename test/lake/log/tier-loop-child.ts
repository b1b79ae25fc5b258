import { openWarehouse } from '../../../src/lake/index.js';

/*
 * Tiers one table's log files over and over, reporting each swap as it is about to happen
 * ("swap"), so the parent can SIGKILL it at any point of the work (tiering.crash.test.ts).
 */
const [dir, name] = process.argv.slice(2) as [string, string];
const wh = await openWarehouse({ path: dir });
const t = wh.getTable('public', name)!;
process.stdout.write('ready\n');
for (;;) {
  const r = await wh.tierLogFiles(t, {
    beforeSwap: async () => {
      process.stdout.write('swap\n');
      await new Promise((resolve) => setTimeout(resolve, 2));
    },
  });
  if (r.filesIn === 0) process.stdout.write('idle\n');
  await new Promise((resolve) => setTimeout(resolve, 5));
}
