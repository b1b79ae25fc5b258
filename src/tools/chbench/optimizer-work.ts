import pg from 'pg';

/** What the self-optimizing service did to one table in one period (from floe_optimizing_history). */
export interface OptimizerWork {
  readonly table: string;
  readonly processes: number;
  /** Wall time of its processes: thread time, as each holds one optimizer thread. */
  readonly busyMs: number;
  /** Processes that committed a snapshot (folds, splits, merges). */
  readonly folds: number;
  /** Processes that compacted change files in place (no snapshot, files written). */
  readonly compactions: number;
  readonly bytesIn: number;
  readonly failed: number;
}

/**
 * The service's processes that started in [from, to), per table, so a report can say where
 * the optimizer's thread went in each period. Empty when the gateway has no such view.
 */
export async function readOptimizerWork(url: string, from: Date, to: Date): Promise<OptimizerWork[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query<Record<string, string | null>>(
      `SELECT table_name, count(*) AS processes, sum(duration_ms) AS busy_ms, sum(bytes_in) AS bytes_in,
              sum(CASE WHEN snapshot_id IS NOT NULL THEN 1 ELSE 0 END) AS folds,
              sum(CASE WHEN snapshot_id IS NULL AND files_out > 0 THEN 1 ELSE 0 END) AS compactions,
              sum(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) AS failed
         FROM floe_optimizing_history
        WHERE started >= '${from.toISOString()}'::timestamptz AND started < '${to.toISOString()}'::timestamptz
        GROUP BY table_name ORDER BY table_name`,
    ).catch(() => ({ rows: [] as Record<string, string | null>[] }));
    const n = (v: string | null | undefined) => Number(v ?? 0);
    return r.rows.map((row) => ({
      table: String(row.table_name), processes: n(row.processes), busyMs: n(row.busy_ms), folds: n(row.folds),
      compactions: n(row.compactions), bytesIn: n(row.bytes_in), failed: n(row.failed),
    }));
  } finally {
    await client.end();
  }
}
