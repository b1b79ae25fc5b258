import { randomUUID } from 'node:crypto';
import type { LakeContext } from '../warehouse/lake-context.js';
import { nowMicros } from '../warehouse/lake-context.js';

/**
 * Registers an optimize run like a transaction while it runs, heartbeat and all, so orphan
 * cleanup spares the files it has written but not yet committed. Its seq is at or above
 * the low watermark it folds below: it holds nothing back. The registration ends with the
 * run, committed or not. A table rewrite (rewrite-table-layout.ts) registers the same way,
 * and writes its rows under the seq it gets.
 */
export async function withOptimizerRegistration<T>(ctx: LakeContext, run: (txnId: string, seq: bigint) => Promise<T>, kind = 'optimize'): Promise<T> {
  const { catalog } = ctx;
  const txnId = `${kind}-${randomUUID()}`;
  const seq = catalog.beginTxn(txnId, process.pid, nowMicros(), BigInt(ctx.staleTransactionMs) * 250n);
  const heartbeat = setInterval(() => {
    try { catalog.heartbeatTxn(txnId, nowMicros()); } catch { /* the commit reports it */ }
  }, Math.max(50, Math.floor(ctx.staleTransactionMs / 4)));
  heartbeat.unref();
  try {
    return await run(txnId, seq);
  } finally {
    clearInterval(heartbeat);
    try { catalog.endTxn(txnId, nowMicros()); } catch { /* committed, or already gone */ }
  }
}
