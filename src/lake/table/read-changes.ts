import { Field, Int64, Utf8, makeData } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { arrowFieldOf } from '../arrow/arrow-type.js';
import { batchFromData, buildColumnData } from '../arrow/batch-builder.js';
import { readDataFile } from '../format/data-file-reader.js';
import type { LakeContext } from '../warehouse/lake-context.js';
import type { ChangeBatch } from '../warehouse/warehouse.js';
import { OP_COLUMN, physicalName } from './table-layout.js';
import type { TableMetadata } from './table-metadata.js';

/**
 * table_changes / t$audit_log: the change rows committed by the snapshots after
 * `from` up to `to` on `to`'s lineage, in commit order, then (seq, offset) order.
 */
export async function readChanges(ctx: LakeContext, table: TableMetadata, from: bigint | undefined, to: bigint): Promise<ChangeBatch[]> {
  const { catalog, storage } = ctx;
  if (catalog.getSnapshot(table.id, to) === undefined) throw new FloeError(SqlState.undefinedObject, `snapshot ${to} of table "${table.name}" does not exist`);
  const chain = catalog.ancestors(table.id, to);
  const stop = from === undefined ? chain.length : chain.indexOf(from);
  if (stop < 0) throw new FloeError(SqlState.invalidParameterValue, `snapshot ${from} is not an ancestor of snapshot ${to}`);
  const snaps = chain.slice(0, stop).reverse();
  const out: ChangeBatch[] = [];
  for (const sid of snaps) {
    const snap = catalog.getSnapshot(table.id, sid)!;
    if (snap.operation === 'optimize') continue;
    const files = catalog.filesAddedIn(table.id, [sid])
      .filter((f) => f.path !== '' && f.store !== 'dv')
      .sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : a.firstOffset - b.firstOffset));
    for (const f of files) {
      for (const b of await readDataFile(storage, f.path, table.columns, [OP_COLUMN])) {
        const fields = table.columns.map((c) => arrowFieldOf({ name: c.name, type: c.type, fieldId: c.fieldId, nullable: true }));
        const children = table.columns.map((c) => b.data.children[b.schema.fields.findIndex((x) => x.name === physicalName(c.fieldId))]!);
        const opIdx = b.schema.fields.findIndex((x) => x.name === OP_COLUMN);
        const n = b.numRows;
        const op = opIdx >= 0 ? b.data.children[opIdx]! : buildColumnData({ kind: 'text' }, new Array<string>(n).fill('+I'), '_change_type', false);
        fields.push(new Field('_change_type', new Utf8(), false));
        children.push(op);
        fields.push(new Field('_seq', new Int64(), false));
        children.push(makeData({ type: new Int64(), length: n, data: new BigInt64Array(n).fill(f.seq) }));
        fields.push(new Field('_commit_snapshot_id', new Int64(), false));
        children.push(makeData({ type: new Int64(), length: n, data: new BigInt64Array(n).fill(sid) }));
        out.push({ snapshotId: sid, seq: f.seq, batch: batchFromData(fields, children, n) });
      }
    }
  }
  return out;
}
