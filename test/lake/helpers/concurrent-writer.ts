/**
 * Child process for the two-process test: upserts into one table of a shared warehouse
 * and prints one JSON line per acknowledged commit.
 * argv: <warehouse dir> <writer id> <commits> <optimize every n commits (0: never)>
 */
import { openWarehouse } from '../../../src/lake/index.js';

const [dir, idArg, commitsArg, optArg] = process.argv.slice(2);
const writer = Number(idArg);
const wh = await openWarehouse({ path: dir! });
const t = wh.getTable('public', 'shared')!;
for (let i = 0; i < Number(commitsArg); i++) {
  const tx = await wh.begin();
  const ids = [0n, BigInt(writer * 100_000 + i)];
  await tx.upsert(t, 'main', [ids, ids.map(() => `${writer}:${i}`)]);
  const snap = await tx.commit();
  process.stdout.write(`${JSON.stringify({ writer, i, seq: String(tx.seq), snapshot: String(snap!.id) })}\n`);
  if (Number(optArg) > 0 && i % Number(optArg) === 0) await wh.optimize(t);
}
await wh.close();
