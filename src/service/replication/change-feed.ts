import { vectorToValues } from '../../exec/index.js';
import { commitEndLsn, commitLsn, decodeKeyMoves, firstSnapshotFrom } from '../../lake/index.js';
import type { Snapshot, TableMetadata, Warehouse } from '../../lake/index.js';
import { inputTableChanges } from './input-table-changes.js';
import { keyString } from '../subscriptions/value-identity.js';

/** Operations whose snapshots change rows; create, optimize and layout rewrites change none. */
const DATA_OPERATIONS: ReadonlySet<string> = new Set(['write', 'append', 'delete']);

/** One row change as a publication sends it: the new row of an insert or update, the old row (or key) of a delete. */
export interface TableChange {
  readonly table: TableMetadata;
  readonly kind: 'insert' | 'update' | 'delete';
  /** Values in the table's column order. A keyed table's delete holds its key, the other columns null. */
  readonly row: readonly unknown[];
  /** An update that changed a keyed table's key: the old key, the other columns null. */
  readonly oldKey?: readonly unknown[];
  /**
   * The whole row before an update or delete, where the feed knows it: a row filter decides
   * on it (an update can leave or enter a role's view). Only ever tested, never sent.
   */
  readonly oldRow?: readonly unknown[];
}

/** One Floe transaction's commit on the published tables: its snapshots share a seq and lie next to each other in id order. */
export interface CommittedTransaction {
  readonly xid: number;
  readonly commitLsn: bigint;
  readonly endLsn: bigint;
  readonly committedAtMicros: bigint;
  readonly changes: readonly TableChange[];
}

interface Candidate {
  readonly table: TableMetadata;
  readonly snapshot: Snapshot;
}

/**
 * The committed transactions on `tables` (main branch) whose commit LSN is at or past
 * `fromLsn`, oldest first, at most about `maxSnapshots` snapshots (a transaction is never
 * cut). `end` is where the next read starts: past the last transaction returned, or, when
 * all were returned, past every snapshot committed before the read began. The tables'
 * snapshot lists are read one after another, so only snapshots up to the newest id handed
 * out before them count: a later one may have a lower-id sibling not listed yet.
 *
 * Each table lists at most `maxSnapshots + 1` snapshots, so a slot far behind reads its
 * backlog a piece at a time rather than all of it every round. A table cut short that way
 * is known only up to its last listed snapshot, so the read stops there; a transaction
 * that snapshot belongs to may have siblings past it, and waits for the next read whole.
 */
export async function readCommittedTransactions(
  warehouse: Warehouse, tables: readonly TableMetadata[], fromLsn: bigint, maxSnapshots: number,
): Promise<{ transactions: CommittedTransaction[]; end: bigint }> {
  const first = firstSnapshotFrom(fromLsn);
  const last = warehouse.replication.lastSnapshotId();
  const limit = maxSnapshots + 1;
  let listed: Candidate[] = [];
  // The last snapshot listed of the table cut shortest: every table is known up to it.
  let known: Snapshot | undefined;
  // Only the range asked for is read: an idle poll costs the same whatever the tables' history.
  for (const table of last >= first ? tables : []) {
    const snapshots = warehouse.listSnapshots(table, { from: first, to: last, limit });
    const lastListed = snapshots[limit - 1];
    if (lastListed !== undefined && lastListed.id < (known?.id ?? last)) known = lastListed;
    for (const snapshot of snapshots) {
      if (snapshot.branch === 'main' && DATA_OPERATIONS.has(snapshot.operation)) listed.push({ table, snapshot });
    }
  }
  if (known !== undefined) listed = listed.filter((c) => c.snapshot.id <= known.id);
  listed.sort((a, b) => (a.snapshot.id < b.snapshot.id ? -1 : a.snapshot.id > b.snapshot.id ? 1 : 0));
  let candidates = listed;
  // Where the read ends unless it returns fewer transactions than it found (below).
  let knownEnd = last < first ? fromLsn : commitEndLsn(known?.id ?? last);
  const tail = listed[listed.length - 1];
  if (known !== undefined && tail !== undefined && sameTransaction(tail.snapshot, known)) {
    // The transaction `known` belongs to may have siblings past it: it waits for the next read.
    let start = listed.length - 1;
    while (start > 0 && sameTransaction(listed[start - 1]!.snapshot, tail.snapshot)) start--;
    candidates = listed.slice(0, start);
    knownEnd = commitEndLsn(listed[start]!.snapshot.id - 1n);
  }
  const groups: Candidate[][] = [];
  let taken = 0;
  let cut = false;
  for (const c of candidates) {
    const open = groups[groups.length - 1];
    const seq = c.snapshot.summary.seq;
    if (open !== undefined && seq !== undefined && open[0]!.snapshot.summary.seq === seq) {
      open.push(c);
    } else {
      if (taken >= maxSnapshots) {
        cut = true;
        break;
      }
      groups.push([c]);
    }
    taken++;
  }
  const out: CommittedTransaction[] = [];
  for (const group of groups) {
    const changes: TableChange[] = [];
    for (const { table, snapshot } of group) changes.push(...await snapshotChanges(warehouse, table, snapshot));
    const lastSnapshot = group[group.length - 1]!.snapshot;
    out.push({
      xid: Number(BigInt(group[0]!.snapshot.summary.seq ?? lastSnapshot.id) & 0xffffffffn),
      commitLsn: commitLsn(lastSnapshot.id), endLsn: commitEndLsn(lastSnapshot.id), committedAtMicros: lastSnapshot.committedAtMicros, changes,
    });
  }
  const end = cut ? out[out.length - 1]!.endLsn : knownEnd;
  return { transactions: out, end: end > fromLsn ? end : fromLsn };
}

