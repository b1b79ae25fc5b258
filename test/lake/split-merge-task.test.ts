import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FileRecord } from '../../src/lake/catalog/catalog.js';
import { reverseBits32 } from '../../src/lake/optimize/hash-order.js';
import { mergePieces, rowGroupsMeeting } from '../../src/lake/scan/split-merge-task.js';

/** A hash-ordered base file's record with `groups` row groups of equal reversed-hash ranges. */
function baseFile(groups: number): FileRecord {
  const width = 2 ** 32 / groups;
  const rowGroups = Array.from({ length: groups }, (_, g) => [g * width, (g + 1) * width - 1] as const);
  return { rowGroups } as unknown as FileRecord;
}

test('mergePieces cuts a node into 2 or 4 nodes below it, by its largest base file', () => {
  assert.deepEqual(mergePieces({ mask: 0, index: 0 }, [baseFile(8)]), [0, 1, 2, 3].map((index) => ({ mask: 3, index })));
  assert.deepEqual(mergePieces({ mask: 0, index: 0 }, [baseFile(2), baseFile(31)]), [0, 1, 2, 3].map((index) => ({ mask: 3, index })));
  assert.deepEqual(mergePieces({ mask: 1, index: 1 }, [baseFile(5)]), [{ mask: 3, index: 1 }, { mask: 3, index: 3 }]);
  assert.equal(mergePieces({ mask: 0, index: 0 }, [baseFile(3)]), undefined, 'too few row groups');
  assert.equal(mergePieces({ mask: 0, index: 0 }, []), undefined, 'no base file');
  assert.equal(mergePieces({ mask: 0, index: 0 }, [baseFile(8), { rowGroups: undefined } as unknown as FileRecord]), undefined, 'a file not hash-ordered');
  assert.equal(mergePieces({ mask: 2 ** 31 - 1, index: 5 }, [baseFile(8)]), undefined, 'no bits left');
});

test('rowGroupsMeeting picks the row groups whose reversed-hash range meets the node, and every hash of the node lies in them', () => {
  const f = baseFile(4);
  assert.deepEqual(rowGroupsMeeting(f, { mask: 1, index: 0 }), [0, 1]);
  assert.deepEqual(rowGroupsMeeting(f, { mask: 1, index: 1 }), [2, 3]);
  assert.deepEqual(rowGroupsMeeting(f, { mask: 3, index: 1 }), [2]);
  assert.deepEqual(rowGroupsMeeting(f, { mask: 7, index: 5 }), [2], 'a node inside one group');
  // ranges that straddle: a group holding the end of one piece and the start of the next is read by both
  const odd = { rowGroups: [[0, 2 ** 31 + 5], [2 ** 31 + 6, 2 ** 32 - 1]] } as unknown as FileRecord;
  assert.deepEqual(rowGroupsMeeting(odd, { mask: 1, index: 1 }), [0, 1]);
  assert.deepEqual(rowGroupsMeeting(odd, { mask: 1, index: 0 }), [0]);
  for (const h of [0, 1, 2, 3, 0x7fffffff, 0x80000000, 0xdeadbeef, 0xffffffff]) {
    for (const node of [{ mask: 1, index: h & 1 }, { mask: 3, index: h & 3 }]) {
      const rev = reverseBits32(h);
      const holding = odd.rowGroups!.findIndex(([lo, hi]) => lo <= rev && rev <= hi);
      assert.ok(rowGroupsMeeting(odd, node).includes(holding), `hash ${h} in node ${node.mask}/${node.index}`);
    }
  }
});
