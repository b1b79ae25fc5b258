import type pg from 'pg';
import type { CommitStamps } from '../chbench/chbench-driver.js';
import { repeatWithClient } from './repeat-with-client.js';

/** The table each source transaction stamps; published with the TPC-C tables. */
export const STAMP_TABLE = 'cdc_stamp';

export const CREATE_STAMP_TABLE = `CREATE TABLE ${STAMP_TABLE} (id bigint PRIMARY KEY, stamped_at timestamptz NOT NULL)`;

/** One source transaction's way into Floe: acknowledged on the source at `ackAtMs`, first read on Floe `ms` later. */
export interface FreshnessSample {
  readonly ackAtMs: number;
  readonly ms: number;
}

/**
 * Source commit → seen by a reader of Floe. Each writing source transaction inserts a row
 * with a new id just before its COMMIT; a poller reads Floe's copy of the table every
 * `pollMs`, and a row's figure is the start of the first poll that returned it minus the
 * moment the source acknowledged the COMMIT (both on this process's clock). It errs high by
 * up to one poll's start-to-start time: the interval, or the poll's own query time when that
 * is longer. The tracker also tells which acknowledged commits never showed.
 */
export class FreshnessTracker implements CommitStamps {
  readonly samples: FreshnessSample[] = [];
  #nextId = 1;
  /** Stamped, COMMIT not yet answered. */
  readonly #inFlight = new Set<number>();
  /** Acknowledged, not yet seen on Floe: id → ack time. */
  readonly #acknowledged = new Map<number, number>();
  /** Seen on Floe before its ack reached the client: id → first seen. */
  readonly #seenEarly = new Map<number, number>();
  readonly #done = new Set<number>();

  next(): { id: number; sql: string } {
    const id = this.#nextId++;
    this.#inFlight.add(id);
    return { id, sql: `INSERT INTO ${STAMP_TABLE} (id, stamped_at) VALUES (${id}, clock_timestamp())` };
  }

  settled(id: number, acknowledgedAtMs: number | undefined): void {
    this.#inFlight.delete(id);
    if (acknowledgedAtMs === undefined) return;
    const seen = this.#seenEarly.get(id);
    if (seen === undefined) {
      this.#acknowledged.set(id, acknowledgedAtMs);
      return;
    }
    this.#seenEarly.delete(id);
    this.#record(id, acknowledgedAtMs, 0);
  }

  /** Acknowledged transactions Floe has not shown yet. */
  get pending(): number {
    return this.#acknowledged.size;
  }

  /** The lowest id a poll must still ask for. */
  floor(): number {
    let low = this.#nextId;
    for (const id of this.#inFlight) if (id < low) low = id;
    for (const id of this.#acknowledged.keys()) if (id < low) low = id;
    return low;
  }

  /** Ids a poll that started at `atMs` returned. */
  seen(ids: readonly number[], atMs: number): void {
    for (const id of ids) {
      if (this.#done.has(id)) continue;
      const ack = this.#acknowledged.get(id);
      if (ack !== undefined) {
        this.#acknowledged.delete(id);
        this.#record(id, ack, Math.max(0, atMs - ack));
      } else if (!this.#seenEarly.has(id)) {
        this.#seenEarly.set(id, atMs);
      }
    }
  }

  #record(id: number, ackAtMs: number, ms: number): void {
    this.#done.add(id);
    this.samples.push({ ackAtMs, ms });
  }
}

/** One stamped source transaction's commit in Floe: stamped on the source at `stampedAtMs`, committed in Floe `ms` later. */
export interface CommitSample {
  readonly stampedAtMs: number;
  readonly ms: number;
}

/**
 * Source commit → committed in Floe, for every stamp Floe holds: the commit time of the
 * Floe snapshot that added the row (t$audit_log joined with t$snapshots), minus the
 * stamp's own time on the source (clock_timestamp() just before COMMIT, so the figure errs
 * high by the source's commit). The two clocks are one unless the source runs on another
 * machine (`--source`), where their skew enters the figure. Unlike a poller's
 * figure, it holds no reader's query time: the row is visible from that commit on.
 */
export async function readCommitTimes(client: pg.Client): Promise<CommitSample[]> {
  const r = await client.query<{ stamped_at: Date; committed_at: Date }>(
    `SELECT a.stamped_at, s.committed_at FROM ${STAMP_TABLE}$audit_log a JOIN ${STAMP_TABLE}$snapshots s ON s.snapshot_id = a._commit_snapshot_id WHERE a._change_type = 'INSERT'`,
  );
  return r.rows.map((row) => ({ stampedAtMs: row.stamped_at.getTime(), ms: Math.max(0, row.committed_at.getTime() - row.stamped_at.getTime()) }));
}

/** Polls Floe for stamps every `pollMs` until `stop` is called, which resolves when the loop has ended. */
export function pollStamps(floeUrl: string, tracker: FreshnessTracker, pollMs: number): { stop(): Promise<void> } {
  return repeatWithClient(floeUrl, pollMs, async (client, startedMs) => {
    const r = await client.query<{ id: string }>(`SELECT id FROM ${STAMP_TABLE} WHERE id >= ${tracker.floor()}`);
    tracker.seen(r.rows.map((row) => Number(row.id)), startedMs);
  });
}
