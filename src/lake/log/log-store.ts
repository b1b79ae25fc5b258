import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { endSpan, startSpan } from '../../common/latency-spans.js';
import { LOG_WRITER_TAKEN_OVER } from '../catalog/catalog.js';
import type { Catalog, LoggedCommit, SnapshotRecord } from '../catalog/catalog.js';
import type { Storage } from '../storage/storage.js';
import type { LakeLogger } from '../warehouse/warehouse.js';
import type { CommitLog } from './commit-log.js';
import { LOG_DIR, logWriterDir } from './log-locator.js';
import { encodeLogCommit, encodeLogVoid, requestsOfAppended } from './log-commit-record.js';
import type { LogCommitRecord } from './log-commit-record.js';
import { openWriterLog } from './log-location.js';
import type { LogLocation } from './log-location.js';

export interface LogStoreOptions {
  /** Where the writer's log goes: local segment files, or objects in the warehouse's store. */
  readonly location: LogLocation;
  /** The warehouse's data store, which reads every writer's log by its `log/` keys (releasing the logs of replayed writers). */
  readonly storage: Storage;
  /** A transaction staging more than this many bytes of rows stores Parquet files instead (default 4 MiB). */
  readonly maxTransactionBytes?: number;
  readonly segmentBytes?: number;
  /** How long a segment no file row points into is kept for readers that planned before it was freed (default 10 min). */
  readonly releaseGraceMs?: number;
  /** How often the writer's row is touched, so other processes know it is alive. */
  readonly heartbeatMs: number;
  readonly logger?: LakeLogger;
}

interface WrittenBatch {
  readonly batch: readonly QueuedCommit[];
  readonly records: readonly LogCommitRecord[];
  readonly commits: readonly (LoggedCommit & { readonly end: bigint })[];
}

interface QueuedCommit {
  readonly record: LogCommitRecord;
  /** When it was queued (latency-spans.ts). */
  readonly queued: number;
  readonly resolve: (snapshots: SnapshotRecord[]) => void;
  readonly reject: (err: unknown) => void;
}

export const DEFAULT_MAX_LOGGED_TRANSACTION_BYTES = 4 * 1024 * 1024;
/** Snapshots whose written keys the writer remembers for rebasing. */
const RECENT_WRITES_MAX = 4096;
/** Snapshots a rebase walks back at most. */
const REBASE_WALK_MAX = 256;

/**
 * A process's log store (docs/design-notes.md, "Log store"): commits of small transactions
 * are appended to this writer's log, made durable by one fsync per batch of concurrent
 * commits (group commit), then applied to the catalog in one database transaction, and
 * only then acknowledged. The log holds the rows; the catalog's file rows locate them.
 */
export class LogStore {
  readonly maxTransactionBytes: number;
  readonly #catalog: Catalog;
  readonly #storage: Storage;
  /** The current writer's log: replaced by a new writer's when another process took this one over. */
  #log: CommitLog;
  readonly #location: LogLocation;
  readonly #segmentBytes: number | undefined;
  /** Another process replayed this writer's log: the next batch goes to a new writer's log. */
  #replaceWriterNext = false;
  readonly #logger: LakeLogger | undefined;
  readonly #queue: QueuedCommit[] = [];
  #draining: Promise<void> | undefined;
  #running = false;
  /** Set once the log failed to write or fsync: nothing after it can be acknowledged. */
  #broken: unknown;
  #closed = false;
  /** The end of the last record applied to the catalog: segments past it are never released. */
  #appliedEnd = 0n;
  /** When each segment was first seen with no file row pointing into it. */
  readonly #freedAt = new Map<string, number>();
  /** The same for segments of replayed writers' logs. */
  readonly #replayedFreedAt = new Map<string, number>();
  readonly #releaseGraceMs: number;
  /** Key hashes written by this writer's recent commits, by snapshot (insertion order: oldest first). */
  readonly #recentWrites = new Map<bigint, Set<number>>();
  #commits = 0;
  #batches = 0;
  readonly #heartbeat: NodeJS.Timeout;

