import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { isAncestorOrSelf, nodeContains, rootNode } from '../bucket/bucket-node.js';
import type { EncodedKeys } from '../bucket/key-encoding.js';
import { KeySet } from '../bucket/key-set.js';
import type { NewFileRecord } from '../catalog/catalog.js';
import type { Storage } from '../storage/storage.js';
import type { FrontierNode } from '../table/frontier.js';
import type { TableMetadata } from '../table/table-metadata.js';
import type { KeyRangeFilter } from './key-range-filter.js';
import { keyBitmapMayHold } from '../bucket/key-bitmap.js';
import { duplicateKeyError } from './duplicate-key-error.js';
import type { KeyCandidate, NodeKeys } from './key-winners.js';
import { KeyWinners, isLiveOp, nodeKeys, offerFileRows } from './key-winners.js';

/** One statement's rows as the uniqueness check needs them. */
export interface StatementKeys {
  /** Every row's key; rows [checkFrom, length) are checked inserts, the rows before them precede them. */
  readonly keys: EncodedKeys;
  readonly checkFrom: number;
  /** Ops of rows [0, checkFrom). */
  readonly ops: readonly string[] | undefined;
  /** Key values of row r, for the error's DETAIL. */
  readonly keyValues: (r: number) => unknown[];
  /** The checked rows' first key column values (for files' min/max). */
  readonly range: KeyRangeFilter;
  /** Partition of row r (its partition-key string). */
  readonly partitionOf: (r: number) => string;
  readonly seq: bigint;
  /** The offset the statement's first row will get. */
  readonly firstOffset: number;
}

/**
 * PostgreSQL's primary-key check for the inserts of one statement, against the table
 * as the transaction sees it: its pinned snapshot (`visible`, `frontier`), what it
 * staged earlier (`staged`), and the statement's own earlier rows (the deletes of an
 * UPDATE that moves keys, so uniqueness holds at the end of the statement).
 *
 * It never scans the table. Each key goes to the frontier node of its partition that
 * holds its hash; of that node's files (its base files, and the change files on its
 * line not yet folded into them) only those whose key bitmap has the hash are opened,
 * of base files only the row groups whose hash range holds it, and of those only the
 * key columns and _op/_seq are decoded. The merge-on-read rule then says whether the
 * key is live. 23505 when it is, or when two inserted rows share a key; 40001 when a
 * transaction that began after this one already removed the key, since its change
 * would hide this insert.
 */
export async function checkUniqueInsert(
  storage: Storage, table: TableMetadata, visible: readonly NewFileRecord[], staged: readonly NewFileRecord[],
  frontier: ReadonlyMap<string, readonly FrontierNode[]>, stmt: StatementKeys,
): Promise<void> {
  const n = stmt.keys.length;
  const checked = new Int32Array(n - stmt.checkFrom);
  for (let i = 0; i < checked.length; i++) checked[i] = stmt.checkFrom + i;
  const set = new KeySet(stmt.keys, checked);
  if (set.duplicate !== undefined) throw duplicateKeyError(table, stmt.keyValues(set.duplicate));
  const winners = new KeyWinners(n);
  const seq = Number(stmt.seq);
  for (let r = 0; r < stmt.checkFrom; r++) {
    const m = set.indexOf(stmt.keys, r);
    if (m >= 0) winners.offer(m, seq, stmt.firstOffset + r, isLiveOp(stmt.ops?.[r]));
  }
  const candidates = candidatesFor(stmt, checked, visible, staged, frontier).map((c) => ({ ...c, range: stmt.range }));
  await offerFileRows(storage, table, candidates, set, winners);
  for (const m of checked) {
    if (winners.live[m] === 1) throw duplicateKeyError(table, stmt.keyValues(m));
  }
  for (const m of checked) {
    if (winners.has(m) && winners.seq[m]! > seq) throw hiddenInsertError(table);
  }
}

