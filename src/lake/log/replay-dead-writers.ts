import { hostname } from 'node:os';
import { processAlive } from '../../common/process-alive.js';
import { FloeError } from '../../common/floe-error.js';
import { LOG_WRITER_TAKEN_OVER } from '../catalog/catalog.js';
import type { Catalog, LoggedCommit, LogWriterRecord } from '../catalog/catalog.js';
import { decodeLogCommit, decodeLogVoid } from './log-commit-record.js';
import { recoverWriterLog } from './log-location.js';
import type { LogLocation } from './log-location.js';

export interface LogReplay {
  readonly writers: number;
  readonly commits: number;
  /** Commit records whose apply failed again (their expected head moved): never acknowledged. */
  readonly skipped: number;
  readonly ms: number;
}

/**
 * Recovery (docs/design-notes.md, "Log store"): the logs of writers that are gone are
 * applied to the catalog from where each one stopped. Every `commit` record past the
 * writer's applied LSN that no `void` cancels is applied in order with the expectations
 * it was logged with; one that fails them was never acknowledged and is skipped. Then the
 * writer's row and its open transactions go; its segments stay while file rows point into them.
 * Two processes may replay one log at once (gateways starting together on several hosts):
 * the catalog applies each record once (applyLoggedCommits), and the one refused leaves
 * that writer to the other.
 */
export async function replayDeadWriters(catalog: Catalog, location: LogLocation, staleMs: number): Promise<LogReplay> {
  const started = performance.now();
  let writers = 0;
  let commits = 0;
  let skipped = 0;
  const now = BigInt(Date.now()) * 1000n;
  for (const w of catalog.listLogWriters()) {
    if (!isGone(w, now, staleMs)) continue;
    writers++;
    const pending: (LoggedCommit & { readonly end: bigint; readonly batch: bigint })[] = [];
    const voided = new Set<bigint>();
    let maxSeq = 0n;
    for await (const r of recoverWriterLog(location, w.id, w.appliedLsn)) {
      if (r.kind === 'void') { voided.add(decodeLogVoid(r.payload)); continue; }
      const { batch, seq, requests } = decodeLogCommit(r.payload, r.segmentKey, r.payloadOffset);
      if (seq > maxSeq) maxSeq = seq;
      // Its transaction's registration died with the process: apply without it.
      pending.push({ requests, txnId: undefined, lsn: r.lsn, end: r.end, batch });
    }
    const live = pending.filter((c) => !voided.has(c.lsn));
    // One catalog call per batch the writer applied in one: a commit rebased over earlier
    // commits of its batch (CommitRequest.rebaseWithinBatch) is judged as it was live.
    let takenOver = false;
    for (let i = 0; i < live.length && !takenOver;) {
      let j = i + 1;
      while (j < live.length && live[j]!.batch === live[i]!.batch) j++;
      const chunk = live.slice(i, j);
      try {
        const outcomes = catalog.applyLoggedCommits(w.id, chunk, chunk[chunk.length - 1]!.end, now);
        for (const o of outcomes) if (o.ok) commits++; else skipped++;
      } catch (e) {
        if (!(e instanceof FloeError && e.detail === LOG_WRITER_TAKEN_OVER)) throw e;
        takenOver = true;
      }
      i = j;
    }
    if (takenOver) continue;
    skipped += pending.length - live.length;
    if (maxSeq > 0n) catalog.raiseNextSeq(maxSeq + 1n);
    // Its open transactions can never commit: end them now rather than after the stale
    // timeout, so they stop holding the optimizer's low watermark down.
    if (w.host === hostname()) for (const t of catalog.listTxns()) if (t.pid === w.pid) catalog.endTxn(t.id, now);
    catalog.dropLogWriter(w.id);
  }
  return { writers, commits, skipped, ms: performance.now() - started };
}

/** Same host: its process is not running. Elsewhere: its heartbeat is older than the stale timeout. */
function isGone(w: LogWriterRecord, nowMicros: bigint, staleMs: number): boolean {
  if (w.host === hostname()) {
    if (!processAlive(w.pid)) return true;
  }
  return nowMicros - w.heartbeatMicros > BigInt(staleMs) * 1000n;
}