/** Whether two snapshots are one transaction's (one commit's snapshots share its seq). */
function sameTransaction(a: Snapshot, b: Snapshot): boolean {
  return a.id === b.id || (a.summary.seq !== undefined && a.summary.seq === b.summary.seq);
}

/** One stored change row of a snapshot, with its offset in the transaction when known. */
interface ChangeRow {
  readonly op: string;
  readonly row: readonly unknown[];
  readonly offset: number | undefined;
}

/**
 * A snapshot's change rows as inserts, updates and deletes. A keyed table's -U (before-image)
 * is dropped: its +U carries the row, and the key did not change. A key change is stored as
 * -D of the old key and +I of the new; the commit's summary pairs them (key-moves.ts), and a
 * pair is sent as one update carrying the old key, as PostgreSQL sends it. A keyed table's
 * commit written with the `input` changelog producer stores a blind upsert as +I whether or
 * not it replaced a row, so its keys are sent as what the commit did to them
 * (input-table-changes.ts); a `lookup` commit's rows already say (its summary names the
 * producer). An append table's -D rows are whole rows.
 */
async function snapshotChanges(warehouse: Warehouse, table: TableMetadata, snapshot: Snapshot): Promise<TableChange[]> {
  const width = table.columns.length;
  const keyed = table.primaryKey.length > 0;
  // What the commit's rows hold is the producer it was written with (recorded in its summary), not the table's property now.
  const fromInput = keyed && snapshot.summary['changelog-producer'] !== 'lookup';
  const keyOnly = keyOnlyRow(table);
  const rows: ChangeRow[] = [];
  for (const { batch, firstOffset } of await warehouse.readChanges(table, snapshot.parentId, snapshot.id)) {
    const cols = table.columns.map((c, i) => vectorToValues(batch.getChildAt(i)!, c.type));
    const ops = vectorToValues(batch.getChildAt(width)!, { kind: 'text' });
    for (let r = 0; r < batch.numRows; r++) {
      rows.push({ op: ops[r] as string, row: cols.map((c) => c[r] ?? null), offset: firstOffset === undefined ? undefined : firstOffset + r });
    }
  }
  const moves = keyed ? keyMoveRows(rows, decodeKeyMoves(snapshot.summary)) : new Map<number, number>();
  if (fromInput) {
    const keyOf = (row: readonly unknown[]) => table.primaryKey.map((k) => row[table.columns.findIndex((c) => c.name === k)]);
    const moved = [...moves].map(([d, i]) => [keyOf(rows[d]!.row), keyOf(rows[i]!.row)] as const);
    return (await inputTableChanges(warehouse, table, snapshot, rows.map((r) => r.row), moved)).map((c) => ({ table, ...c }));
  }
  const movedIn = new Set(moves.values());
  const out: TableChange[] = [];
  rows.forEach(({ op, row }, at) => {
    if (op === '-U' || movedIn.has(at)) return;
    const to = moves.get(at);
    // A lookup table's -D and key move hold the whole old row.
    if (to !== undefined) out.push({ table, kind: 'update', row: rows[to]!.row, oldKey: keyOnly(row), oldRow: row });
    else if (op === '-D') out.push({ table, kind: 'delete', row: keyed ? keyOnly(row) : row, oldRow: row });
    else if (op === '+U') out.push({ table, kind: 'update', row, ...beforeImage(rows[at - 1], row, keyOnly) });
    else out.push({ table, kind: 'insert', row });
  });
  return out;
}

/** A +U's before-image: the lookup producer writes each -U just before its +U, of the same key. */
function beforeImage(previous: ChangeRow | undefined, row: readonly unknown[], keyOnly: (row: readonly unknown[]) => unknown[]): { oldRow?: readonly unknown[] } {
  if (previous?.op !== '-U' || keyString(keyOnly(previous.row)) !== keyString(keyOnly(row))) return {};
  return { oldRow: previous.row };
}

/** A keyed table's row reduced to its key, the other columns null: how a delete or a changed key is sent. */
export function keyOnlyRow(table: TableMetadata): (row: readonly unknown[]) => unknown[] {
  const keyIdx = new Set(table.primaryKey.map((k) => table.columns.findIndex((c) => c.name === k)));
  return (row) => row.map((v, i) => (keyIdx.has(i) ? v : null));
}

/**
 * The recorded key changes among a snapshot's rows: the -D row's index to its +I row's. A
 * pair is kept only when both rows were read with their offsets (rows of a tiered file
 * written before tiered files kept `_offset` have none).
 */
function keyMoveRows(rows: readonly ChangeRow[], offsets: ReadonlyMap<number, number>): Map<number, number> {
  const out = new Map<number, number>();
  if (offsets.size === 0) return out;
  const byOffset = new Map<number, number>();
  rows.forEach((r, at) => { if (r.offset !== undefined) byOffset.set(r.offset, at); });
  for (const [d, i] of offsets) {
    const from = byOffset.get(d);
    const to = byOffset.get(i);
    if (from !== undefined && to !== undefined && rows[from]!.op === '-D' && rows[to]!.op === '+I') out.set(from, to);
  }
  return out;
}
