import { DataType, Field, Int64, makeData } from 'apache-arrow';
import type { Data, RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { batchFromData } from '../arrow/batch-builder.js';
import { columnReader } from '../arrow/column-reader.js';
import type { SelectedBatch } from '../arrow/selected-batch.js';
import { takeData } from '../arrow/take-rows.js';
import { rowsByNode, type BucketNode } from '../bucket/bucket-node.js';
import { encodeKeyBatch, encodeKeyData, hashKeyData, keyColumnData } from '../bucket/key-encoding.js';
import type { EncodedKeys } from '../bucket/key-encoding.js';
import { HashFilter } from './hash-filter.js';
import type { MergeEngineSpec } from './merge-engine.js';
import { mergeWithEngine } from './merge-with-engine.js';

export const SEQ_COLUMN = '_seq';
export const OP_COLUMN = '_op';

export interface ChangeInput {
  /** Table columns plus `_op` (+I, -U, +U, -D) as Utf8 or a dictionary of Utf8. */
  readonly batch: RecordBatch;
  /** The writing transaction's start seq. */
  readonly seq: bigint;
  /** Offset of the batch's first row within its transaction. */
  readonly firstOffset: number;
  /**
   * Row r's offset is firstOffset + offsets[r] (rows a key filter kept, ascending);
   * absent: firstOffset + r.
   */
  readonly offsets?: Int32Array;
  /** Keep only rows whose key hashes into this node (change files of an ancestor node). */
  readonly hashFilter?: BucketNode;
  /**
   * Row r's own seq (a tiered change file holds several transactions' rows, its `_seq`
   * column); absent: every row has `seq`. Offsets then compare only within one input.
   */
  readonly seqs?: BigInt64Array;
}

export interface MergeOptions {
  /** Base rows: table columns plus Int64 `_seq`; at most one row per key. */
  readonly base: readonly RecordBatch[];
  readonly changes: readonly ChangeInput[];
  readonly keyColumns: readonly string[];
  readonly keyTypes: readonly SqlType[];
  /** Applies to every change input (harmless for the node's own and descendant files). */
  readonly hashFilter?: { readonly node: BucketNode };
  /** A non-deduplicate merge engine (merge-engine.ts): rows of a key are folded by it (merge-with-engine.ts). */
  readonly engine?: MergeEngineSpec;
  /**
   * Every change is newer than every base row (the caller knows it from the files' seqs), so
   * no base row can win: base batches need no `_seq`, and the output has none.
   */
  readonly baseOlder?: boolean;
  /**
   * Keep only base rows whose key hashes into this node: a scan task that covers part of
   * a node's hash range (plan-scan.ts splits big merges) reads row groups that straddle it.
   */
  readonly baseNode?: BucketNode;
}

/**
 * Merge-on-read: for each key, the change with the greatest (seq, offset) wins over
 * every other change and over a base row whose `_seq` is lower; a base row whose
 * `_seq` ≥ that change's seq wins instead. A winning -D/-U removes the key; a winning
 * +I/+U is live with `_seq` = its seq. Output: the live rows (table columns + `_seq`),
 * surviving base rows first (batch by batch, in input order; an untouched base batch
 * is passed through as is), then winning change rows by (seq, firstOffset).
 *
 * Vectorized: change rows' keys are encoded once into typed arrays (key-encoding.ts)
 * and go into one open-addressing table keyed by hash and resolved by encoded-key
 * equality. Base rows' keys are only hashed; a bitset over the change hashes rules out
 * most of them, and just the candidates left are encoded and probe the table.
 * Survivors are gathered column-wise (take-rows.ts), or left as a selection by mergeOnReadSelected.
 */
export function mergeOnRead(opts: MergeOptions): RecordBatch[] {
  return mergeOnReadSelected(opts).map(({ batch, rows }) => (rows === undefined ? batch : conform(batch, batch.schema.fields, rows)));
}

/**
 * mergeOnRead without copying the surviving base rows: a base batch some of whose
 * rows lost comes out whole with the rows kept, so a scan's consumer copies each
 * column once, after its own filters, and columns it drops never.
 */
export function mergeOnReadSelected(opts: MergeOptions): SelectedBatch[] {
  if (opts.engine !== undefined && opts.engine.kind !== 'deduplicate') return mergeWithEngine(opts, opts.engine).map((batch) => ({ batch, rows: undefined }));
  const outFields = opts.baseOlder === true ? outputFields(opts).filter((f) => f.name !== SEQ_COLUMN) : outputFields(opts);
  const choices = mergeChoices(opts);
  const out: SelectedBatch[] = [];
  opts.base.forEach((b, i) => {
    const dropped = choices.baseDropped[i];
    const keep = dropped === undefined || dropped.length === 0 ? undefined : allBut(b.numRows, dropped);
    if (b.numRows > 0 && (keep === undefined || keep.length > 0)) out.push({ batch: conform(b, outFields, undefined), rows: keep });
  });
  for (const i of changeOrder(opts.changes)) {
    const pick = choices.changeWinners[i]!;
    if (pick.length > 0) out.push({ batch: conformChange(opts.changes[i]!, outFields, pick), rows: undefined });
  }
  return out;
}

/** What a deduplicating merge decides, by row index into its inputs' batches. */
export interface MergeChoices {
  /** Per base batch: its rows that are not live (a change overrode them, or they lie outside `baseNode`), ascending; undefined: none. */
  readonly baseDropped: readonly (Int32Array | undefined)[];
  /** Per change input, in the caller's order: its rows that won their key and are live, ascending. */
  readonly changeWinners: readonly Int32Array[];
}

/** The indexes of the change inputs in (seq, firstOffset) order (ties: the caller's order). */
function changeOrder(changes: readonly ChangeInput[]): number[] {
  return changes
    .map((c, i) => ({ c, i }))
    .sort((a, b) => (a.c.seq < b.c.seq ? -1 : a.c.seq > b.c.seq ? 1 : a.c.firstOffset - b.c.firstOffset || a.i - b.i))
    .map((x) => x.i);
}

/**
 * The deduplicate merge's decisions without building its output: which base rows drop
 * and which change rows win. A scan that reads the same files again can keep these
 * (merge-position-memo.ts) and skip the merge.
 */
export function mergeChoices(opts: MergeOptions): MergeChoices {
  const { base, keyColumns, keyTypes } = opts;
  const order = changeOrder(opts.changes).filter((i) => opts.changes[i]!.batch.numRows > 0);
  const changes = order.map((i) => opts.changes[i]!);
  const changeWinners: Int32Array[] = opts.changes.map(() => new Int32Array(0));

  if (changes.length === 0) {
    const baseDropped = base.map((b) => {
      const node = opts.baseNode;
      if (node === undefined || b.numRows === 0) return undefined;
      const outside = rowsByNode(hashKeyData(keyColumnData(b, keyColumns), keyColumns, keyTypes, b.numRows), node, false);
      return outside.length === 0 ? undefined : outside;
    });
    return { baseDropped, changeWinners };
  }

  // --- change rows: encode, filter by node, pool keys ---
  const distinctSeqs = distinctSeqsOf(changes);
  const rankOfSeq = new Map<bigint, number>(distinctSeqs.map((q, i) => [q, i]));
  const encoded: EncodedKeys[] = [];
  const live: Uint8Array[] = [];
  let total = 0;
  for (const ch of changes) {
    const keys = encodeKeyBatch(ch.batch, keyColumns, keyTypes);
    encoded.push(keys);
    live.push(opLiveness(ch.batch));
    total += keys.length;
  }
  const pool = new KeyPool(encoded);
  const rankOf = new Int32Array(total);
  const offsetOf = new Int32Array(total);
  const included = new Uint8Array(total);
  {
    let g = 0;
    for (let c = 0; c < changes.length; c++) {
      const ch = changes[c]!;
      markRows(encoded[c]!.hashes, g, rankOfSeq.get(ch.seq) ?? 0, ch.firstOffset, ch.offsets, ch.hashFilter, opts.hashFilter?.node, rankOf, offsetOf, included);
      if (ch.seqs !== undefined) rowRanks(ch.seqs, rankOfSeq, rankOf, g);
      g += encoded[c]!.length;
    }
  }

  // --- winner per key: open addressing on the murmur hash ---
  let cap = 16;
  while (cap < total * 2) cap *= 2;
  const capMask = cap - 1;
  const slots = new Int32Array(cap).fill(-1);
  const slotOf = new Int32Array(total).fill(-1);
  insertChanges(pool, rankOf, offsetOf, included, slots, slotOf, capMask);
  const filter = new HashFilter(pool.hashes, included);

  // --- base rows: drop those a newer change overrides; note keys whose base row wins ---
  // Most base rows have no change: their keys are hashed (no bytes built) and the filter
  // rules them out; only the candidates left are encoded and looked up in the table.
  const baseWins = new Uint8Array(cap);
  const baseDropped = base.map((b) => {
    const n = b.numRows;
    if (n === 0) return undefined;
    const datas = keyColumnData(b, keyColumns);
    const hashes = hashKeyData(datas, keyColumns, keyTypes, n);
    const outside = opts.baseNode === undefined ? undefined : rowsByNode(hashes, opts.baseNode, false);
    const candidates = filter.candidates(hashes);
    let lost: Int32Array | undefined;
    if (candidates.length > 0) {
      const keys = encodeKeyData(datas.map((d) => takeData(d, candidates)), keyColumns, keyTypes, candidates.length);
      // Below every change's seq when base rows are older: no base row wins.
      const candidateSeqs = opts.baseOlder === true ? new BigInt64Array(candidates.length).fill(-1n) : seqsOf(baseSeqs(b), candidates);
      const lostCandidates = probeBase(keys, candidateSeqs, { slots, capMask, pool, rankOf, distinctSeqs, baseWins });
      // A row outside the task's node has no change of its key here (its changes are filtered to the node).
      if (lostCandidates.length > 0) lost = lostCandidates.map((i) => candidates[i]!);
    }
    const dropped = outside === undefined ? lost : lost === undefined ? outside : unionSorted(outside, lost);
    return dropped === undefined || dropped.length === 0 ? undefined : dropped;
  });

  // --- winning live change rows ---
  let g0 = 0;
  for (let c = 0; c < changes.length; c++) {
    const n = encoded[c]!.length;
    changeWinners[order[c]!] = pickWinners(g0, n, live[c]!, slots, slotOf, baseWins);
    g0 += n;
  }
  return { baseDropped, changeWinners };
}

function seqsOf(seqs: BigInt64Array, rows: Int32Array): BigInt64Array {
  return BigInt64Array.from(rows, (r) => seqs[r]!);
}

/** Every seq a change row has, ascending: a rank compares them as small integers. */
function distinctSeqsOf(changes: readonly ChangeInput[]): bigint[] {
  const seen = new Set<bigint>();
  for (const ch of changes) {
    if (ch.seqs === undefined) seen.add(ch.seq);
    else for (const q of ch.seqs) seen.add(q);
  }
  return [...seen].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The ranks of a tiered input's rows, from their own seqs. */
function rowRanks(seqs: BigInt64Array, rankOfSeq: ReadonlyMap<bigint, number>, rankOf: Int32Array, g0: number): void {
  let prev: bigint | undefined;
  let rank = 0;
  for (let r = 0; r < seqs.length; r++) {
    const q = seqs[r]!;
    if (q !== prev) { rank = rankOfSeq.get(q)!; prev = q; }
    rankOf[g0 + r] = rank;
  }
}

/** Per change row: its seq rank, offset, and whether it passes the hash filters. */
function markRows(
  hashes: Uint32Array, g0: number, rank: number, firstOffset: number, offsets: Int32Array | undefined,
  f1: BucketNode | undefined, f2: BucketNode | undefined, rankOf: Int32Array, offsetOf: Int32Array, included: Uint8Array,
): void {
  const n = hashes.length;
  rankOf.fill(rank, g0, g0 + n);
  if (offsets === undefined) for (let r = 0; r < n; r++) offsetOf[g0 + r] = firstOffset + r;
  else for (let r = 0; r < n; r++) offsetOf[g0 + r] = firstOffset + offsets[r]!;
  if (f1 === undefined && f2 === undefined) {
    included.fill(1, g0, g0 + n);
    return;
  }
  const m1 = f1?.mask ?? 0;
  const i1 = f1?.index ?? 0;
  const m2 = f2?.mask ?? 0;
  const i2 = f2?.index ?? 0;
  for (let r = 0; r < n; r++) {
    const h = hashes[r]!;
    included[g0 + r] = ((h & m1) >>> 0) === i1 && ((h & m2) >>> 0) === i2 ? 1 : 0;
  }
}

/** Puts each included change row in the table, keeping per key the greatest (seq rank, offset). */
function insertChanges(
  pool: KeyPool, rankOf: Int32Array, offsetOf: Int32Array, included: Uint8Array, slots: Int32Array, slotOf: Int32Array, capMask: number,
): void {
  const hashes = pool.hashes;
  const total = hashes.length;
  for (let g = 0; g < total; g++) {
    if (included[g] === 0) continue;
    const h = hashes[g]!;
    let s = h & capMask;
    for (;;) {
      const w = slots[s]!;
      if (w === -1) { slots[s] = g; break; }
      if (hashes[w] === h && pool.equalPooled(w, g)) {
        // rows arrive in ascending (seq, offset) order except across overlapping offset ranges, so compare explicitly
        if (rankOf[g]! > rankOf[w]! || (rankOf[g] === rankOf[w] && offsetOf[g]! >= offsetOf[w]!)) slots[s] = g;
        break;
      }
      s = (s + 1) & capMask;
    }
    slotOf[g] = s;
  }
}

/** Rows [g0, g0+n) that won their key, are live (+I/+U) and were not beaten by a base row. */
function pickWinners(g0: number, n: number, isLive: Uint8Array, slots: Int32Array, slotOf: Int32Array, baseWins: Uint8Array): Int32Array {
  const pick = new Int32Array(n);
  let k = 0;
  for (let r = 0; r < n; r++) {
    const g = g0 + r;
    const s = slotOf[g]!;
    if (s !== -1 && slots[s] === g && isLive[r] === 1 && baseWins[s] === 0) pick[k++] = r;
  }
  return pick.subarray(0, k);
}

interface ProbeState {
  readonly slots: Int32Array;
  readonly capMask: number;
  readonly pool: KeyPool;
  readonly rankOf: Int32Array;
  readonly distinctSeqs: readonly bigint[];
  readonly baseWins: Uint8Array;
}

/**
 * Looks up base rows' keys among the winning changes. Returns the indices (into
 * `keys`) of the rows a newer change overrides; marks slots where the base row wins.
 * (Its own function so the hot loop is optimized on its own.)
 */
function probeBase(keys: EncodedKeys, seqs: BigInt64Array, st: ProbeState): Int32Array {
  const { slots, capMask, pool, rankOf, distinctSeqs, baseWins } = st;
  const n = keys.length;
  const hashes = keys.hashes;
  const poolHashes = pool.hashes;
  const lost = new Int32Array(n);
  let k = 0;
  for (let r = 0; r < n; r++) {
    const h = hashes[r]!;
    let s = h & capMask;
    let w = slots[s]!;
    while (w !== -1) {
      if (poolHashes[w] === h && pool.equalForeign(w, keys, r)) {
        if (seqs[r]! >= distinctSeqs[rankOf[w]!]!) baseWins[s] = 1;
        else lost[k++] = r;
        break;
      }
      s = (s + 1) & capMask;
      w = slots[s]!;
    }
  }
  return lost.subarray(0, k);
}

/** Rows 0..n-1 except those in `dropped` (ascending). */
function allBut(n: number, dropped: Int32Array): Int32Array {
  const keep = new Int32Array(n - dropped.length);
  let k = 0;
  let next = 0;
  for (const drop of dropped) {
    while (next < drop) keep[k++] = next++;
    next = drop + 1;
  }
  while (next < n) keep[k++] = next++;
  return keep;
}

/** Two ascending, disjoint lists as one ascending list. */
function unionSorted(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i]! < b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

/** The output schema: table columns of the first input (without `_op`/`_seq`) then `_seq`. */
export function outputFields(opts: MergeOptions): Field[] {
  const first = opts.base[0] ?? opts.changes[0]?.batch;
  if (first === undefined) return [];
  const fields = first.schema.fields.filter((f) => f.name !== OP_COLUMN && f.name !== SEQ_COLUMN);
  const seqField = opts.base[0]?.schema.fields.find((f) => f.name === SEQ_COLUMN) ?? new Field(SEQ_COLUMN, new Int64(), false);
  return [...fields, seqField];
}

function columnData(b: RecordBatch, name: string): Data {
  const i = b.schema.fields.findIndex((f) => f.name === name);
  if (i < 0) throw new FloeError(SqlState.internalError, `merge-on-read input lacks column "${name}"`);
  return b.data.children[i]!;
}

/** A base batch (optionally row-selected) with exactly the output columns, in order. */
export function conform(b: RecordBatch, fields: readonly Field[], rows: Int32Array | undefined): RecordBatch {
  const same = b.schema.fields.length === fields.length && fields.every((f, i) => b.schema.fields[i]!.name === f.name);
  if (rows === undefined && same) return b;
  const children = fields.map((f) => {
    const d = columnData(b, f.name);
    return rows === undefined ? d : takeData(d, rows);
  });
  return batchFromData(fields, children, rows === undefined ? b.numRows : rows.length);
}

const mk = makeData as unknown as (props: Record<string, unknown>) => Data;

function conformChange(ch: ChangeInput, fields: readonly Field[], rows: Int32Array): RecordBatch {
  const n = rows.length;
  const children = fields.map((f) => {
    if (f.name === SEQ_COLUMN) {
      const seqs = ch.seqs === undefined ? new BigInt64Array(n).fill(ch.seq) : BigInt64Array.from(rows, (r) => ch.seqs![r]!);
      return mk({ type: f.type, length: n, nullCount: 0, data: seqs });
    }
    return takeData(columnData(ch.batch, f.name), rows);
  });
  return batchFromData(fields, children, n);
}

/** Per row: 1 when `_op` is +I/+U (the row is live if it wins), 0 for -U/-D. */
function opLiveness(b: RecordBatch): Uint8Array {
  const data = columnData(b, OP_COLUMN);
  const n = b.numRows;
  const out = new Uint8Array(n);
  const t = data.type as DataType;
  if (data.nullCount > 0) throw new FloeError(SqlState.dataCorrupted, 'change row with NULL _op');
  if (DataType.isUtf8(t)) {
    const bytes = data.values as Uint8Array;
    const offs = data.valueOffsets as Int32Array;
    for (let r = 0; r < n; r++) {
      const o = offs[r]!;
      const sign = bytes[o]!;
      const kind = bytes[o + 1]!;
      // +I +U -U -D, nothing else
      const ok = offs[r + 1]! - o === 2 && ((sign === 0x2b && (kind === 0x49 || kind === 0x55)) || (sign === 0x2d && (kind === 0x55 || kind === 0x44)));
      if (!ok) checkOp(columnReader(b.getChild(OP_COLUMN)!, { kind: 'text' }).get(r));
      out[r] = sign === 0x2b ? 1 : 0;
    }
    return out;
  }
  if (DataType.isDictionary(t)) {
    const dict = (data as unknown as { dictionary: { length: number } & Parameters<typeof columnReader>[0] }).dictionary;
    const reader = columnReader(dict, { kind: 'text' });
    const table = new Uint8Array(dict.length);
    for (let d = 0; d < dict.length; d++) table[d] = checkOp(reader.get(d)) ? 1 : 0;
    const idx = data.values as ArrayLike<number>;
    for (let r = 0; r < n; r++) out[r] = table[Number(idx[r]!)]!;
    return out;
  }
  const reader = columnReader(b.getChild(OP_COLUMN)!, { kind: 'text' });
  for (let r = 0; r < n; r++) out[r] = checkOp(reader.get(r)) ? 1 : 0;
  return out;
}

function checkOp(op: unknown): boolean {
  if (op === '+I' || op === '+U') return true;
  if (op === '-U' || op === '-D') return false;
  throw new FloeError(SqlState.dataCorrupted, `invalid change operation ${JSON.stringify(op)} in a change file`);
}

export function baseSeqs(b: RecordBatch): BigInt64Array {
  const d = columnData(b, SEQ_COLUMN);
  const v = d.values as unknown;
  if (v instanceof BigInt64Array && d.nullCount === 0) return v;
  const r = columnReader(b.getChild(SEQ_COLUMN)!, { kind: 'int8' });
  const out = new BigInt64Array(b.numRows);
  for (let i = 0; i < b.numRows; i++) {
    const s = r.get(i);
    if (s === null) throw new FloeError(SqlState.dataCorrupted, 'base row with NULL _seq');
    out[i] = s as bigint;
  }
  return out;
}

/** Change-row keys of all inputs in one flat store, so any two rows compare by index. */
class KeyPool {
  readonly hashes: Uint32Array;
  readonly long: boolean;
  readonly lo: Int32Array;
  readonly hi: Int32Array;
  readonly bytes: Uint8Array;
  readonly offsets: Int32Array;

  constructor(parts: readonly EncodedKeys[]) {
    let n = 0;
    let nbytes = 0;
    for (const p of parts) { n += p.length; nbytes += p.kind === 'bytes' ? p.offsets[p.length]! : 0; }
    this.long = parts[0]!.kind === 'long';
    this.hashes = new Uint32Array(n);
    this.lo = new Int32Array(this.long ? n : 0);
    this.hi = new Int32Array(this.long ? n : 0);
    this.bytes = new Uint8Array(this.long ? 0 : nbytes);
    this.offsets = new Int32Array(this.long ? 0 : n + 1);
    let g = 0;
    let pos = 0;
    for (const p of parts) {
      this.hashes.set(p.hashes, g);
      if (this.long) {
        this.lo.set(p.lo, g);
        this.hi.set(p.hi, g);
      } else {
        const len = p.offsets[p.length]!;
        this.bytes.set(p.bytes.subarray(0, len), pos);
        for (let r = 0; r < p.length; r++) this.offsets[g + r + 1] = pos + p.offsets[r + 1]!;
        pos += len;
      }
      g += p.length;
    }
  }

  equalPooled(a: number, b: number): boolean {
    if (this.long) return this.lo[a] === this.lo[b] && this.hi[a] === this.hi[b];
    const o = this.offsets;
    return rangeEqual(this.bytes, o[a]!, o[a + 1]!, this.bytes, o[b]!, o[b + 1]!);
  }

  equalForeign(a: number, keys: EncodedKeys, r: number): boolean {
    if (this.long) return this.lo[a] === keys.lo[r] && this.hi[a] === keys.hi[r];
    const o = this.offsets;
    return rangeEqual(this.bytes, o[a]!, o[a + 1]!, keys.bytes, keys.offsets[r]!, keys.offsets[r + 1]!);
  }
}

function rangeEqual(x: Uint8Array, xs: number, xe: number, y: Uint8Array, ys: number, ye: number): boolean {
  if (xe - xs !== ye - ys) return false;
  for (let i = 0; i < xe - xs; i++) if (x[xs + i] !== y[ys + i]) return false;
  return true;
}
