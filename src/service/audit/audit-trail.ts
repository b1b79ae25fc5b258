import type { TableMetadata } from '../../lake/index.js';
import type { ServiceLogger } from '../optimizing/optimizing-warehouse.js';
import type { AuditEvent } from './audit-event.js';
import type { AuditSpool } from './audit-spool.js';
import { auditLogFields, auditRowBytes, auditRowOf, isoMicros } from './audit-record.js';
import { deleteAuditRowsBefore } from './audit-retention.js';
import { auditColumns, ensureAuditTable, type AuditRow, type AuditWarehouse } from './audit-table.js';

export interface AuditTrailOptions {
  readonly warehouse: AuditWarehouse;
  /** Where each event's line goes (message `audit`, info) and the trail's own warnings; a pino logger fits. */
  readonly logger: ServiceLogger;
  /** The longest a recorded event waits for its flush while flushes succeed (ms; default 1000). */
  readonly flushIntervalMs?: number;
  /** A flush starts at once when this many rows are buffered (default 500). */
  readonly flushRows?: number;
  /** Rows kept for the table at most; past it the oldest are dropped, with a warning (default 10 000). */
  readonly maxBuffered?: number;
  /** Bytes of buffered rows kept at most, roughly counted; past it the oldest are dropped too (default 64 MiB). */
  readonly maxBufferedBytes?: number;
  /** The statement text in a log line is cut to this many UTF-8 bytes (default 4096). */
  readonly maxLogStatementBytes?: number;
  /** The statement text in the table is cut to this many UTF-8 bytes (default 65 536). */
  readonly maxStatementBytes?: number;
  /** Consecutive failed flushes wait flushIntervalMs, doubling up to this (ms; default 30 000). */
  readonly maxRetryMs?: number;
  /** Rows older than maxAgeMs are deleted, checked every intervalMs (default an hour). */
  readonly retention?: { readonly maxAgeMs: number; readonly intervalMs?: number };
  /** Now in microseconds since the epoch (retention's cutoff); tests move it. */
  readonly now?: () => bigint;
  /** Each row also goes to this local file until a flush commits it, so a killed process loses none (audit-spool.ts). */
  readonly spool?: AuditSpool;
}

/** What the trail holds and has done, for metrics and tests. */
export interface AuditTrailStatus {
  /** Rows waiting for the table, including a flush in progress. */
  readonly buffered: number;
  readonly flushedRows: number;
  readonly flushes: number;
  readonly droppedRows: number;
  readonly consecutiveFailures: number;
}

interface BufferedRow {
  readonly row: AuditRow;
  readonly bytes: number;
}

const HOUR_MS = 3_600_000;
/** A failed retention run is tried again after at most this long. */
const RETENTION_RETRY_MS = 60_000;
/** stop() tries a failing final flush this many times, this far apart (ms). */
const STOP_ATTEMPTS = 3;
const STOP_RETRY_MS = 200;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => { setTimeout(resolve, ms).unref(); });

/**
 * The audit trail of one `floe serve` process (issue 30): each recorded event is logged at
 * once and buffered for the append table audit.floe_audit (audit-table.ts), to which a
 * background flush writes everything buffered in one lake commit, every flushIntervalMs,
 * or sooner when flushRows are waiting. Flushed rows are durable (the commit is). A failed
 * flush keeps its rows, in order, and the next attempt waits longer (doubling up to
 * maxRetryMs); the buffer is bounded, and when it overflows the oldest rows are dropped
 * and counted in one warning per flush attempt (their log lines were written already).
 * A flush that fails after its commit became durable may write its rows twice: the trail
 * prefers a duplicate to a loss. With a `spool`, every row is also in a local file until
 * its flush commits, so a killed process's rows reach the table at the next start. The trail's own commits (flushes, retention) are never
 * events. With `retention`, rows older than its maxAgeMs are deleted once per intervalMs.
 */
export class AuditTrail {
  readonly #warehouse: AuditWarehouse;
  readonly #logger: ServiceLogger;
  readonly #flushIntervalMs: number;
  readonly #flushRows: number;
  readonly #maxBuffered: number;
  readonly #maxBufferedBytes: number;
  readonly #maxLogStatementBytes: number;
  readonly #maxStatementBytes: number;
  readonly #maxRetryMs: number;
  readonly #retention: { readonly maxAgeMs: number; readonly intervalMs: number } | undefined;
  readonly #now: () => bigint;
  readonly #spool: AuditSpool | undefined;

  /** Oldest first. */
  #pending: BufferedRow[] = [];
  #pendingBytes = 0;
  /** The rows of the flush in progress (they return to the front of #pending if it fails). */
  #inFlight: readonly BufferedRow[] = [];
  #inFlightBytes = 0;
  /** Dropped and not yet warned of. */
  #droppedUnreported = 0;
  #droppedRows = 0;
  #flushedRows = 0;
  #flushes = 0;
  #failures = 0;
  #retentionDueMs = 0;