  private constructor(catalog: Catalog, log: CommitLog, opts: LogStoreOptions) {
    this.#catalog = catalog;
    this.#storage = opts.storage;
    this.#log = log;
    this.#location = opts.location;
    this.#segmentBytes = opts.segmentBytes;
    this.#logger = opts.logger;
    this.maxTransactionBytes = opts.maxTransactionBytes ?? DEFAULT_MAX_LOGGED_TRANSACTION_BYTES;
    this.#releaseGraceMs = opts.releaseGraceMs ?? 10 * 60_000;
    this.#heartbeat = setInterval(() => {
      let alive = true;
      try { alive = catalog.heartbeatLogWriter(this.writerId, BigInt(Date.now()) * 1000n); } catch { /* the next apply says so */ }
      if (!alive) this.#takenOver();
    }, opts.heartbeatMs);
    this.#heartbeat.unref();
  }

  /** Registers a new writer (its own log directory) and opens its log. */
  static async open(catalog: Catalog, opts: LogStoreOptions): Promise<LogStore> {
    return new LogStore(catalog, await openNewWriter(catalog, opts.location, opts.segmentBytes), opts);
  }

  /** This process's writer in `log_writers` (a new one after a takeover). */
  get writerId(): string {
    return this.#log.writerId;
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
      this.#queue.push({ record, resolve, reject, queued: startSpan() });
      if (!this.#running) {
        this.#running = true;
        this.#draining = this.#drain();
      }
    });
  }

  /**
   * Commits queue while a batch is being written; each turn takes all of them: one write,
   * one fsync, one catalog transaction, then the next batch. A batch is formed only once the
   * previous one is applied, so it can expect the heads that one left (rebasedOverRecent).
   */
  async #drain(): Promise<void> {
    try {
      for (;;) {
        if (this.#replaceWriterNext && this.#queue.length > 0) await this.#replaceWriter();
        const next = this.#writeBatch();
        if (next === undefined) break;
        const written = await next;
        if (written !== undefined) await this.#applyBatch(written);
      }
    } finally {
      // In the same job as the empty-queue check: a commit queued after it starts a new drain.
      this.#running = false;
    }
  }

  /**
   * A commit whose checks are named by LogCommitPart.rebaseKeys, against a head that has
   * moved since, may expect the current head instead when every snapshot in between is
   * this writer's own commit touching none of its keys, or an optimize of a keyed table
   * (which changes no row). The rewritten expectation is what the log records, so a replay
   * judges the commit the same way. Anything else in between (another process's write)
   * leaves it to fail and retry.
   */
  #rebasedOverRecent(record: LogCommitRecord): LogCommitRecord {
    let changed = false;
    const parts = record.parts.map((p) => {
      const expect = p.request.expectHead;
      if (expect === undefined || p.rebaseKeys === undefined) return p;
      const head = this.#catalog.getRef(p.request.tableId, p.request.branch)?.snapshotId;
      if (head === undefined || head === expect || !this.#onlyDisjointSince(p.request.tableId, head, expect, p.rebaseKeys, p.byRowId === true)) return p;
      changed = true;
      return { ...p, request: { ...p.request, expectHead: head } };
    });
    return changed ? { ...record, parts } : record;
  }

  #onlyDisjointSince(tableId: number, head: bigint, expect: bigint, keys: readonly Uint32Array[], byRowId: boolean): boolean {
    let at: bigint | undefined = head;
    for (let steps = 0; at !== undefined && at !== expect; steps++) {
      if (steps >= REBASE_WALK_MAX || at < expect) return false;
      const snap = this.#catalog.getSnapshot(tableId, at);
      if (snap === undefined) return false;
      if (snap.operation !== 'optimize' || byRowId) {
        const written = this.#recentWrites.get(at);
        if (written === undefined) return false;
        for (const hs of keys) for (const h of hs) if (written.has(h)) return false;
      }
      at = snap.parentId;
    }
    return at === expect;
  }

  /** Appends every queued commit and starts their fsync; undefined when nothing is queued. */
  #writeBatch(): Promise<WrittenBatch | undefined> | undefined {
    if (this.#queue.length === 0) return undefined;
    const batch = this.#queue.splice(0, this.#queue.length);
    for (const c of batch) endSpan('log.queued', c.queued);
    const started = startSpan();
    if (this.#broken !== undefined) {
      for (const c of batch) c.reject(this.#broken);
      return Promise.resolve(undefined);
    }
    let commits: (LoggedCommit & { readonly end: bigint })[];
    let records: LogCommitRecord[];
    try {
      const batchId = this.#log.nextLsn;
      records = rebasedWithinBatch(batch.map((c) => this.#rebasedOverRecent(c.record)));
      commits = records.map((record) => {
        const encoded = encodeLogCommit(record, batchId);
        const at = this.#log.append('commit', encoded.parts);
        return { requests: requestsOfAppended(record, encoded, at.segmentKey, at.payloadOffset), txnId: record.txnId, lsn: at.lsn, end: at.end };
      });
    } catch (e) {
      this.#fail(e, batch);
      return Promise.resolve(undefined);
    }
    endSpan('log.encode', started);
    const syncStarted = startSpan();
    return this.#log.sync().then(
      () => {
        endSpan('log.sync', syncStarted);
        this.#batches++;
        this.#commits += batch.length;
        return { batch, records, commits };
      },
      (e: unknown) => { this.#fail(e, batch); return undefined; },
    );
  }

  #fail(e: unknown, batch: readonly QueuedCommit[]): void {
    if (this.#broken === undefined) {
      this.#broken = new FloeError(SqlState.ioError, 'could not write the commit log; commits are refused until the server restarts', { cause: e });
      this.#logger?.warn({ err: e }, 'commit log write failed');
    }
    for (const c of batch) c.reject(this.#broken);
  }

  async #applyBatch({ batch, records, commits }: WrittenBatch): Promise<void> {
    const end = commits[commits.length - 1]!.end;
    let outcomes;
    const started = startSpan();
    try {
      outcomes = this.#catalog.applyLoggedCommits(this.writerId, commits, end, BigInt(Date.now()) * 1000n);
      endSpan('log.applyCatalog', started);
    } catch (e) {
      if (e instanceof FloeError && e.detail === LOG_WRITER_TAKEN_OVER) {
        // The replay that took the log over may have applied some of these: their outcome is unknown.
        this.#takenOver();
        const unknown = new FloeError(SqlState.statementCompletionUnknown, 'the outcome of this commit is unknown: another process took over this server\'s commit log', {
          detail: 'Its heartbeat in the catalog lapsed, so another process replayed its log, which may have applied this commit.',
          cause: e,
        });
        for (const c of batch) c.reject(unknown);
        return;
      }
      // Durable but never applied nor acknowledged: the next batch's apply moves the
      // applied LSN past them, so a replay skips them too.
      for (const c of batch) c.reject(e);
      return;
    }
    this.#appliedEnd = end;
    outcomes.forEach((o, i) => {
      if (!o.ok) return;
      records[i]!.parts.forEach((p, j) => {
        const snap = o.snapshots[j];
        if (snap !== undefined && p.rebaseKeys !== undefined) this.#rememberWrite(snap.id, p.rebaseKeys);
      });
    });
    const failed = outcomes.flatMap((o, i) => (o.ok ? [] : [i]));
    if (failed.length > 0) {
      // A failed apply is cancelled in the log before it is reported, so no replay can
      // apply what a client was told failed.
      try {
        for (const i of failed) this.#log.append('void', encodeLogVoid(commits[i]!.lsn));
        await this.#log.sync();
      } catch (e) {
        this.#fail(e, []);
      }
    }
    outcomes.forEach((o, i) => (o.ok ? batch[i]!.resolve(o.snapshots) : batch[i]!.reject(o.error)));
  }

  /**
   * Another process replayed this writer's log (its heartbeat lapsed): nothing more may be
   * applied from it. The next batch goes to a new writer's log; the old one is left to the
   * release of replayed writers' logs.
   */
  #takenOver(): void {
    if (this.#replaceWriterNext) return;
    this.#replaceWriterNext = true;
    this.#logger?.warn({ writerId: this.writerId }, 'commit log taken over by another process; the next commit starts a new writer');
  }

  /** Registers a new writer and moves to its log; if that fails, nothing more is committed here. */
  async #replaceWriter(): Promise<void> {
    const old = this.#log;
    try {
      this.#log = await openNewWriter(this.#catalog, this.#location, this.#segmentBytes);
    } catch (e) {
      this.#broken ??= new FloeError(SqlState.objectNotInPrerequisiteState, 'commits are refused until the server restarts: another process took over its commit log, and a new one could not be opened', { cause: e });
      for (const c of this.#queue.splice(0, this.#queue.length)) c.reject(this.#broken);
      return;
    }
    this.#replaceWriterNext = false;
    this.#appliedEnd = 0n;
    this.#recentWrites.clear();
    this.#freedAt.clear();
    this.#logger?.info({ writerId: this.writerId, replaced: old.writerId }, 'commit log continues as a new writer');
    await old.close().catch(() => undefined);
  }

  #rememberWrite(snapshotId: bigint, keys: readonly Uint32Array[]): void {
    const set = new Set<number>();
    for (const hs of keys) for (const h of hs) set.add(h);
    this.#recentWrites.set(snapshotId, set);
    if (this.#recentWrites.size > RECENT_WRITES_MAX) this.#recentWrites.delete(this.#recentWrites.keys().next().value!);
  }

  /** Commit records made durable so far, and the group-commit rounds (one write + fdatasync each) that did it. */
  get stats(): { readonly commits: number; readonly batches: number } {
    return { commits: this.#commits, batches: this.#batches };
  }

  /**
   * Deletes this writer's segments that no file row has pointed into for `releaseGraceMs`:
   * tiering and expiry free them, and a scan planned before a tiering swap may still read
   * the old locators for a while. Then does the same for writers that are gone and were
   * replayed (no row in `log_writers`), whose logs have nobody else to release them.
   */
  async releaseSegments(nowMs = Date.now()): Promise<number> {
    return await this.#releaseOwnSegments(nowMs) + await this.#releaseReplayedLogs(nowMs);
  }

  async #releaseOwnSegments(nowMs: number): Promise<number> {
    // This writer's log as it is now: a takeover may move this store to a new one meanwhile.
    const log = this.#log;
    // Only the oldest segment still read matters (the walk below stops there), not every
    // file row's path: those grow with the history kept, thousands a minute of commits.
    const oldestRead = this.#catalog.oldestFilePathWithPrefix(`${logWriterDir(log.writerId)}/`);
    const oldestReadKey = oldestRead?.slice(0, oldestRead.indexOf('#'));
    const segments = log.segments();
    // Segments go oldest first: the oldest one still read, or freed too recently, bounds what can go.
    let bound = segments.length === 0 ? 0n : segments[segments.length - 1]!.firstLsn;
    for (const s of segments) {
      // Keys are fixed-width LSNs, so they sort as the segments do.
      if (oldestReadKey !== undefined && s.key >= oldestReadKey) {
        this.#freedAt.delete(s.key);
        bound = s.firstLsn;
        break;
      }
      const freed = this.#freedAt.get(s.key) ?? nowMs;
      this.#freedAt.set(s.key, freed);
      if (nowMs - freed < this.#releaseGraceMs) { bound = s.firstLsn; break; }
    }
    // Records written but not yet applied are read by nobody yet, and must stay for replay.
    if (bound > this.#appliedEnd) bound = this.#appliedEnd;
    const before = segments.length;
    await log.truncateBelow(bound);
    const after = new Set(log.segments().map((s) => s.key));
    for (const key of this.#freedAt.keys()) if (!after.has(key)) this.#freedAt.delete(key);
    return before - after.size;
  }

  /**
   * A writer without a row was replayed and dropped (replay-dead-writers.ts): nobody will
   * append to its log or replay it again, so each of its segments goes once no file row has
   * pointed into it for the grace period. A writer still listed may yet be replayed: its
   * log stays whole.
   */
  async #releaseReplayedLogs(nowMs: number): Promise<number> {
    // The store first: a writer registers before its first segment exists, so every writer
    // with a segment in this listing is in the catalog's list read after it, unless replayed.
    const stored = await this.#storage.list(`${LOG_DIR}/`);
    const listed = new Set(this.#catalog.listLogWriters().map((w) => w.id));
    const byWriter = new Map<string, string[]>();
    for (const o of stored) {
      const writer = o.key.split('/')[1];
      if (writer === undefined || writer === this.writerId || listed.has(writer)) continue;
      let keys = byWriter.get(writer);
      if (keys === undefined) byWriter.set(writer, keys = []);
      keys.push(o.key);
    }
    const listedKeys = new Set([...byWriter.values()].flat());
    for (const key of this.#replayedFreedAt.keys()) if (!listedKeys.has(key)) this.#replayedFreedAt.delete(key);
    let released = 0;
    for (const [writer, keys] of byWriter) {
      const inUse = new Set(this.#catalog.filePathsWithPrefix(`${logWriterDir(writer)}/`).map((p) => p.slice(0, p.indexOf('#'))));
      for (const key of keys) {
        if (inUse.has(key)) { this.#replayedFreedAt.delete(key); continue; }
        const freed = this.#replayedFreedAt.get(key) ?? nowMs;
        this.#replayedFreedAt.set(key, freed);
        if (nowMs - freed < this.#releaseGraceMs) continue;
        await this.#storage.delete(key);
        this.#replayedFreedAt.delete(key);
        released++;
      }
    }
    return released;
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

/** A new writer's row in the catalog and its (empty) log. */
async function openNewWriter(catalog: Catalog, location: LogLocation, segmentBytes: number | undefined): Promise<CommitLog> {
  const writerId = randomUUID();
  catalog.registerLogWriter({ id: writerId, pid: process.pid, host: hostname() }, BigInt(Date.now()) * 1000n);
  try {
    return await openWriterLog(location, writerId, segmentBytes);
  } catch (e) {
    catalog.dropLogWriter(writerId);
    throw e;
  }
}

/**
 * Commits of one batch are applied in order in one catalog transaction. One that expects
 * the head it checked against (an INSERT's key check, a read-modify-write) would fail
 * behind any earlier commit of the batch on its branch, so concurrent INSERTs into one
 * table would commit one per batch. When none of the earlier commits on its branch wrote a
 * key it writes, its checks still hold after them: it may expect the head they leave.
 */
function rebasedWithinBatch(records: readonly LogCommitRecord[]): LogCommitRecord[] {
  // Per table and branch, the key hashes earlier commits of the batch write (undefined: unknown, so nothing rebases past them).
  const written = new Map<string, Set<number> | undefined>();
  return records.map((record) => {
    const parts = record.parts.map((p) => {
      const key = `${p.request.tableId}\u0000${p.request.branch}`;
      const earlier = written.get(key);
      const rebase = p.request.expectHead !== undefined && p.rebaseKeys !== undefined && earlier !== undefined
        && p.rebaseKeys.every((hs) => hs.every((h) => !earlier.has(h)));
      if (p.rebaseKeys === undefined) written.set(key, undefined);
      else if (!written.has(key) || earlier !== undefined) {
        const set = earlier ?? new Set<number>();
        for (const hs of p.rebaseKeys) for (const h of hs) set.add(h);
        written.set(key, set);
      }
      return rebase ? { ...p, request: { ...p.request, rebaseWithinBatch: true } } : p;
    });
    return { ...record, parts };
  });
}
