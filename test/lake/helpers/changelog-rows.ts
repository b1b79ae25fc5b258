import assert from 'node:assert/strict';
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

/** A (id int, v text) table's rows by id. */
export type KvState = Map<number, string>;

/**
 * Replays a (id, v) table's changelog over `before`, failing on a change inconsistent with the
 * state it meets: a -U or -D must carry the key's current row, a +I meet an absent key, a +U
 * follow its -U.
 */
export function replayChangelog(before: KvState, changes: readonly ChangeText[]): KvState {
  const state = new Map(before);
  let pendingBefore: number | undefined;
  for (const c of changes) {
    const m = /^(\S+) id=(\d+) v=(.*)$/.exec(c);
    assert.ok(m, c);
    const [, op, idText, v] = m;
    const id = Number(idText);
    if (op === '+U') assert.equal(pendingBefore, id, `${c} follows its -U`);
    else assert.equal(pendingBefore, undefined, `a -U is followed by its +U, not ${c}`);
    pendingBefore = undefined;
    switch (op) {
      case '+I': assert.equal(state.get(id), undefined, `${c}: the key was absent`); state.set(id, v!); break;
      case '-U': assert.equal(state.get(id), v, `${c}: the before-image is the current row`); pendingBefore = id; break;
      case '+U': state.set(id, v!); break;
      case '-D': assert.equal(state.get(id), v, `${c}: the deleted row is the current row`); state.delete(id); break;
      default: assert.fail(`unknown change type in ${c}`);
    }
  }
  assert.equal(pendingBefore, undefined, 'the changelog ends on a whole change');
  return state;
}