  #running = false;
  #ticking = false;
  #cancelTimer: (() => void) | undefined;
  /** Flushes and retention runs, one at a time. */
  #tail: Promise<unknown> = Promise.resolve();

  constructor(opts: AuditTrailOptions) {
    this.#warehouse = opts.warehouse;
    this.#logger = opts.logger;
    this.#flushIntervalMs = positive(opts.flushIntervalMs, 1000);
    this.#flushRows = positive(opts.flushRows, 500);
    this.#maxBuffered = positive(opts.maxBuffered, 10_000);
    this.#maxBufferedBytes = positive(opts.maxBufferedBytes, 64 * 1024 * 1024);
    this.#maxLogStatementBytes = positive(opts.maxLogStatementBytes, 4096);
    this.#maxStatementBytes = positive(opts.maxStatementBytes, 65_536);
    this.#maxRetryMs = positive(opts.maxRetryMs, 30_000);
    if (opts.retention !== undefined && !(Number.isFinite(opts.retention.maxAgeMs) && opts.retention.maxAgeMs > 0)) {
      throw new RangeError(`audit retention must be a positive number of milliseconds, got ${opts.retention.maxAgeMs}`);
    }
    this.#retention = opts.retention === undefined ? undefined : { maxAgeMs: opts.retention.maxAgeMs, intervalMs: positive(opts.retention.intervalMs, HOUR_MS) };
    this.#now = opts.now ?? (() => BigInt(Date.now()) * 1000n);
    this.#spool = opts.spool;
  }

