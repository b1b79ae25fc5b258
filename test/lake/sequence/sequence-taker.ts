/**
 * Child process of the sequence durability test: opens the warehouse at argv[2] and prints
 * "v <value>" for every nextval of sequence id argv[3] (argv[4] values, or until killed).
 */
import { openWarehouse } from '../../../src/lake/index.js';

const [dir, id, count] = process.argv.slice(2);
const w = await openWarehouse({ path: dir! });
const n = count === undefined ? Infinity : Number(count);
for (let i = 0; i < n; i++) {
  process.stdout.write(`v ${w.nextSequenceValue(Number(id))}\n`);
  // Let the event loop flush stdout and the other process take its turn now and then.
  if (i % 16 === 0) await new Promise((r) => setImmediate(r));
}
await w.close();
