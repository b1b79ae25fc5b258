import type { CopyBothChannel } from '../../common/session-handler.js';
import { enumTypeOf, typeModifier, typeOid } from '../../common/sql-type.js';
import { formatValue } from '../../exec/index.js';
import type { TableMetadata, Warehouse } from '../../lake/index.js';
import { readCommittedTransactions, type CommittedTransaction } from './change-feed.js';
import {
  beginMessage, commitMessage, deleteMessage, insertMessage, relationMessage, typeMessage, updateMessage, type TupleText,
} from './pgoutput-messages.js';
import { nowPostgresMicros, toPostgresMicros } from './postgres-epoch.js';
import { publishedTables } from './published-tables.js';
import { filteredChanges, type RowFilterOf, type RowVisibility } from './row-filter.js';
import { decodeClientStreamMessage, primaryKeepalive, xlogData } from './stream-messages.js';

export interface LogicalStreamOptions {
  readonly warehouse: Warehouse;
  readonly publicationNames: readonly string[];
  /** The first commit LSN to send (the later of the slot's confirmed position and the client's). */
  readonly startLsn: bigint;
  /** timestamptz values are written in this zone, as the walsender session's TimeZone. */
  readonly timeZone: string;
  /** The client's flushed position from a standby status update: the slot's confirmed_flush moves there. */
  readonly confirm: (lsn: bigint) => void;
  /** How long an idle stream waits for the client before it looks for new commits (default 100 ms). */
  readonly pollMs?: number;
  /** The longest silence before a keepalive (default 10 s, under PostgreSQL's wal_receiver_timeout). */
  readonly keepaliveMs?: number;
  /**
   * The rows of a table the connection may see (row-level security), asked once per table
   * per round; undefined, or an undefined answer, sends every row. It may throw to end the stream.
   */
  readonly rowFilter?: RowFilterOf;
}

/** Snapshots read per round: a large backlog streams in bounded steps, with client messages read between them. */
const SNAPSHOTS_PER_ROUND = 64;

/**
 * START_REPLICATION … LOGICAL with pgoutput: Floe's committed transactions on the published
 * tables, in commit order, each as Begin, Relation (first use, or after its columns
 * changed), the row changes and Commit, in XLogData messages. Between rounds it reads the
 * client's standby status updates and sends keepalives, and it returns when the client
 * sends CopyDone.
 */
export async function streamLogicalChanges(channel: CopyBothChannel, signal: AbortSignal, o: LogicalStreamOptions): Promise<void> {
  const pollMs = o.pollMs ?? 100;
  const keepaliveMs = o.keepaliveMs ?? 10_000;
  let position = o.startLsn;
  let announced = -1n;
  let lastSentAt = 0;
  const relations = new Map<number, string>();
  for (;;) {
    if (signal.aborted) throw signal.reason;
    const tables = publishedTables(o.warehouse, o.publicationNames);
    const { transactions, end } = await readCommittedTransactions(o.warehouse, tables.map((t) => t.table), position, SNAPSHOTS_PER_ROUND);
    const byId = new Map(tables.map((t) => [t.table.id, t]));
    const filters = new Map<number, RowVisibility | undefined>();
    const filterOf = (table: TableMetadata): RowVisibility | undefined => {
      if (!filters.has(table.id)) filters.set(table.id, o.rowFilter?.(table));
      return filters.get(table.id);
    };
    for (const t of transactions) {
      // A filtered update is tested as the update it was: its table must publish updates, whatever it becomes.
      const published = t.changes.filter((c) => byId.get(c.table.id)?.publish[c.kind] === true);
      sendTransaction(channel, { ...t, changes: o.rowFilter === undefined ? published : await filteredChanges(published, filterOf) }, relations, o.timeZone);
    }
    position = end;
    const idle = transactions.length === 0;
    if (!idle) lastSentAt = Date.now();
    if ((idle && position !== announced) || Date.now() - lastSentAt >= keepaliveMs) {
      channel.send(primaryKeepalive(position, nowPostgresMicros(), false));
      announced = position;
      lastSentAt = Date.now();
    }
    await channel.flush();
    // Idle, wait for the client up to the poll interval; busy, only take what it already sent.
    const wait = AbortSignal.timeout(idle ? pollMs : 0);
    for (;;) {
      const m = await channel.receive(wait);
      if (m === 'waited') break;
      if (m === 'done') return;
      const msg = decodeClientStreamMessage(m);
      if (msg.kind !== 'standbyStatus') continue;
      if (msg.flushed > 0n) o.confirm(msg.flushed < position ? msg.flushed : position);
      if (msg.replyRequested) {
        channel.send(primaryKeepalive(position, nowPostgresMicros(), false));
        await channel.flush();
      }
    }
  }
}

