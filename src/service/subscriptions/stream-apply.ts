import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { parseValue } from '../../exec/index.js';
import type { SubscriptionMetadata, TableMetadata, Warehouse } from '../../lake/index.js';
import type { ServiceLogger } from '../optimizing/optimizing-warehouse.js';
import { ChangeBatch } from './change-batch.js';
import type { FloeRow } from './change-batch.js';
import { decodePgOutput, streamedChangeXid } from './pgoutput-messages.js';
import type { PgOutputMessage, TupleValue } from './pgoutput-messages.js';
import type { ReplicationStream } from './replication-stream.js';
import { sourceColumnType } from './source-column-type.js';
import { DEFAULT_STREAM_MEMORY_BYTES, StreamedTransactions } from './streamed-transactions.js';
import { addMissingColumns } from './target-tables.js';
import { readAllKeys, readAllRowIds, readRowByKey } from './table-reader.js';

/** A Floe commit holds at most about this many changes (whole source transactions, so it may pass it). */
const BATCH_MAX_CHANGES = 50_000;
/** …and is committed once its first transaction has waited this long, or as soon as nothing more is buffered. */
const BATCH_MAX_WAIT_MS = 500;
/** How often the runner's view of the source is saved for the views, and the subscription re-read. */
const STATUS_EVERY_MS = 1000;
/** Standby status updates at least this often (the source's wal_sender_timeout is 60 s by default). */
const FEEDBACK_EVERY_MS = 10_000;
/** A source transaction larger than this is written into the lake transaction as it arrives (which spills to files), not held. */
const FLUSH_EVERY_CHANGES = 20_000;

const TEXT_IO = { timeZone: 'UTC' } as const;

/**
 * Nothing from the source for this long ends the connection, as PostgreSQL's
 * wal_receiver_timeout (60 s) does: a source that stopped answering without closing the
 * connection would otherwise hold the runner until TCP gives up. Half of it without a
 * message asks the source for a reply. FLOE_SUBSCRIPTION_RECEIVE_TIMEOUT_MS sets it.
 */
function receiveTimeoutMs(): number {
  return positiveIntegerFromEnv('FLOE_SUBSCRIPTION_RECEIVE_TIMEOUT_MS', 60_000);
}

/** Memory for streamed in-progress transactions before they go to files: FLOE_SUBSCRIPTION_STREAM_MEMORY bytes, or 64 MB. */
function streamMemoryBytes(): number {
  return positiveIntegerFromEnv('FLOE_SUBSCRIPTION_STREAM_MEMORY', DEFAULT_STREAM_MEMORY_BYTES);
}