  /**
   * Records one event: its log line now, its row at the next flush. Synchronous; never
   * throws and never waits on the lake.
   */
  record(event: AuditEvent): void {
    try {
      this.#logger.info(auditLogFields(event, this.#maxLogStatementBytes), 'audit');
    } catch { /* a logger that throws must not fail the statement; the row is still kept */ }
    try {
      const row = auditRowOf(event, this.#maxStatementBytes);
      try {
        this.#spool?.append(row);
      } catch (err) {
        // The row still waits in memory for the next flush; only a kill before it would lose it.
        this.#logger.warn({ err }, 'audit row not spooled');
      }
      const bytes = auditRowBytes(row);
      this.#pending.push({ row, bytes });
      this.#pendingBytes += bytes;
      this.#enforceBound();
      if (this.#running && !this.#ticking && this.#failures === 0 && this.#pending.length >= this.#flushRows) {
        this.#cancel();
        void this.#tick();
      }
    } catch (err) {
      try { this.#logger.warn({ err }, 'audit event not buffered'); } catch { /* as above */ }
    }
  }

  /** Starts the background flushes (and retention). */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule(this.#pending.length >= this.#flushRows ? 0 : this.#flushIntervalMs);
  }

  /**
   * Stops the background work and writes what is buffered before returning: the final
   * flush is tried a few times; rows it could not write are counted in a warning and kept
   * (a later start() tries them again).
   */
  async stop(): Promise<void> {
    this.#running = false;
    this.#cancel();
    for (let attempt = 1; attempt <= STOP_ATTEMPTS; attempt++) {
      if (await this.flush()) {
        this.#spool?.close(this.#pending.length === 0);
        return;
      }
      if (attempt < STOP_ATTEMPTS) await sleep(STOP_RETRY_MS * attempt);
    }
    // The spool keeps them: the next start commits them.
    this.#logger.warn({ rows: this.#pending.length }, 'audit rows not written at stop');
  }

  /**
   * What a crash does: the background work stops and the buffered rows are forgotten
   * unwritten (a flush in progress finishes or fails on its own). Returns how many were
   * forgotten. For tests of what survives a crash.
   */
  abandon(): number {
    this.#running = false;
    this.#cancel();
    const n = this.#pending.length;
    this.#pending = [];
    this.#pendingBytes = 0;
    return n;
  }

  /**
   * Writes everything buffered now, in one commit, after any flush in progress; true when
   * it was written (or nothing was buffered). Failures are logged, not thrown.
   */
  flush(): Promise<boolean> {
    return this.#exclusive(() => this.#flushOnce());
  }

  /**
   * Deletes the rows older than the retention's maxAgeMs now, and returns how many went
   * (0 without retention). Failures are logged and rethrown.
   */
  runRetention(): Promise<number> {
    return this.#exclusive(() => this.#retain());
  }

  /** audit.floe_audit, created when missing (tolerating another gateway creating it at the same time). */
  ensureTable(): Promise<TableMetadata> {
    return ensureAuditTable(this.#warehouse);
  }

  status(): AuditTrailStatus {
    return {
      buffered: this.#pending.length + this.#inFlight.length,
      flushedRows: this.#flushedRows,
      flushes: this.#flushes,
      droppedRows: this.#droppedRows,
      consecutiveFailures: this.#failures,
    };
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(fn);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  async #flushOnce(): Promise<boolean> {
    this.#reportDropped();
    if (this.#pending.length === 0) return true;
    const batch = this.#pending;
    this.#inFlight = batch;
    this.#inFlightBytes = this.#pendingBytes;
    this.#pending = [];
    this.#pendingBytes = 0;
    try {
      const table = await ensureAuditTable(this.#warehouse);
      const txn = await this.#warehouse.begin();
      try {
        await txn.insert(table, 'main', auditColumns(table, batch.map((b) => b.row)));
        await txn.commit();
      } finally {
        if (txn.state === 'open') await txn.abort().catch(() => undefined);
      }
      this.#failures = 0;
      this.#flushes++;
      this.#flushedRows += batch.length;
      this.#cutSpool();
      this.#logger.debug({ rows: batch.length }, 'audit rows written');
      return true;
    } catch (err) {
      this.#failures++;
      // Back at the front, in order; rows recorded meanwhile follow them.
      this.#pending = batch.concat(this.#pending);
      this.#pendingBytes += this.#inFlightBytes;
      this.#logger.warn({ err, rows: batch.length, consecutiveFailures: this.#failures, retryInMs: this.#retryDelayMs() }, 'audit flush failed');
      return false;
    } finally {
      this.#inFlight = [];
      this.#inFlightBytes = 0;
      this.#enforceBound();
    }
  }

  /** After a commit: the spool keeps only the rows still waiting (recorded while it ran). */
  #cutSpool(): void {
    try {
      this.#spool?.replace(this.#pending.map((b) => b.row));
    } catch (err) {
      // The committed rows stay in the file too: a restart after a kill would find them in the table and skip them.
      this.#logger.warn({ err }, 'audit spool not cut back');
    }
  }

  async #retain(): Promise<number> {
    if (this.#retention === undefined) return 0;
    const cutoff = this.#now() - BigInt(Math.floor(this.#retention.maxAgeMs)) * 1000n;
    try {
      const table = await ensureAuditTable(this.#warehouse);
      const deleted = await deleteAuditRowsBefore(this.#warehouse, table, cutoff);
      this.#logger.info({ deleted, before: isoMicros(cutoff) }, 'audit retention');
      this.#retentionDueMs = Date.now() + this.#retention.intervalMs;
      return deleted;
    } catch (err) {
      this.#logger.warn({ err, before: isoMicros(cutoff) }, 'audit retention failed');
      this.#retentionDueMs = Date.now() + Math.min(this.#retention.intervalMs, RETENTION_RETRY_MS);
      throw err;
    }
  }

  /** One background round: a flush, then retention when it is due. Never rejects. */
  async #tick(): Promise<void> {
    this.#ticking = true;
    try {
      const flushed = await this.flush();
      if (flushed && this.#running && this.#retention !== undefined && Date.now() >= this.#retentionDueMs) {
        await this.runRetention().catch(() => undefined);
      }
    } catch (err) {
      this.#logger.warn({ err }, 'audit round failed');
    } finally {
      this.#ticking = false;
      if (this.#failures > 0) this.#schedule(this.#retryDelayMs());
      else this.#schedule(this.#pending.length >= this.#flushRows ? 0 : this.#flushIntervalMs);
    }
  }

  #schedule(ms: number): void {
    this.#cancel();
    if (!this.#running) return;
    const timer = setTimeout(() => {
      this.#cancelTimer = undefined;
      void this.#tick();
    }, ms);
    timer.unref();
    this.#cancelTimer = () => clearTimeout(timer);
  }

  #cancel(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
  }

  #retryDelayMs(): number {
    const doublings = Math.min(Math.max(this.#failures - 1, 0), 30);
    return Math.min(this.#flushIntervalMs * 2 ** doublings, Math.max(this.#maxRetryMs, this.#flushIntervalMs));
  }

  /** Drops the oldest waiting rows past maxBuffered rows or maxBufferedBytes (a flush in progress counts, and keeps its rows). */
  #enforceBound(): void {
    let rows = this.#pending.length + this.#inFlight.length;
    let bytes = this.#pendingBytes + this.#inFlightBytes;
    let drop = 0;
    while (drop < this.#pending.length && (rows > this.#maxBuffered || bytes > this.#maxBufferedBytes)) {
      bytes -= this.#pending[drop]!.bytes;
      rows--;
      drop++;
    }
    if (drop === 0) return;
    this.#pending.splice(0, drop);
    this.#pendingBytes = bytes - this.#inFlightBytes;
    this.#droppedUnreported += drop;
    this.#droppedRows += drop;
  }

  #reportDropped(): void {
    if (this.#droppedUnreported === 0) return;
    this.#logger.warn({ dropped: this.#droppedUnreported, maxBuffered: this.#maxBuffered }, 'audit rows dropped: buffer full');
    this.#droppedUnreported = 0;
  }
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}
