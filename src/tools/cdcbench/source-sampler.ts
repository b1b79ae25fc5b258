import { repeatWithClient } from './repeat-with-client.js';

/** One reading of the source, once a second. */
export interface SourceSample {
  readonly atMs: number;
  /** WAL bytes the subscription's slot has not confirmed as flushed (pg_replication_slots). */
  readonly lagBytes: number;
  /** Rows inserted, updated and deleted in the source's tables so far (pg_stat_user_tables). */
  readonly rowChanges: number;
}

/**
 * Reads the source's replication lag for `slot` and its row-change counters every
 * `everyMs` until stopped. PostgreSQL publishes table counters when a backend's transaction
 * ends (at most once a second), so row changes per period are good to about a second.
 */
export function sampleSource(sourceUrl: string, slot: string, everyMs = 1000): { samples: SourceSample[]; stop(): Promise<void> } {
  const samples: SourceSample[] = [];
  const loop = repeatWithClient(sourceUrl, everyMs, async (client, startedMs) => {
    const r = await client.query<{ lag: string | null; changes: string | null }>(
      `SELECT (SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint FROM pg_replication_slots WHERE slot_name = $1) AS lag,
              (SELECT sum(n_tup_ins + n_tup_upd + n_tup_del)::bigint FROM pg_stat_user_tables) AS changes`,
      [slot],
    );
    samples.push({ atMs: startedMs, lagBytes: Number(r.rows[0]?.lag ?? 0), rowChanges: Number(r.rows[0]?.changes ?? 0) });
  });
  return { samples, stop: () => loop.stop() };
}
