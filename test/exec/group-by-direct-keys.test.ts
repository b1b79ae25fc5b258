import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SqlType } from '../../src/common/sql-type.js';
import { aggId, col, rowsOf, t, values } from './exec-test-helpers.js';

test('GROUP BY a direct key splits int32 values and the rest between the typed int table and the Map without mixing groups', async () => {
  const count = aggId('count');
  const group = async (type: SqlType, vals: unknown[]) => {
    const plan = {
      kind: 'hashAggregate' as const, input: values([{ name: 'k', type }], vals.map((v) => [v])), groupBy: [col(0, type)],
      aggregates: [{ fn: count.id, args: [], distinct: false, type: count.type }],
      columns: [{ name: 'k', type }, { name: 'n', type: t.int8 }],
    };
    return (await rowsOf(plan)).map((r) => `${String(r[0])}:${String(r[1])}`).sort();
  };
  assert.deepEqual(await group(t.float8, [2, 2.5, -0, 0, NaN, NaN, 2, 3e10, 3e10, null, 2.5, -1]),
    ['-1:1', '0:2', '2.5:2', '2:2', '30000000000:2', 'NaN:2', 'null:1']);
  assert.deepEqual(await group(t.int4, [2147483647, -2147483648, 0, 7, 7, null, null, -2147483648]),
    ['-2147483648:2', '0:1', '2147483647:1', '7:2', 'null:2']);
});