/** The environment variable as a positive integer, or `fallback` when unset or not one. */
function positiveIntegerFromEnv(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** How a published relation's tuples become rows of its Floe table. */
interface Target {
  readonly table: TableMetadata;
  readonly syncLsn: bigint;
  /** Per Floe column, its index in the source tuple (-1: the source has no such column). */
  readonly sourceIndex: readonly number[];
  /** Floe column indexes of the primary key, in key order; empty for a table without a key. */
  readonly keyColumns: readonly number[];
  /** Floe column indexes the source sends: a table without a key matches old rows on these. */
  readonly sentColumns: readonly number[];
}

/** The source transaction being received. */
interface OpenTransaction {
  readonly finalLsn: bigint;
  readonly commitMicros: bigint;
}

/** Applying one replication stream: decode, map, batch, commit with the position, report. */
export class StreamApply {
  readonly #w: Warehouse;
  readonly #sub: SubscriptionMetadata;
  readonly #stream: ReplicationStream;
  readonly #signal: AbortSignal;
  readonly #reload: () => SubscriptionMetadata | undefined;
  readonly #logger: ServiceLogger;
  readonly #relations = new Map<number, Extract<PgOutputMessage, { tag: 'relation' }>>();
  readonly #targets = new Map<number, Target | null>();
  #batch: ChangeBatch;
  #open: OpenTransaction | undefined;
  /** In-progress transactions streamed ahead of their commit (protocol 2), and the one whose block is being received. */
  readonly #inProgress = new StreamedTransactions({ memoryBytes: streamMemoryBytes() });
  #streamXid: number | undefined;
  /** The end of the WAL received so far. */
  #received: bigint;
  #walEnd: bigint;
  /** What Floe has committed (or what needs no commit): the flush position reported to the source. */
  #confirmed: bigint;
  #lastSendMicros: bigint | undefined;
  #lastReceiptMicros: bigint | undefined;
  /** Source commit time of the oldest received, uncommitted transaction. */
  #pendingSince: bigint | undefined;
  #lastStatusMs = 0;
  #lastFeedbackMs = Date.now();
  readonly #receiveTimeoutMs = receiveTimeoutMs();
  #lastFrameMs = Date.now();
  #pinged = false;
  #anyFrame = false;

  constructor(
    w: Warehouse, sub: SubscriptionMetadata, stream: ReplicationStream, signal: AbortSignal, reload: () => SubscriptionMetadata | undefined, logger: ServiceLogger,
  ) {
    this.#w = w;
    this.#logger = logger;
    this.#batch = this.#newBatch();
    this.#sub = sub;
    this.#stream = stream;
    this.#signal = signal;
    this.#reload = reload;
    this.#received = sub.appliedLsn;
    this.#walEnd = sub.sourceWalEnd;
    this.#confirmed = sub.appliedLsn;
  }

  /** A batch that logs, as PostgreSQL's apply worker does, an old row it could not find and goes on. */
  #newBatch(): ChangeBatch {
    return new ChangeBatch((table, rows) => {
      this.#logger.warn({ subscription: this.#sub.name, rows },
        `logical replication did not find row to be updated or deleted in replication target relation "${table.namespace}.${table.name}"`);
    });
  }

  /** Whether anything came from the stream (the source accepted START_REPLICATION). */
  get streamed(): boolean {
    return this.#anyFrame;
  }

  async run(): Promise<void> {
    try {
      while (!this.#signal.aborted) {
        const frame = await this.#stream.next(200);
        const now = Date.now();
        if (frame !== undefined) {
          this.#anyFrame = true;
          this.#lastFrameMs = now;
          this.#pinged = false;
          this.#lastSendMicros = frame.sendMicros;
          this.#lastReceiptMicros = BigInt(now) * 1000n;
          if (frame.walEnd > this.#walEnd) this.#walEnd = frame.walEnd;
          if (frame.kind === 'keepalive') {
            // Nothing received is waiting: every transaction that committed below the source's position is in Floe
            // already. A streamed transaction still open commits above it, and the source sends it again whole.
            if (this.#open === undefined && this.#streamXid === undefined && this.#batch.isEmpty && frame.walEnd > this.#confirmed) {
              this.#confirmed = frame.walEnd;
            }
            if (frame.replyRequested) this.#feedback();
          } else {
            const end = frame.start > frame.walEnd ? frame.start : frame.walEnd;
            if (end > this.#received) this.#received = end;
            await this.#receive(frame.payload);
            if (this.#batch.unflushed >= FLUSH_EVERY_CHANGES) await this.#batch.flush(this.#w);
          }
        }
        if (!this.#batch.isEmpty && this.#open === undefined
          && (this.#stream.buffered === 0 || this.#batch.changes >= BATCH_MAX_CHANGES || now - this.#batch.startedMs! >= BATCH_MAX_WAIT_MS)) {
          await this.#commit();
        }
        if (now - this.#lastStatusMs >= STATUS_EVERY_MS) {
          this.#lastStatusMs = now;
          this.#saveStatus(true);
          const sub = this.#reload();
          // Altered (REFRESH, options, disabled) or dropped: what is committed stays, the rest is resent.
          if (sub === undefined || !sub.enabled || sub.generation !== this.#sub.generation) return;
        }
        if (now - this.#lastFeedbackMs >= FEEDBACK_EVERY_MS) this.#feedback();
        const silentMs = now - this.#lastFrameMs;
        if (silentMs >= this.#receiveTimeoutMs) throw new FloeError(SqlState.connectionFailure, 'terminating logical replication worker due to timeout');
        if (silentMs >= this.#receiveTimeoutMs / 2 && !this.#pinged) {
          this.#pinged = true;
          this.#stream.sendStatus(this.#received, this.#confirmed, true);
        }
      }
    } finally {
      this.#inProgress.close();
      await this.#batch.abort();
      // Nobody streams it now: pg_stat_subscription shows no pid, and nothing waits.
      try { this.#saveStatus(false); } catch { /* the catalog is closing */ }
    }
  }

  #feedback(): void {
    this.#lastFeedbackMs = Date.now();
    this.#stream.sendStatus(this.#received, this.#confirmed);
  }

  #saveStatus(streaming: boolean): void {
    this.#w.saveSubscriptionStatus(this.#sub.id, {
      receivedLsn: this.#received, sourceWalEnd: this.#walEnd, lastMsgSendMicros: this.#lastSendMicros,
      lastMsgReceiptMicros: this.#lastReceiptMicros, pendingSinceMicros: streaming ? this.#pendingSince : undefined,
      pid: streaming ? process.pid : undefined,
    });
  }

  async #commit(): Promise<void> {
    const endLsn = this.#batch.endLsn!;
    try {
      await this.#batch.commit(this.#w, this.#sub.id);
    } catch (e) {
      await this.#batch.abort();
      throw e;
    }
    this.#batch = this.#newBatch();
    if (endLsn > this.#confirmed) this.#confirmed = endLsn;
    this.#pendingSince = undefined;
    this.#feedback();
  }

  /** A message as received: a change inside a stream block waits with its transaction, anything else is handled now. */
  async #receive(payload: Buffer): Promise<void> {
    if (this.#streamXid !== undefined) {
      const changeXid = streamedChangeXid(payload);
      if (changeXid !== undefined) {
        this.#inProgress.add(this.#streamXid, changeXid, payload);
        return;
      }
    }
    await this.#handle(decodePgOutput(payload));
  }

  /** Stream Commit: the transaction's changes, held since their blocks came, applied as one whole transaction now, in commit order. */
  async #applyStreamed(m: Extract<PgOutputMessage, { tag: 'streamCommit' }>): Promise<void> {
    this.#open = { finalLsn: m.commitLsn, commitMicros: m.commitMicros };
    this.#pendingSince ??= m.commitMicros;
    for (const payload of this.#inProgress.take(m.xid)) {
      await this.#handle(decodePgOutput(payload, { streamed: true }));
      if (this.#batch.unflushed >= FLUSH_EVERY_CHANGES) {
        await this.#batch.flush(this.#w);
        // A long replay still answers the source, whose wal_sender_timeout would end the connection.
        if (Date.now() - this.#lastFeedbackMs >= FEEDBACK_EVERY_MS) this.#feedback();
      }
    }
    this.#open = undefined;
    this.#batch.endTransaction(m.endLsn, m.commitMicros);
  }

  async #handle(m: PgOutputMessage): Promise<void> {
    switch (m.tag) {
      case 'streamStart':
        this.#streamXid = m.xid;
        this.#inProgress.start(m.xid, m.firstSegment);
        return;
      case 'streamStop':
        this.#streamXid = undefined;
        return;
      case 'streamAbort':
        this.#inProgress.abort(m.xid, m.subxid);
        return;
      case 'streamCommit':
        await this.#applyStreamed(m);
        return;
      case 'begin':
        this.#open = { finalLsn: m.finalLsn, commitMicros: m.commitMicros };
        this.#pendingSince ??= m.commitMicros;
        return;
      case 'commit':
        this.#open = undefined;
        this.#batch.endTransaction(m.endLsn, m.commitMicros);
        return;
      case 'relation': {
        // A table without a key matches rows on the columns the source sends: what the batch holds for it is
        // written under the old mapping before a new one can change which columns those are.
        const was = this.#targets.get(m.relationId);
        if (was !== undefined && was !== null && this.#batch.holdsKeyless(was.table.id)) await this.#batch.flush(this.#w);
        this.#relations.set(m.relationId, m);
        this.#targets.delete(m.relationId);
        return;
      }
      case 'type': case 'origin': case 'message':
        return;
      case 'insert': {
        const t = await this.#target(m.relationId);
        if (t === null) return;
        const row = await this.#row(t, m.row, undefined);
        if (t.keyColumns.length === 0) this.#batch.append(t.table.id, row, t.sentColumns);
        else this.#batch.upsert(t.table.id, t.keyColumns.map((i) => row[i]), row);
        return;
      }
      case 'update': {
        const t = await this.#target(m.relationId);
        if (t === null) return;
        if (t.keyColumns.length === 0) {
          const old = this.#wholeOldRow(t, m.old);
          this.#batch.removeRow(t.table.id, old, t.sentColumns);
          this.#batch.append(t.table.id, await this.#row(t, m.row, m.old!.values), t.sentColumns);
          return;
        }
        const oldKey = m.old === undefined ? undefined : this.#key(t, m.old.values);
        const row = await this.#row(t, m.row, m.old?.kind === 'row' ? m.old.values : undefined);
        const key = t.keyColumns.map((i) => row[i]);
        // A changed key: the old one goes (its key arrives only when it changed, or with REPLICA IDENTITY FULL).
        if (oldKey !== undefined && oldKey.some((v, i) => !sameValue(v, key[i]))) this.#batch.delete(t.table.id, oldKey);
        this.#batch.upsert(t.table.id, key, row);
        return;
      }
      case 'delete': {
        const t = await this.#target(m.relationId);
        if (t === null) return;
        if (t.keyColumns.length === 0) this.#batch.removeRow(t.table.id, this.#wholeOldRow(t, m.old), t.sentColumns);
        else this.#batch.delete(t.table.id, this.#key(t, m.old.values));
        return;
      }
      case 'truncate': {
        for (const id of m.relationIds) {
          const t = await this.#target(id);
          if (t === null) continue;
          const txn = await this.#batch.flush(this.#w);
          if (t.keyColumns.length === 0) {
            const rowIds = await readAllRowIds(this.#w, txn, t.table);
            if (rowIds.length > 0) await txn.deleteRows(t.table, 'main', rowIds);
            continue;
          }
          const keys = await readAllKeys(this.#w, txn, t.table);
          if (keys.length > 0) await txn.deleteKeys(t.table, 'main', t.table.primaryKey.map((_, k) => keys.map((r) => r[k])));
        }
        return;
      }
    }
  }

  /** The Floe table of a relation, or null when its changes are not applied (not subscribed, or this transaction is in its copy). */
  async #target(relationId: number): Promise<Target | null> {
    let t = this.#targets.get(relationId);
    if (t === undefined) {
      t = await this.#resolve(relationId);
      this.#targets.set(relationId, t);
    }
    if (t === null) return null;
    // A transaction that committed below the table's sync LSN is already in its copy.
    if (this.#open !== undefined && this.#open.finalLsn < t.syncLsn) return null;
    return t;
  }

  async #resolve(relationId: number): Promise<Target | null> {
    const rel = this.#relations.get(relationId);
    if (rel === undefined) throw new FloeError(SqlState.protocolViolation, `logical replication: no relation message for relation ${relationId}`);
    const entry = this.#sub.tables.find((x) => x.sourceSchema === rel.schema && x.sourceName === rel.name);
    if (entry === undefined || entry.state !== 'ready') return null;
    let table = this.#w.getTableById(entry.tableId);
    if (table === undefined) {
      throw new FloeError(SqlState.undefinedTable, `logical replication target relation "${rel.schema}.${rel.name}" does not exist`);
    }
    // An added source column adds it in Floe (nullable; rows before it read NULL).
    const missing = rel.columns.filter((c) => !table!.columns.some((x) => x.name === c.name));
    if (missing.length > 0) {
      table = await addMissingColumns(this.#w, table, missing.map((c) => ({ name: c.name, type: sourceColumnType(c.typeOid, c.typmod), nullable: true })));
    }
    const sourceIndex = table.columns.map((c) => rel.columns.findIndex((x) => x.name === c.name));
    const keyColumns = table.primaryKey.map((k) => table!.columns.findIndex((c) => c.name === k));
    for (const k of keyColumns) {
      if (sourceIndex[k]! < 0) {
        throw new FloeError(SqlState.objectNotInPrerequisiteState,
          `logical replication target relation "${rel.schema}.${rel.name}" has key column "${table.columns[k]!.name}" that the source does not publish`);
      }
    }
    const sentColumns = sourceIndex.flatMap((src, i) => (src < 0 ? [] : [i]));
    return { table, syncLsn: entry.syncLsn, sourceIndex, keyColumns, sentColumns };
  }

  #value(text: string | null, type: SqlType): unknown {
    return text === null ? null : parseValue(text, type, TEXT_IO);
  }

  /** The key of an old tuple (only its key columns are sent unless REPLICA IDENTITY FULL). */
  #key(t: Target, tuple: readonly TupleValue[]): unknown[] {
    return t.keyColumns.map((i) => {
      const v = tuple[t.sourceIndex[i]!];
      if (v === undefined || (v !== null && typeof v !== 'string')) {
        throw new FloeError(SqlState.protocolViolation, `logical replication: key column "${t.table.columns[i]!.name}" of "${t.table.name}" was not sent`);
      }
      return this.#value(v, t.table.columns[i]!.type);
    });
  }

  /**
   * The old row of an UPDATE or DELETE on a table without a key: only REPLICA IDENTITY FULL
   * sends it whole ('O', every TOASTed value inlined), and nothing else can tell which row.
   */
  #wholeOldRow(t: Target, old: { readonly kind: 'key' | 'row'; readonly values: readonly TupleValue[] } | undefined): FloeRow {
    const rel = `"${t.table.namespace}.${t.table.name}"`;
    if (old?.kind !== 'row') {
      throw new FloeError(SqlState.objectNotInPrerequisiteState,
        `logical replication target relation ${rel} has no key, and the publisher sent no old row for an update or delete`, {
          hint: 'The source table needs REPLICA IDENTITY FULL while its Floe table has no primary key.',
        });
    }
    const cols = t.table.columns;
    const row = new Array<unknown>(cols.length).fill(null);
    for (const i of t.sentColumns) {
      const v = old.values[t.sourceIndex[i]!];
      if (v !== null && typeof v !== 'string') {
        throw new FloeError(SqlState.protocolViolation, `logical replication: the old row of ${rel} lacks column "${cols[i]!.name}"`);
      }
      row[i] = this.#value(v, cols[i]!.type);
    }
    return row;
  }

  /**
   * A new tuple as a Floe row. A TOASTed value the update left unchanged is not sent: it
   * comes from the old row (REPLICA IDENTITY FULL), the batch, or the table as Floe has it.
   */
  async #row(t: Target, tuple: readonly TupleValue[], oldRow: readonly TupleValue[] | undefined): Promise<FloeRow> {
    const cols = t.table.columns;
    const row = new Array<unknown>(cols.length).fill(null);
    const unchanged: number[] = [];
    for (let i = 0; i < cols.length; i++) {
      const src = t.sourceIndex[i]!;
      if (src < 0) continue;
      const v = tuple[src];
      if (v === undefined) continue;
      if (v !== null && typeof v !== 'string') {
        const old = oldRow?.[src];
        if (old === null || typeof old === 'string') row[i] = this.#value(old, cols[i]!.type);
        else unchanged.push(i);
        continue;
      }
      row[i] = this.#value(v, cols[i]!.type);
    }
    if (unchanged.length > 0) {
      if (t.keyColumns.length === 0) {
        throw new FloeError(SqlState.protocolViolation, `logical replication: an unchanged value of "${t.table.name}" came without the old row`);
      }
      const key = t.keyColumns.map((i) => row[i]);
      let current: readonly unknown[] | null | undefined = this.#batch.pending(t.table.id, key);
      if (current === undefined) current = await readRowByKey(this.#w, await this.#batch.flush(this.#w), t.table, key);
      for (const i of unchanged) row[i] = current?.[i] ?? null;
    }
    return row;
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b) === 0;
  return a === b;
}
