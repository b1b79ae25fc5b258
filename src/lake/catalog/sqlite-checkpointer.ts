import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The worker's whole program, plain JavaScript (no loader needed): its own connection to the
 * database, a PASSIVE checkpoint every interval. PASSIVE copies what it can without waiting
 * for readers or writers; a busy database just waits for the next round.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.modulePath);
const db = new Database(workerData.path, { fileMustExist: true });
setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy or gone: the next round tries again */ }
}, workerData.intervalMs);
`;

/**
 * Checkpoints a SQLite database in WAL mode from a worker thread. A checkpoint copies the
 * WAL into the database and fsyncs both; run by the writing connection itself (SQLite's
 * autocheckpoint, every 1,000 pages, about every 90 logged commits), it stalls the event
 * loop, and every session's commit with it, for tens of milliseconds on a busy disk.
 */
export class SqliteCheckpointer {
  readonly #worker: Worker;

  private constructor(worker: Worker) {
    this.#worker = worker;
  }

  static start(path: string, intervalMs: number): SqliteCheckpointer {
    const modulePath = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { modulePath, path, intervalMs } });
    // Never what keeps a process alive, and a failed worker only means the writer's own autocheckpoint does the work.
    worker.unref();
    worker.on('error', () => undefined);
    return new SqliteCheckpointer(worker);
  }

  stop(): void {
    void this.#worker.terminate().catch(() => undefined);
  }
}
