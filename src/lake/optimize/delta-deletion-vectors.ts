import type { NewFileRecord } from '../catalog/catalog.js';
import { takeData } from '../arrow/take-rows.js';
import { encodeKeyBatch, encodeKeyData, hashKeyData, keyColumnData } from '../bucket/key-encoding.js';
import type { EncodedKeys } from '../bucket/key-encoding.js';
import { sameKey } from '../bucket/key-set.js';
import { readDataFile } from '../format/data-file-reader.js';
import { HashFilter } from '../merge/hash-filter.js';
import type { ChangeInput } from '../merge/merge-on-read.js';
import type { Storage } from '../storage/storage.js';
import { physicalName } from '../table/table-layout.js';
import type { KeyedNodeRewriteTask } from './keyed-node-rewrite-task.js';

/** Every key a fold's change rows touch (any op), by hash. */
class ChangedKeys {
  readonly #keys: EncodedKeys[] = [];
  readonly #byHash = new Map<number, number[]>();
  readonly filter: HashFilter;

  constructor(changes: readonly ChangeInput[], keyNames: readonly string[], keyTypes: KeyedNodeRewriteTask['keyTypes']) {
    for (const ch of changes) {
      const keys = encodeKeyBatch(ch.batch, keyNames, keyTypes);
      const c = this.#keys.push(keys) - 1;
      const f = ch.hashFilter;
      for (let r = 0; r < keys.length; r++) {
        const h = keys.hashes[r]!;
        // an ancestor's change file: only the rows of this node's keys were folded
        if (f !== undefined && ((h & f.mask) >>> 0) !== f.index) continue;
        let list = this.#byHash.get(h);
        if (list === undefined) this.#byHash.set(h, list = []);
        list.push(c, r);
      }
    }
    this.filter = new HashFilter(Uint32Array.from(this.#byHash.keys()));
  }

  holds(keys: EncodedKeys, row: number): boolean {
    const list = this.#byHash.get(keys.hashes[row]!);
    if (list === undefined) return false;
    for (let i = 0; i < list.length; i += 2) if (sameKey(this.#keys[list[i]!]!, list[i + 1]!, keys, row)) return true;
    return false;
  }
}

/**
 * A delta fold's deletion vectors: for each large base file it keeps, the rows whose keys
 * the folded changes touch, added to the ones already deleted. Every such row lost to
 * the change: a kept file's rows are older than the node's base seq, every folded change
 * at or above it. Only the key columns are read; keys are hashed, and only rows whose
 * hash a change has are encoded and compared.
 */
export async function deltaDeletionVectors(storage: Storage, task: KeyedNodeRewriteTask, changes: readonly ChangeInput[]): Promise<NewFileRecord[]> {
  const kept = task.delta ?? [];
  if (kept.length === 0) return [];
  const { keyNames, keyTypes } = task;
  const changed = new ChangedKeys(changes, keyNames, keyTypes);
  const keyColumns = keyNames.map((name) => task.columns.find((c) => physicalName(c.fieldId) === name)!);
  const out: NewFileRecord[] = [];
  for (const f of kept) {
    const deleted = new Set(f.deletedPositions);
    let start = 0;
    for (const b of await readDataFile(storage, f.path, keyColumns)) {
      const n = b.numRows;
      const datas = keyColumnData(b, keyNames);
      const rows = changed.filter.candidates(hashKeyData(datas, keyNames, keyTypes, n));
      if (rows.length > 0) {
        const keys = encodeKeyData(datas.map((d) => takeData(d, rows)), keyNames, keyTypes, rows.length);
        for (let j = 0; j < rows.length; j++) if (changed.holds(keys, j)) deleted.add(start + rows[j]!);
      }
      start += n;
    }
    if (start !== f.rowCount) throw new Error(`base file "${f.path}" has ${start} rows, its record ${f.rowCount}`);
    const positions = Uint32Array.from(deleted).sort();
    out.push({
      store: 'dv', path: '', partitionKey: task.partitionKey, partitionValues: f.partitionValues,
      nodeMask: task.node.mask, nodeIndex: task.node.index, rowCount: positions.length, sizeBytes: positions.byteLength,
      seq: task.watermark, firstOffset: 0, stats: {}, dvTarget: f.fileId, dvPositions: positions, rowGroups: undefined, keyBitmap: undefined,
    });
  }
  return out;
}
