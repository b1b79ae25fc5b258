import assert from 'node:assert/strict';
import type { SqlType } from '../../../src/common/sql-type.js';
import { packTimetz } from '../../../src/common/timetz.js';
import { fieldIdOf, sqlTypeOfField } from '../../../src/lake/arrow/arrow-type.js';
import { columnReader } from '../../../src/lake/arrow/column-reader.js';
import type { BatchColumn } from '../../../src/lake/arrow/batch-builder.js';

export const T = (kind: string, extra: object = {}) => ({ kind, ...extra }) as SqlType;

/** Every SqlType with values covering edges; the last value of each is NULL. */
export const samples: [SqlType, unknown[]][] = [
  [T('bool'), [true, false, null]],
  [T('int2'), [-32768, 32767, 0, null]],
  [T('int4'), [-2147483648, 2147483647, 7, null]],
  [T('int8'), [-(2n ** 63n), 2n ** 63n - 1n, 0n, null]],
  [T('float4'), [1.5, -0.25, Infinity, NaN, null]],
  [T('float8'), [Math.PI, -1e308, -Infinity, NaN, 0, null]],
  [T('numeric', { precision: 12, scale: 2 }), ['-12.50', '9999999999.99', '0.00', '0.01', null]],
  [T('numeric', { precision: 38, scale: 10 }), ['-9999999999999999999999999999.9999999999', '1.0000000001', '0.0000000000', null]],
  [T('numeric', { precision: 5, scale: 0 }), ['99999', '-99999', '0', null]],
  [T('numeric'), ['123456789012345678901234567890.123456789', 'NaN', '-0.5', null]],
  [T('numeric', { precision: 60, scale: 4 }), ['1.2345', null]],
  [T('text'), ['', 'héllo wörld ✓ 𝄞', 'x'.repeat(1000), null]],
  [T('varchar', { length: 10 }), ['abc', null]],
  [T('bpchar', { length: 3 }), ['ab ', null]],
  [T('name'), ['pg_class', null]],
  [T('char'), ['c', null]],
  [T('json'), ['{"a": [1, 2]}', null]],
  [T('jsonb'), ['{"a": [1, 2]}', null]],
  [T('bytea'), [new Uint8Array([0, 255, 1]), new Uint8Array(0), null]],
  [T('date'), [17486, -719528, Infinity, -Infinity, 0, null]],
  [T('time'), [0n, 86_400_000_000n, 81_068_123_456n, null]],
  [T('timestamp'), [1_510_871_468_123_456n, -62_135_596_800_000_000n, 0n, 1n, null]],
  [T('timestamptz'), [1_510_871_468_123_457n, -1n, null]],
  [T('interval'), [{ months: 14, days: -3, micros: 3_600_000_001n }, { months: 0, days: 0, micros: 0n }, null]],
  [T('uuid'), ['f79c3e09-677c-4bbd-a479-3f349cb785e7', '00000000-0000-0000-0000-000000000000', null]],
  [T('oid'), [0, 16384, 4294967295, null]],
  [T('regclass'), [1259, null]],
  [T('regtype'), [23, null]],
  [T('regproc'), [1242, null]],
  [T('regprocedure'), [871, null]],
  [T('array', { element: T('int4') }), [[1, null, 3], [], null]],
  [T('array', { element: T('text') }), [['a', null, 'ß'], null]],
  [T('array', { element: T('timestamp') }), [[1n, -1n], null]],
  [T('array', { element: T('numeric', { precision: 10, scale: 3 }) }), [['1.500', null], null]],
  [T('array', { element: T('array', { element: T('int8') }) }), [[[1n], [], null], null]],
  [T('timetz'), [packTimetz(36_000_000_000n, -7200), packTimetz(86_400_000_000n, 57_599), packTimetz(0n, -57_599), null]],
  // A multi-dimensional value makes the column a Struct{dims, items} (src/lake/arrow/multidim-array.ts).
  [T('array', { element: T('int4') }), [[[1, 2], [3, null]], [5], [], [[[7]]], null]],
  [T('array', { element: T('text') }), [[['a', 'b']], null, ['c']]],
];

export const columns: BatchColumn[] = samples.map(([type], i) => ({ name: `c${i}_${type.kind}`, type, fieldId: i + 1, nullable: true }));
export const maxLen = Math.max(...samples.map(([, v]) => v.length));
// pad every column to one length with NULLs
export const values = samples.map(([, v]) => [...v, ...Array(maxLen - v.length).fill(null)]);


/** Checks that `batchLike` holds `columns` (types and field ids in its fields) with `values`. */
export function assertColumns(batchLike: { getChild(name: string): unknown; schema: { fields: { name: string; metadata: Map<string, string> }[] } }, label: string): void {
  for (let c = 0; c < columns.length; c++) {
    const col = columns[c]!;
    const field = batchLike.schema.fields.find((f) => f.name === col.name);
    assert.ok(field, `${label}: field ${col.name}`);
    assert.deepEqual(sqlTypeOfField(field as never), col.type, `${label}: floe.type of ${col.name}`);
    assert.equal(fieldIdOf(field as never), col.fieldId);
    const reader = columnReader(batchLike.getChild(col.name) as never, col.type);
    for (let i = 0; i < maxLen; i++) {
      assert.deepEqual(reader.get(i), values[c]![i], `${label}: ${col.name}[${i}]`);
    }
  }
}
