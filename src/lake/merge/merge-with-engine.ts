import { Field, util } from 'apache-arrow';
import type { Data, RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { batchFromData, buildColumnData } from '../arrow/batch-builder.js';
import { columnReader, dataReader } from '../arrow/column-reader.js';
import type { BucketNode } from '../bucket/bucket-node.js';
import { encodeKeyBatch } from '../bucket/key-encoding.js';
import type { EncodedKeys } from '../bucket/key-encoding.js';
import { FoldOp, compileFold } from './engine-fold.js';
import type { FoldChange, FoldOp as FoldOpKind } from './engine-fold.js';
import type { MergeEngineSpec } from './merge-engine.js';
import { OP_COLUMN, SEQ_COLUMN, baseSeqs, conform, outputFields } from './merge-on-read.js';
import type { MergeOptions } from './merge-on-read.js';

interface ChangeRef {
  readonly seq: bigint;
  readonly offset: number;
  /** Input order after sorting by (seq, firstOffset): breaks ties as the deduplicate merge does. */
  readonly input: number;
  readonly row: number;
}

/**
 * Merge-on-read for a non-deduplicate engine. Keys no change touches keep their base
 * row as stored (passed through, batch by batch). For every other key the base row (if
 * any) and its changes newer than that row's `_seq` are read as values and folded in
 * (seq, offset) order (engine-fold.ts); the key's row gets `_seq` = its newest change's
 * seq. Row by row, unlike the vectorized deduplicate merge: only touched keys pay for it.
 */
export function mergeWithEngine(opts: MergeOptions, engine: MergeEngineSpec): RecordBatch[] {
  const { keyColumns, keyTypes } = opts;
  const outFields = outputFields(opts);
  const names = outFields.filter((f) => f.name !== SEQ_COLUMN).map((f) => f.name);
  const fold = compileFold(engine, names);
  const changes = opts.changes
    .map((c, i) => ({ c, i }))
    .sort((a, b) => (a.c.seq < b.c.seq ? -1 : a.c.seq > b.c.seq ? 1 : a.c.firstOffset - b.c.firstOffset || a.i - b.i))
    .map((x) => x.c)
    .filter((c) => c.batch.numRows > 0);

  const byKey = new Map<string, ChangeRef[]>();
  // most base rows have no change: their hash says so without building their key
  const changedHashes = new Set<number>();
  for (let ci = 0; ci < changes.length; ci++) {
    const ch = changes[ci]!;
    const keys = encodeKeyBatch(ch.batch, keyColumns, keyTypes);
    for (let r = 0; r < keys.length; r++) {
      const h = keys.hashes[r]!;
      if (!inNode(h, ch.hashFilter) || !inNode(h, opts.hashFilter?.node)) continue;
      changedHashes.add(h);
      const k = keyString(keys, r);
      let refs = byKey.get(k);
      if (refs === undefined) byKey.set(k, refs = []);
      refs.push({ seq: ch.seqs?.[r] ?? ch.seq, offset: ch.firstOffset + (ch.offsets === undefined ? r : ch.offsets[r]!), input: ci, row: r });
    }
  }

  const out: RecordBatch[] = [];
  const folded: { key: string; base: readonly unknown[] | undefined; baseSeq: bigint | undefined }[] = [];
  const seenBase = new Set<string>();
  for (const b of opts.base) {
    if (b.numRows === 0) continue;
    const keys = encodeKeyBatch(b, keyColumns, keyTypes);
    const seqs = baseSeqs(b);
    const read = rowReader(b, names, engine);
    const keep = new Int32Array(b.numRows);
    let kept = 0;
    for (let r = 0; r < b.numRows; r++) {
      const k = changedHashes.has(keys.hashes[r]!) ? keyString(keys, r) : undefined;
      if (k === undefined || !byKey.has(k)) { keep[kept++] = r; continue; }
      seenBase.add(k);
      folded.push({ key: k, base: read(r), baseSeq: seqs[r]! });
    }
    if (kept === b.numRows) out.push(conform(b, outFields, undefined));
    else if (kept > 0) out.push(conform(b, outFields, keep.subarray(0, kept)));
  }
  for (const k of byKey.keys()) if (!seenBase.has(k)) folded.push({ key: k, base: undefined, baseSeq: undefined });

  const readers = changes.map((ch) => rowReader(ch.batch, names, engine));
  const opsOf = changes.map((ch) => opKinds(ch.batch));
  const rows: unknown[][] = [];
  const rowSeqs: bigint[] = [];
  for (const { key, base, baseSeq } of folded) {
    // a change at or below the base row's seq is already folded into it
    const refs = byKey.get(key)!.filter((x) => baseSeq === undefined || x.seq > baseSeq);
    if (refs.length === 0) {
      if (base !== undefined) { rows.push([...base]); rowSeqs.push(baseSeq!); }
      continue;
    }
    refs.sort((x, y) => (x.seq < y.seq ? -1 : x.seq > y.seq ? 1 : x.offset - y.offset || x.input - y.input || x.row - y.row));
    const input: FoldChange[] = refs.map((x) => ({ op: opsOf[x.input]![x.row]! as FoldOpKind, row: readers[x.input]!(x.row) }));
    const row = fold(base, input);
    if (row === undefined) continue;
    rows.push(row);
    rowSeqs.push(refs[refs.length - 1]!.seq);
  }
  if (rows.length > 0) out.push(buildRows(outFields, names, engine, rows, rowSeqs));
  return out;
}

function inNode(hash: number, node: BucketNode | undefined): boolean {
  return node === undefined || ((hash & node.mask) >>> 0) === node.index;
}

function keyString(keys: EncodedKeys, r: number): string {
  if (keys.kind === 'long') return `${keys.lo[r]!}:${keys.hi[r]!}`;
  let s = '';
  for (let i = keys.offsets[r]!; i < keys.offsets[r + 1]!; i++) s += String.fromCharCode(keys.bytes[i]!);
  return s;
}

/** Row r of a batch as canonical values, in `names` order. */
function rowReader(b: RecordBatch, names: readonly string[], engine: MergeEngineSpec): (r: number) => unknown[] {
  const readers = names.map((n) => {
    const i = b.schema.fields.findIndex((f) => f.name === n);
    if (i < 0) throw new FloeError(SqlState.internalError, `merge-on-read input lacks column "${n}"`);
    return dataReader(b.data.children[i]!, engine.types[n]!);
  });
  return (r) => readers.map((x) => x.get(r));
}

function opKinds(b: RecordBatch): Uint8Array {
  const child = b.getChild(OP_COLUMN);
  if (child === null) throw new FloeError(SqlState.internalError, `merge-on-read input lacks column "${OP_COLUMN}"`);
  const reader = columnReader(child, { kind: 'text' });
  const out = new Uint8Array(b.numRows);
  for (let r = 0; r < b.numRows; r++) {
    const op = reader.get(r);
    if (op === '+I' || op === '+U') out[r] = FoldOp.Upsert;
    else if (op === '-U') out[r] = FoldOp.Retract;
    else if (op === '-D') out[r] = FoldOp.Delete;
    else throw new FloeError(SqlState.dataCorrupted, `invalid change operation ${JSON.stringify(op)} in a change file`);
  }
  return out;
}

/** The folded rows as one batch of the output columns (built from their SQL types, which the decoded batches have too). */
function buildRows(outFields: readonly Field[], names: readonly string[], engine: MergeEngineSpec, rows: readonly unknown[][], seqs: readonly bigint[]): RecordBatch {
  const fields: Field[] = [];
  const children: Data[] = [];
  for (const f of outFields) {
    const c = names.indexOf(f.name);
    const data = c < 0
      ? buildColumnData({ kind: 'int8' }, seqs, SEQ_COLUMN, false)
      : buildColumnData(engine.types[f.name]!, rows.map((row) => row[c]), f.name);
    children.push(data);
    // the output's fields, as the base batches have them: a writer given batches of two schemas keeps only the first's rows
    fields.push(c < 0 || util.compareTypes(f.type, data.type) ? f : new Field(f.name, data.type, f.nullable, f.metadata));
  }
  return batchFromData(fields, children, rows.length);
}