/** A transaction's changes, published and visible ones only, as Begin, Relations, the changes and Commit. */
function sendTransaction(channel: CopyBothChannel, t: CommittedTransaction, relations: Map<number, string>, timeZone: string): void {
  const committedAt = toPostgresMicros(t.committedAtMicros);
  const body: Buffer[] = [];
  for (const c of t.changes) {
    const signature = relationSignature(c.table);
    if (relations.get(c.table.id) !== signature) {
      body.push(...relationMessages(c.table));
      relations.set(c.table.id, signature);
    }
    const row = rowText(c.table, c.row, timeZone);
    if (c.kind === 'insert') body.push(insertMessage(c.table.id, row));
    // A changed key goes with the update as its old key ('K'); an unchanged one is not sent (REPLICA IDENTITY DEFAULT).
    else if (c.kind === 'update') body.push(updateMessage(c.table.id, c.oldKey === undefined ? undefined : { kind: 'K', tuple: rowText(c.table, c.oldKey, timeZone) }, row));
    else body.push(deleteMessage(c.table.id, { kind: c.table.primaryKey.length > 0 ? 'K' : 'O', tuple: row }));
  }
  // Like PostgreSQL 15's pgoutput, a transaction that changed nothing published (or visible) is not sent.
  if (body.length === 0) return;
  // As a walsender does, each XLogData names its record's LSN as both start and end: the
  // commit LSN for Begin and the changes, the commit's end for Commit. A client confirming
  // what it received mid-transaction then confirms less than the transaction's end.
  const now = nowPostgresMicros();
  channel.send(xlogData(t.commitLsn, t.commitLsn, now, beginMessage(t.commitLsn, committedAt, t.xid)));
  for (const m of body) channel.send(xlogData(t.commitLsn, t.commitLsn, now, m));
  channel.send(xlogData(t.endLsn, t.endLsn, now, commitMessage(t.commitLsn, t.endLsn, committedAt)));
}

function relationSignature(table: TableMetadata): string {
  return JSON.stringify([table.namespace, table.name, table.primaryKey, table.columns.map((c) => [c.name, typeOid(c.type), typeModifier(c.type)])]);
}

/** Type messages for the enum columns' types, then the Relation: keyed tables are REPLICA IDENTITY DEFAULT, the others FULL. */
function relationMessages(table: TableMetadata): Buffer[] {
  const out: Buffer[] = [];
  const seen = new Set<number>();
  for (const c of table.columns) {
    const e = enumTypeOf(c.type.kind === 'array' ? c.type.element : c.type);
    if (e !== undefined && !seen.has(e.oid)) {
      seen.add(e.oid);
      out.push(typeMessage(e.oid, e.namespace, e.name));
    }
  }
  const keyed = table.primaryKey.length > 0;
  out.push(relationMessage({
    oid: table.id, namespace: table.namespace, name: table.name, replicaIdentity: keyed ? 'd' : 'f',
    columns: table.columns.map((c) => ({
      name: c.name, typeOid: typeOid(c.type), typeModifier: typeModifier(c.type), key: keyed ? table.primaryKey.includes(c.name) : true,
    })),
  }));
  return out;
}

function rowText(table: TableMetadata, row: readonly unknown[], timeZone: string): TupleText {
  return table.columns.map((c, i) => {
    const v = row[i];
    return v === null || v === undefined ? null : formatValue(v, c.type, { timeZone });
  });
}