/** The files that can decide the checked keys: per partition and frontier node, as a scan task would read them. */
export function candidatesFor(
  stmt: Pick<StatementKeys, 'keys' | 'partitionOf'>, checked: ArrayLike<number>, visible: readonly NewFileRecord[], staged: readonly NewFileRecord[],
  frontier: ReadonlyMap<string, readonly FrontierNode[]>,
): KeyCandidate[] {
  // hashes of the checked keys, by partition and frontier node (position in the partition's frontier)
  const byPartition = new Map<string, { nodes: readonly FrontierNode[]; hashes: number[][] }>();
  for (let i = 0; i < checked.length; i++) {
    const m = checked[i]!;
    const partition = stmt.partitionOf(m);
    let p = byPartition.get(partition);
    if (p === undefined) {
      const nodes = frontier.get(partition) ?? [];
      byPartition.set(partition, p = { nodes: nodes.length > 0 ? nodes : [{ node: rootNode(), baseSeq: 0n, baseFiles: [] }], hashes: [] });
    }
    const h = stmt.keys.hashes[m]!;
    let j = 0;
    while (j < p.nodes.length - 1 && !nodeContains(p.nodes[j]!.node, h)) j++;
    (p.hashes[j] ??= []).push(h);
  }
  const byNode: { partition: string; node: FrontierNode; hashes: number[] }[] = [];
  for (const [partition, p] of byPartition) p.hashes.forEach((hashes, j) => byNode.push({ partition, node: p.nodes[j]!, hashes }));
  // base files' deletion vectors (delta folds): the frontier's, read with its base files
  const deleted = new Map<NewFileRecord, readonly number[]>();
  const out = new Map<NewFileRecord, NodeKeys[]>();
  const add = (f: NewFileRecord, keys: NodeKeys): void => {
    let c = out.get(f);
    if (c === undefined) out.set(f, c = []);
    c.push(keys);
  };
  for (const { partition, node, hashes } of byNode) {
    const keys = nodeKeys(node.node, hashes);
    for (const f of node.baseFiles) {
      if (f.path === '') continue;
      add(f, keys);
      const dv = node.deleted?.get(f.fileId);
      if (dv !== undefined) deleted.set(f, [...dv]);
    }
    // A small statement (a one-row commit) meets every live change file here: its few hashes
    // are tested against each file's key bitmap first, without building anything for the
    // files that cannot hold them (nearly all). Many hashes: offerFileRows tests ranges first.
    const few = hashes.length <= FEW_KEYS;
    for (const files of [visible, staged]) {
      for (const f of files) {
        if (f.store !== 'change' || f.path === '' || f.partitionKey !== partition || f.seq < node.baseSeq) continue;
        if (few && f.keyBitmap !== undefined && !mayHoldAny(f.keyBitmap, hashes)) continue;
        const fn = { mask: f.nodeMask, index: f.nodeIndex };
        if (isAncestorOrSelf(fn, node.node) || isAncestorOrSelf(node.node, fn)) add(f, keys);
      }
    }
  }
  return [...out].map(([file, nodes]) => {
    const d = deleted.get(file);
    return d === undefined ? { file, nodes } : { file, nodes, deleted: d };
  });
}

/** Up to this many hashes per node, candidatesFor tests change files' key bitmaps itself. */
const FEW_KEYS = 16;

function mayHoldAny(bitmap: Uint8Array, hashes: readonly number[]): boolean {
  for (let i = 0; i < hashes.length; i++) if (keyBitmapMayHold(bitmap, hashes[i]!)) return true;
  return false;
}

/** Keys a transaction inserted, kept for the check at commit. */
export interface InsertedKeys {
  readonly keys: EncodedKeys;
  /** Key values of row r of `keys`. */
  readonly keyValues: (r: number) => unknown[];
  readonly range: KeyRangeFilter;
}

/**
 * The commit-time half of the check: change files committed after the snapshot this
 * transaction checked against (`files`, optimizer output excluded) must not have made
 * one of its inserted keys live (23505: the key now exists), nor removed it with a
 * higher seq (40001: that change would hide the insert).
 */
export async function checkConcurrentInserts(
  storage: Storage, table: TableMetadata, files: readonly NewFileRecord[], inserted: readonly InsertedKeys[], seq: bigint,
): Promise<void> {
  const changes = files.filter((f) => f.store === 'change' && f.path !== '');
  if (changes.length === 0 || inserted.length === 0) return;
  for (const part of inserted) {
    const set = new KeySet(part.keys);
    const winners = new KeyWinners(part.keys.length);
    const keys = nodeKeys(rootNode(), part.keys.hashes);
    await offerFileRows(storage, table, changes.map((file) => ({ file, nodes: [keys], range: part.range })), set, winners);
    for (let m = 0; m < part.keys.length; m++) {
      if (winners.live[m] === 1) throw duplicateKeyError(table, part.keyValues(m));
    }
    for (let m = 0; m < part.keys.length; m++) {
      if (winners.has(m) && winners.seq[m]! > Number(seq)) throw hiddenInsertError(table);
    }
  }
}

function hiddenInsertError(table: TableMetadata): FloeError {
  return new FloeError(SqlState.serializationFailure, 'could not serialize access due to concurrent delete', {
    detail: `A key inserted into table "${table.name}" was deleted by a transaction that began after this one.`,
    hint: 'Retry the transaction.',
  });
}
