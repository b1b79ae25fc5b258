/**
 * Child process of the crash-safety test: commits, optimizes, expires and cleans up in
 * a loop until it is SIGKILLed, printing "ack <i>" after commit i returned.
 * Commit i upserts unique key U(i) and shared key S(i mod SHARED); when i % 7 === 0 it
 * also deletes U(i - 10). argv: <warehouse dir>. It loads its modules, then waits for
 * "go <first i>" on stdin, so the test can start the next child while this one runs.
 */
import { createInterface } from 'node:readline';
import { openWarehouse } from '../../../src/lake/index.js';
import { SHARED, uniqueKey } from './crash-model.js';

const [dir] = process.argv.slice(2);
const firstArg = await new Promise<string>((resolve) => {
  const rl = createInterface({ input: process.stdin });
  rl.once('line', (line) => { rl.close(); resolve(line.replace(/^go /, '')); });
});
// A killed predecessor's open transaction is swept as stale after 1.5 s, freeing the watermark.
const wh = await openWarehouse({ path: dir!, staleTransactionMs: 1500 });
const t = wh.getTable('public', 'crash')!;
for (let i = Number(firstArg); ; i++) {
  const tx = await wh.begin();
  await tx.upsert(t, 'main', [[uniqueKey(i), BigInt(i % SHARED)], [`u${i}`, `s${i}`]]);
  if (i % 7 === 0 && i >= 10) await tx.deleteKeys(t, 'main', [[uniqueKey(i - 10)]]);
  await tx.commit();
  process.stdout.write(`ack ${i}\n`);
  if (i % 3 === 0) await wh.optimize(t);
  if (i % 10 === 0) await wh.expireSnapshots(t, { olderThanMicros: BigInt(Date.now()) * 1000n, retainLast: 3 });
  if (i % 25 === 0) await wh.removeOrphanFiles(t, { olderThanMicros: BigInt(Date.now() - 2000) * 1000n });
}
