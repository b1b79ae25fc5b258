import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { Catalog, LoggedCommit, SnapshotRecord } from '../catalog/catalog.js';
import type { LakeLogger } from '../warehouse/warehouse.js';
import type { CommitLog } from './commit-log.js';
import { logWriterDir } from './log-locator.js';
import { encodeLogCommit, encodeLogVoid, requestsOfAppended } from './log-commit-record.js';
import type { LogCommitRecord } from './log-commit-record.js';
import { openCommitLog } from './segmented-commit-log.js';

export interface LogStoreOptions {
  /** The warehouse root on local disk. */
  readonly root: string;
  /** A transaction staging more than this many bytes of rows stores Parquet change files instead (default 4 MiB). */
  readonly maxTransactionBytes?: number;
  readonly segmentBytes?: number;
  /** How often the writer's row is touched, so other processes know it is alive. */
  readonly heartbeatMs: number;
  readonly logger?: LakeLogger;
}

interface QueuedCommit {
  readonly record: LogCommitRecord;
  readonly resolve: (snapshots: SnapshotRecord[]) => void;
  readonly reject: (err: unknown) => void;
}

export const DEFAULT_MAX_LOGGED_TRANSACTION_BYTES = 4 * 1024 * 1024;

/**
 * A process's log store (docs/design-notes.md, "Log store"): commits of small transactions
 * are appended to this writer's log, made durable by one fsync per batch of concurrent
 * commits (group commit), then applied to the catalog in one database transaction, and
 * only then acknowledged. The log holds the rows; the catalog's change-file rows locate them.
 */
export class LogStore {
  readonly writerId: string;
  readonly maxTransactionBytes: number;
  readonly #catalog: Catalog;
  readonly #log: CommitLog;
  readonly #logger: LakeLogger | undefined;
  readonly #queue: QueuedCommit[] = [];
  #draining: Promise<void> | undefined;
  /** Set once the log failed to write or fsync: nothing after it can be acknowledged. */
  #broken: unknown;
  #closed = false;
  #commits = 0;
  #batches = 0;
  readonly #heartbeat: NodeJS.Timeout;

  private constructor(catalog: Catalog, log: CommitLog, opts: LogStoreOptions) {
    this.#catalog = catalog;
    this.#log = log;
    this.writerId = log.writerId;
    this.#logger = opts.logger;
    this.maxTransactionBytes = opts.maxTransactionBytes ?? DEFAULT_MAX_LOGGED_TRANSACTION_BYTES;
    this.#heartbeat = setInterval(() => {
      try { catalog.heartbeatLogWriter(this.writerId, BigInt(Date.now()) * 1000n); } catch { /* the next apply says so */ }
    }, opts.heartbeatMs);
    this.#heartbeat.unref();
  }

  /** Registers a new writer (its own log directory) and opens its log. */
  static async open(catalog: Catalog, opts: LogStoreOptions): Promise<LogStore> {
    const writerId = randomUUID();
    catalog.registerLogWriter({ id: writerId, pid: process.pid, host: hostname() }, BigInt(Date.now()) * 1000n);
    try {
      const log = await openCommitLog({ root: opts.root, writerId, ...(opts.segmentBytes === undefined ? {} : { segmentBytes: opts.segmentBytes }) });
      return new LogStore(catalog, log, opts);
    } catch (e) {
      catalog.dropLogWriter(writerId);
      throw e;
    }
  }

  /**
   * Makes the commit durable in the log, applies it to the catalog and resolves with its
   * snapshots (one per request). Rejects with the catalog's error when the apply fails
   * (e.g. HEAD_MOVED: the caller re-checks and retries, as with Catalog.commit).
   */
  commit(record: LogCommitRecord): Promise<SnapshotRecord[]> {
    if (this.#closed) return Promise.reject(new FloeError(SqlState.objectNotInPrerequisiteState, 'the log store is closed'));
    if (this.#broken !== undefined) return Promise.reject(this.#broken);
    return new Promise((resolve, reject) => {
      this.#queue.push({ record, resolve, reject });
      this.#draining ??= this.#drain().finally(() => { this.#draining = undefined; });
    });
  }

  /** Commits queue while a batch is being written; each turn takes all of them: one write, one fsync, one catalog transaction. */
  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#queue.length);
      if (this.#broken !== undefined) {
        for (const c of batch) c.reject(this.#broken);
        continue;
      }
      let commits: LoggedCommit[];
      let end: bigint;
      try {
        const appended = batch.map((c) => {
          const encoded = encodeLogCommit(c.record);
          const at = this.#log.append('commit', encoded.parts);
          return { at, requests: requestsOfAppended(c.record, encoded, at.segmentKey, at.payloadOffset) };
        });
        await this.#log.sync();
        this.#batches++;
        this.#commits += batch.length;
        commits = batch.map((c, i) => ({ requests: appended[i]!.requests, txnId: c.record.txnId, lsn: appended[i]!.at.lsn }));
        end = appended[appended.length - 1]!.at.end;
      } catch (e) {
        this.#broken = new FloeError(SqlState.ioError, 'could not write the commit log; commits are refused until the server restarts', { cause: e });
        this.#logger?.warn({ err: e }, 'commit log write failed');
        for (const c of batch) c.reject(this.#broken);
        continue;
      }
      let outcomes;
      try {
        outcomes = this.#catalog.applyLoggedCommits(this.writerId, commits, end, BigInt(Date.now()) * 1000n);
      } catch (e) {
        // Durable but never applied nor acknowledged: the next batch's apply moves the
        // applied LSN past them, so a replay skips them too.
        for (const c of batch) c.reject(e);
        continue;
      }
      const failed = outcomes.flatMap((o, i) => (o.ok ? [] : [i]));
      if (failed.length > 0) {
        // A failed apply is cancelled in the log before it is reported, so no replay can
        // apply what a client was told failed.
        try {
          for (const i of failed) this.#log.append('void', encodeLogVoid(commits[i]!.lsn));
          await this.#log.sync();
        } catch (e) {
          this.#broken = new FloeError(SqlState.ioError, 'could not write the commit log; commits are refused until the server restarts', { cause: e });
        }
      }
      outcomes.forEach((o, i) => (o.ok ? batch[i]!.resolve(o.snapshots) : batch[i]!.reject(o.error)));
    }
  }

  /** Commit records made durable so far, and the group-commit rounds (one write + fdatasync each) that did it. */
  get stats(): { readonly commits: number; readonly batches: number } {
    return { commits: this.#commits, batches: this.#batches };
  }

  /** Deletes this writer's segments no file row points into any more (tiering and expiry free them). */
  async releaseSegments(): Promise<number> {
    const inUse = new Set(this.#catalog.filePathsWithPrefix(`${logWriterDir(this.writerId)}/`).map((p) => p.slice(0, p.indexOf('#'))));
    const segments = this.#log.segments();
    // Segments go oldest first: the oldest one still read bounds what can go.
    let bound = segments.length === 0 ? 0n : segments[segments.length - 1]!.firstLsn;
    for (const s of segments) {
      if (inUse.has(s.key)) { bound = s.firstLsn; break; }
    }
    const before = segments.length;
    await this.#log.truncateBelow(bound);
    return before - this.#log.segments().length;
  }

  /** Waits for queued commits, closes the log and removes the writer's row (everything it logged is applied or cancelled). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    await this.#draining;
    await this.#log.close();
    this.#logger?.info({ writerId: this.writerId, ...this.stats }, 'log store closed');
    if (this.#broken === undefined) this.#catalog.dropLogWriter(this.writerId);
  }
}
