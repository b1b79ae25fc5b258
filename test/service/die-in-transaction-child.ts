/**
 * Child process: begins a transaction on table public.kv, writes to it, and SIGKILLs
 * itself with the transaction open, as a gateway killed under a client's BEGIN would.
 * argv: <warehouse dir>.
 */
import { openWarehouse } from '../../src/lake/index.js';

const wh = await openWarehouse({ path: process.argv[2]! });
const table = wh.getTable('public', 'kv')!;
const tx = await wh.begin();
await tx.upsert(table, 'main', [[999n], ['never committed']]);
process.kill(process.pid, 'SIGKILL');
