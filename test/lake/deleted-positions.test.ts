import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RecordBatch } from 'apache-arrow';
import { skippingDeleted } from '../../src/lake/scan/deleted-positions.js';
import { RandomStream } from '../../src/tools/tpch/random-stream.js';

/*
 * skippingDeleted against a plain model: a file of random row groups, some of them decoded
 * (or all), cut into random batches, each picked in part (or whole); the rows kept must be
 * the picked rows whose file position the deletion vector does not name.
 */
test('skippingDeleted keeps exactly the picked rows whose positions are not deleted', () => {
  const rand = new RandomStream(77);
  for (let trial = 0; trial < 300; trial++) {
    const groupRows = Array.from({ length: rand.int(1, 6) }, () => rand.int(0, 40));
    const total = groupRows.reduce((a, b) => a + b, 0);
    const groups = rand.int(0, 2) === 0 ? undefined : groupRows.map((_, g) => g).filter(() => rand.int(0, 1) === 1);
    const starts = groupRows.map((_, g) => groupRows.slice(0, g).reduce((a, b) => a + b, 0));
    const positions = groups === undefined
      ? Array.from({ length: total }, (_, i) => i)
      : groups.flatMap((g) => Array.from({ length: groupRows[g]! }, (_, i) => starts[g]! + i));
    const deleted = Array.from({ length: total }, (_, p) => p).filter(() => rand.int(0, 3) === 0);
    const unsorted = rand.int(0, 1) === 0 ? [...deleted].reverse() : deleted;
    const gone = new Set(deleted);
    const wholePick = rand.int(0, 1) === 0;
    const picks: (Int32Array | undefined)[] = [];
    const pick = (b: RecordBatch): Int32Array | undefined => {
      const rows = wholePick ? undefined : Int32Array.from(Array.from({ length: b.numRows }, (_, i) => i).filter(() => rand.int(0, 2) !== 0));
      picks.push(rows);
      return rows;
    };
    const picker = skippingDeleted(pick, unsorted, groups, groupRows);
    let at = 0;
    do {
      const n = Math.min(rand.int(0, 17), positions.length - at);
      const got = picker({ numRows: n } as RecordBatch);
      const picked = picks.at(-1) ?? Int32Array.from({ length: n }, (_, i) => i);
      const want = [...picked].filter((i) => !gone.has(positions[at + i]!));
      assert.deepEqual(got === undefined ? Array.from({ length: n }, (_, i) => i) : [...got], want, `trial ${trial}, batch at ${at}`);
      at += n;
    } while (at < positions.length);
    assert.equal(picker.decoded(), positions.length);
  }
});
