/**
 * Child process of the lookup changelog crash test: two concurrent writers on one warehouse
 * with the log store on, each committing blind upserts and deletes by key of keys 0..15 to
 * the lookup table `kv` until the process is SIGKILLed (a 40001 from the other writer is
 * retried by the next commit). Prints "ack" after each commit. argv: <warehouse dir> <seed>.
 */
import { isFloeError } from '../../../src/common/floe-error.js';
import { openWarehouse } from '../../../src/lake/index.js';
import { RandomStream } from '../../../src/tools/tpch/random-stream.js';

const [dir, seedText] = process.argv.slice(2);
const stream = new RandomStream(Number(seedText));
const below = (n: number): number => Math.floor(stream.next() * n);
const wh = await openWarehouse({ path: dir!, log: { maxTransactionBytes: 4096 } });
const t = wh.getTable('public', 'kv')!;
process.stdout.write('open\n');

async function client(c: number): Promise<void> {
  for (let i = 0; ; i++) {
    const tx = await wh.begin();
    try {
      const ids = Array.from({ length: 1 + below(4) }, () => below(16));
      await tx.upsert(t, 'main', [ids, ids.map((id) => `c${c}-${i}-${id}`)]);
      if (below(3) === 0) await tx.deleteKeys(t, 'main', [[below(16)]]);
      await tx.commit();
      process.stdout.write('ack\n');
    } catch (e) {
      if (!(isFloeError(e) && e.sqlstate === '40001')) throw e;
      await tx.abort();
    }
  }
}

await Promise.all([client(0), client(1)]);
