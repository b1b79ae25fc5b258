import pg from 'pg';
import { SHARED, uniqueKey } from '../lake/crash/crash-model.js';

/** A client committing the crash model's stream through the wire until its gateway dies. */
export interface AcknowledgedWriter {
  /** Commits whose COMMIT returned, in order. */
  readonly acks: number[];
  /** Resolves when the connection is gone; rejects on any error other than losing it. */
  readonly done: Promise<void>;
}

const CONNECTION_LOST = /Connection terminated|ECONNRESET|EPIPE|ECONNREFUSED|not queryable|terminated unexpectedly/;

/**
 * Commit i, as one transaction: blind upserts of unique key U(i) and shared key
 * S(i mod SHARED), and when i % 7 === 0 (i >= 10) a delete by key of U(i - 10). The same
 * stream as test/lake/crash/crash-writer.ts, so expectedRows() describes it.
 */
export function startAcknowledgedWriter(port: number, first: number): AcknowledgedWriter {
  const acks: number[] = [];
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'floe', database: 'floe' });
  // The kill surfaces here as well as on the pending query.
  client.on('error', () => undefined);
  const done = (async () => {
    try {
      await client.connect();
      for (let i = first; ; i++) {
        await client.query('BEGIN');
        await client.query('INSERT INTO crash (id, v) VALUES ($1, $2), ($3, $4) ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v',
          [String(uniqueKey(i)), `u${i}`, String(i % SHARED), `s${i}`]);
        if (i % 7 === 0 && i >= 10) await client.query('DELETE FROM crash WHERE id = $1', [String(uniqueKey(i - 10))]);
        await client.query('COMMIT');
        acks.push(i);
      }
    } catch (e) {
      if (!CONNECTION_LOST.test((e as Error).message)) throw e;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return { acks, done };
}
