import type { RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import type { BucketNode } from '../bucket/bucket-node.js';
import { nodeContains } from '../bucket/bucket-node.js';
import { encodeKeyBatch } from '../bucket/key-encoding.js';
import type { KeySet } from '../bucket/key-set.js';
import type { NewFileRecord } from '../catalog/catalog.js';
import { decodeDataFile } from '../format/data-file-reader.js';
import { openDataFileSource } from '../format/data-file-source.js';
import type { ParquetSource } from '../format/parquet-io.js';
import { changeFileExtras, tieredRows } from '../log/tiered-rows.js';
import { reverseBits32 } from '../optimize/hash-order.js';
import { cachedFooterRowGroups } from '../format/parquet-footer.js';
import { decodedPositions } from '../scan/deleted-positions.js';
import { keyBitmapMayHold } from '../bucket/key-bitmap.js';
import type { Storage } from '../storage/storage.js';
import { OP_COLUMN, SEQ_FILE_COLUMN, keyColumnsOf, physicalName } from '../table/table-layout.js';
import type { TableMetadata } from '../table/table-metadata.js';
import type { KeyRangeFilter } from './key-range-filter.js';
import { holdsAnyHash, rowGroupKeyHashes } from './row-group-key-hashes.js';
import { cachedBaseGroups, indexedKeys, rowsWithHashes } from './cached-base-rows.js';
import { cachedRowGroupSizes } from '../scan/cached-row-groups.js';

/** Up to this many keys, a candidate file's key bitmap is tested before its min/max. */
const FEW_KEYS = 16;

/**
 * The merge-on-read winner of each member of a KeySet among the rows offered to it:
 * the change with the greatest (seq, offset), or a base row whose `_seq` is at least
 * that change's seq (a base row ranks as (_seq, +∞)). `live` says whether the winner
 * leaves the key present (+I, +U, a base row). Seqs are compared as doubles: the
 * catalog's counter stays far below 2^53.
 */
export class KeyWinners {
  readonly seq: Float64Array;
  readonly offset: Float64Array;
  readonly live: Uint8Array;

  constructor(members: number) {
    this.seq = new Float64Array(members).fill(-1);
    this.offset = new Float64Array(members);
    this.live = new Uint8Array(members);
  }

  /** True when the offered row becomes the member's winner. */
  offer(m: number, seq: number, offset: number, live: boolean): boolean {
    if (seq > this.seq[m]! || (seq === this.seq[m]! && offset > this.offset[m]!)) {
      this.seq[m] = seq;
      this.offset[m] = offset;
      this.live[m] = live ? 1 : 0;
      return true;
    }
    return false;
  }

  has(m: number): boolean {
    return this.seq[m]! >= 0;
  }
}

/** The member hashes of one frontier node, and the same bit-reversed and sorted (for base row-group ranges). */
export interface NodeKeys {
  readonly node: BucketNode;
  readonly hashes: Uint32Array;
  readonly reversed: Uint32Array;
}

export function nodeKeys(node: BucketNode, hashes: readonly number[] | Uint32Array): NodeKeys {
  const h = Uint32Array.from(hashes);
  return { node, hashes: h, reversed: h.map(reverseBits32).sort() };
}

/** A data file to look for keys in, and the frontier nodes whose keys it may decide. */
export interface KeyCandidate {
  readonly file: NewFileRecord;
  /** The file decides a member's key only when the key hashes into one of these nodes. */
  readonly nodes: readonly NodeKeys[];
  /** The members' first key column values, against the file's min/max of that column. */
  readonly range?: KeyRangeFilter;
  /** A base file's deletion vector: rows a delta fold superseded, which decide nothing. */
  readonly deleted?: readonly number[];
}

export function isLiveOp(op: unknown): boolean {
  return op === '+I' || op === '+U';
}

/** Told of each row that becomes a member's winner: row `row` of `batch`, which holds every table column (physical names). */
export type WinnerRowSink = (member: number, batch: RecordBatch, row: number) => void;

/**
 * Offers every row of the candidates whose key is a member of `set` to `winners`.
 * Reads only the key columns and `_op` (change files) or `_seq` (base files), and
 * skips what the key structures rule out: files whose first key column's min/max
 * holds no member's, files whose key bitmap lacks every member hash, and base row
 * groups whose reversed-hash range holds none. With `winnerRows` (the lookup
 * changelog's before-images) every column of those files is decoded and each row
 * that wins is handed to it.
 */
export async function offerFileRows(
  storage: Storage, table: TableMetadata, candidates: readonly KeyCandidate[], set: KeySet, winners: KeyWinners, winnerRows?: WinnerRowSink,
): Promise<{ filesRead: number; rowsRead: number }> {
  const keyCols = keyColumnsOf(table);
  const readCols = winnerRows === undefined ? keyCols : table.columns;
  const keyNames = keyCols.map((c) => physicalName(c.fieldId));
  const keyTypes = keyCols.map((c) => c.type);
  let filesRead = 0;
  let rowsRead = 0;
  const firstKey = physicalName(keyCols[0]!.fieldId);
  for (const { file, nodes, range, deleted } of candidates) {
    if (file.path === '' || nodes.every((n) => n.hashes.length === 0)) continue;
    // Few keys (a small commit's insert, which meets every change file here): the key bitmap
    // first, a few bit tests that rule out nearly every file, where the range check decodes
    // the file's min/max. Many keys: the range first, a binary search against a bitmap test per key.
    const bitmap = file.keyBitmap;
    const fewKeys = nodes.reduce((t, n) => t + n.hashes.length, 0) <= FEW_KEYS;
    const bitmapRulesOut = () => bitmap !== undefined && !nodes.some((n) => n.hashes.some((h) => keyBitmapMayHold(bitmap, h)));
    const rangeRulesOut = () => range !== undefined && !range.mayHold(file.stats[firstKey]);
    if (fewKeys ? bitmapRulesOut() || rangeRulesOut() : rangeRulesOut() || bitmapRulesOut()) continue;
    let groups = file.store === 'base' ? rowGroupsHolding(file, nodes) : undefined;
    if (groups !== undefined && groups.length === 0) continue;
    const change = file.store === 'change';
    let opened: ParquetSource | undefined;
    const open = async (): Promise<ParquetSource> => {
      if (opened === undefined) { opened = await openDataFileSource(storage, file.path); filesRead++; }
      return opened;
    };
    if (!change) {
      // New keys rarely meet a base row: the groups' cached key hashes rule them out without
      // opening the file.
      groups = await groupsWithMemberHash(open, file.path, keyCols, keyNames, keyTypes, groups, nodes);
      if (groups !== undefined && groups.length === 0) continue;
    }
    // The lookup changelog's before-images: whole base groups from the row-group cache,
    // visited at their keys' rows only (cached-base-rows.ts).
    const cachedGroups = winnerRows !== undefined && !change ? groups : undefined;
    // Otherwise the keys alone are decoded first, and the `_seq` (as wide as the key) only where a key is.
    if (!change && cachedGroups === undefined && !(await anyMember(await open(), file.path, keyCols, keyNames, keyTypes, groups, set, nodes))) continue;
    let position = 0;
    const fileSeq = Number(file.seq);
    const extras = change ? changeFileExtras(file, OP_COLUMN) : [SEQ_FILE_COLUMN];
    const gone = !change && deleted !== undefined && deleted.length > 0 ? new Set(deleted) : undefined;
    const filePosition = gone === undefined ? undefined : decodedPositions(groups, groups === undefined ? undefined : await cachedRowGroupSizes(file.path, open));
    const memberHashes = nodes.map((n) => n.hashes);
    const decodedBatches = cachedGroups !== undefined
      ? await cachedBaseGroups(open, file.path, readCols, extras, cachedGroups)
      : await decodeDataFile(await open(), file.path, readCols, extras, groups);
    for (const decoded of decodedBatches) {
      rowsRead += decoded.numRows;
      // A tiered file: each row's own seq, and only the commits its (narrowed) record lists.
      const { batch, seqs, positions } = change ? tieredRows(decoded, file.snapshots) : { batch: decoded, seqs: undefined, positions: undefined };
      const indexed = cachedGroups === undefined ? undefined : indexedKeys(batch, keyNames, keyTypes);
      const keys = indexed?.keys ?? encodeKeyBatch(batch, keyNames, keyTypes);
      const extra = batch.getChild(change ? OP_COLUMN : SEQ_FILE_COLUMN);
      const offer = (r: number): void => {
        const m = set.indexOf(keys, r);
        if (m < 0 || !decides(nodes, keys.hashes[r]!)) return;
        if (gone?.has(filePosition === undefined ? position + r : filePosition[position + r]!) === true) return;
        const won = change
          ? winners.offer(m, seqs === undefined ? fileSeq : Number(seqs[r]!), file.firstOffset + position + (positions?.[r] ?? r), isLiveOp(extra?.get(r)))
          : winners.offer(m, Number(extra?.get(r) ?? file.seq), Number.POSITIVE_INFINITY, true);
        if (won && winnerRows !== undefined) winnerRows(m, batch, r);
      };
      if (indexed === undefined) for (let r = 0; r < batch.numRows; r++) offer(r);
      else for (const r of rowsWithHashes(indexed, memberHashes)) offer(r);
      position += decoded.numRows;
    }
  }
  return { filesRead, rowsRead };
}

async function anyMember(
  source: ParquetSource, path: string, keyCols: ReturnType<typeof keyColumnsOf>, keyNames: readonly string[], keyTypes: readonly SqlType[],
  groups: readonly number[] | undefined, set: KeySet, nodes: readonly NodeKeys[],
): Promise<boolean> {
  for (const batch of await decodeDataFile(source, path, keyCols, [], groups)) {
    const keys = encodeKeyBatch(batch, keyNames, keyTypes);
    for (let r = 0; r < batch.numRows; r++) if (set.indexOf(keys, r) >= 0 && decides(nodes, keys.hashes[r]!)) return true;
  }
  return false;
}

/**
 * Of a base file's candidate row groups (all of them when undefined), those whose key
 * hashes hold a member's; undefined when the file's groups are unknown (no footer).
 */
async function groupsWithMemberHash(
  open: () => Promise<ParquetSource>, path: string, keyCols: ReturnType<typeof keyColumnsOf>, keyNames: readonly string[], keyTypes: readonly SqlType[],
  groups: readonly number[] | undefined, nodes: readonly NodeKeys[],
): Promise<number[] | undefined> {
  const all = groups ?? footerGroups(path, (await open()).footer);
  if (all === undefined) return undefined;
  const kept: number[] = [];
  for (const g of all) {
    const hashes = await rowGroupKeyHashes(open, path, keyCols, keyNames, keyTypes, g);
    if (nodes.some((n) => holdsAnyHash(hashes, n.hashes))) kept.push(g);
  }
  return kept;
}

function footerGroups(path: string, footer: Uint8Array): number[] | undefined {
  const groups = footer.byteLength === 0 ? undefined : cachedFooterRowGroups(path, footer);
  return groups === undefined ? undefined : groups.map((_g, i) => i);
}

function decides(nodes: readonly NodeKeys[], hash: number): boolean {
  for (const n of nodes) if (nodeContains(n.node, hash)) return true;
  return false;
}

/** Row groups of a hash-ordered base file whose reversed-hash range holds one of the hashes; undefined: all. */
function rowGroupsHolding(file: NewFileRecord, nodes: readonly NodeKeys[]): number[] | undefined {
  const ranges = file.rowGroups;
  if (ranges === undefined) return undefined;
  const out: number[] = [];
  ranges.forEach(([lo, hi], i) => {
    for (const { reversed: rev } of nodes) {
      // the first reversed hash ≥ lo
      let a = 0;
      let b = rev.length;
      while (a < b) { const mid = (a + b) >>> 1; if (rev[mid]! < lo) a = mid + 1; else b = mid; }
      if (a < rev.length && rev[a]! <= hi) { out.push(i); return; }
    }
  });
  return out;
}
