import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import type { SqlType } from '../../../src/common/sql-type.js';
import { buildBatch } from '../../../src/lake/arrow/batch-builder.js';
import type { BatchColumn } from '../../../src/lake/arrow/batch-builder.js';
import { batchIpcStream } from '../../../src/lake/log/batch-ipc-stream.js';

const TYPES: readonly [SqlType, unknown][] = [
  [{ kind: 'bool' }, true], [{ kind: 'int2' }, 2], [{ kind: 'int4' }, 4], [{ kind: 'int8' }, 8n],
  [{ kind: 'float4' }, 1.5], [{ kind: 'float8' }, 2.5], [{ kind: 'numeric', precision: 10, scale: 2 }, '12.34'],
  [{ kind: 'numeric', precision: 30, scale: 5 }, '1.5'], [{ kind: 'numeric' }, '7'], [{ kind: 'text' }, 'x'],
  [{ kind: 'varchar', length: 5 }, 'ab'], [{ kind: 'bytea' }, new Uint8Array([1, 2])], [{ kind: 'date' }, 19000],
  [{ kind: 'time' }, 1_000_000n], [{ kind: 'timestamp' }, 1_700_000_000_000_000n], [{ kind: 'timestamptz' }, 1_700_000_000_000_000n],
  [{ kind: 'uuid' }, '123e4567-e89b-12d3-a456-426614174000'], [{ kind: 'jsonb' }, '{"a":1}'],
  [{ kind: 'array', element: { kind: 'int4' } } as SqlType, [1, 2]],
];

function batchOf(columns: readonly BatchColumn[], values: readonly unknown[]) {
  return buildBatch(columns, values.map((v) => [v]));
}

test("a batch's log IPC stream is byte for byte tableToIPC's, first and cached", () => {
  const columns: BatchColumn[] = TYPES.map(([type], i) => ({ name: `c${i}`, type, fieldId: i + 1, nullable: true }));
  const values = TYPES.map(([, v]) => v);
  for (let round = 0; round < 2; round++) {
    const batch = batchOf(columns, values);
    const expected = tableToIPC(new Table(batch), 'stream');
    assert.deepEqual(batchIpcStream(batch), expected, `round ${round}`);
    assert.equal(tableFromIPC(batchIpcStream(batch)).numRows, 1);
  }
});

test('schemas differing only in nullability, field id, name or type parameters each get their own message', () => {
  const base: BatchColumn = { name: 'a', type: { kind: 'numeric', precision: 10, scale: 2 }, fieldId: 1, nullable: true };
  const variants: BatchColumn[] = [
    base, { ...base, nullable: false }, { ...base, fieldId: 2 }, { ...base, name: 'b' },
    { ...base, type: { kind: 'numeric', precision: 12, scale: 2 } }, { ...base, type: { kind: 'numeric', precision: 10, scale: 3 } },
    { ...base, type: { kind: 'timestamp' } }, { ...base, type: { kind: 'timestamptz' } },
  ];
  const value = (c: BatchColumn) => (c.type.kind === 'numeric' ? '1.5' : 1n);
  for (let round = 0; round < 2; round++) {
    for (const c of variants) {
      const batch = batchOf([c], [value(c)]);
      assert.deepEqual(batchIpcStream(batch), tableToIPC(new Table(batch), 'stream'), JSON.stringify(c));
    }
  }
});
