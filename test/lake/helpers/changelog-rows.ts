import { sqlTypeOfField } from '../../../src/lake/arrow/arrow-type.js';
import { columnReader } from '../../../src/lake/arrow/column-reader.js';
import type { TableMetadata, Warehouse } from '../../../src/lake/index.js';

/** One change row of readChanges as text: `<_change_type> <col>=<value> …` (NULL for null). */
export type ChangeText = string;

/** The change rows of each snapshot after `from` up to `to`, as text, grouped by commit snapshot in commit order. */
export async function changesBySnapshot(wh: Warehouse, t: TableMetadata, from: bigint | undefined, to: bigint): Promise<Map<bigint, ChangeText[]>> {
  const out = new Map<bigint, ChangeText[]>();
  for (const { snapshotId, batch } of await wh.readChanges(t, from, to)) {
    const readers = batch.schema.fields.map((f, i) => ({ name: f.name, r: columnReader(batch.getChildAt(i)!, sqlTypeOfField(f)) }));
    const op = readers.find((x) => x.name === '_change_type')!.r;
    let rows = out.get(snapshotId);
    if (rows === undefined) out.set(snapshotId, rows = []);
    for (let i = 0; i < batch.numRows; i++) {
      const values = t.columns.map((c) => {
        const v = readers.find((x) => x.name === c.name)!.r.get(i);
        return `${c.name}=${v === null || v === undefined ? 'NULL' : String(v)}`;
      });
      rows.push([String(op.get(i)), ...values].join(' '));
    }
  }
  return out;
}

/** Every change row after `from` up to `to`, in order. */
export async function changeTexts(wh: Warehouse, t: TableMetadata, from: bigint | undefined, to: bigint): Promise<ChangeText[]> {
  return [...(await changesBySnapshot(wh, t, from, to)).values()].flat();
}
