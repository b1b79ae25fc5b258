import type { TableMetadata, Warehouse } from '../../src/lake/index.js';

/**
 * What the passing of time does to a killed gateway's holds, done at once so a crash test
 * need not wait for it: its open transactions (a writer's, the optimizer's) would be
 * aborted as stale after staleTransactionMs (60 s) and its optimizing claim retaken after
 * the scheduler's lease (60 s). Until then the low watermark stays at the dead
 * transaction's seq (nothing newer is folded) and the table is not optimized again.
 * Call it only while no process uses the warehouse: every holder is dead then.
 * `wh` must be opened with a tiny staleTransactionMs.
 */
export async function expireDeadHolders(wh: Warehouse, table: TableMetadata): Promise<{ claims: number }> {
  // Aborts stale transactions and, with a cut-off of 0, expires nothing.
  await wh.expireSnapshots(table, { olderThanMicros: 0n, retainLast: 1_000_000 });
  let claims = 0;
  let states;
  try { states = wh.listOptimizingStates(); } catch { return { claims }; } // no optimizing catalog in this tree
  for (const s of states) {
    if (s.status === 'idle') continue;
    // A heartbeat from the epoch: any scheduler sees the lease run out.
    wh.saveOptimizingState({ ...s, heartbeatMicros: 0n });
    claims++;
  }
  return { claims };
}
