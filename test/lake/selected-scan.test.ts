import { test } from 'node:test';
import assert from 'node:assert/strict';
import { executeScanTaskSelected } from '../../src/lake/index.js';
import type { ScanFilter, ScanRequest, Warehouse } from '../../src/lake/index.js';
import { takeRows } from '../../src/lake/scan/take-rows.js';
import { columnsOf, tempWarehouse } from './helpers/read-table.js';

interface Row { id: number; v: string | null; s: string | null }

/** (id, s) of every row a selected scan yields, its rows gathered as the consumer would. */
async function selectedRows(wh: Warehouse, req: ScanRequest): Promise<string[]> {
  const out: string[] = [];
  for (const task of (await wh.planScan(req)).tasks) {
    for await (const { batch, rows } of executeScanTaskSelected(task)) {
      if (rows !== undefined) assert.ok(rows.every((r, i) => i === 0 || r > rows[i - 1]!), 'rows ascend');
      const b = rows === undefined ? batch : takeRows(batch, rows);
      const ids = [...b.getChild('id')!];
      const ss = [...b.getChild('s')!];
      ids.forEach((id, i) => out.push(`${id}:${ss[i] ?? 'null'}`));
    }
  }
  return out.sort();
}

test('a selected scan yields exactly the rows passing its filters, within its limit, on keyed (with and without changes) and append tables', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const cols = [
      { name: 'id', type: { kind: 'int4' }, nullable: false },
      { name: 'v', type: { kind: 'numeric', precision: 10, scale: 2 }, nullable: true },
      { name: 's', type: { kind: 'text' }, nullable: true },
    ] as const;
    const model = new Map<number, Row>();
    for (let i = 0; i < 300; i++) model.set(i, { id: i, v: i % 7 === 0 ? null : `${(i * 37) % 200}.25`, s: i % 5 === 0 ? null : `s${i % 13}` });
    const keyed = await wh.createTable({ namespace: 'public', name: 'k', primaryKey: ['id'], columns: [...cols] });
    const append = await wh.createTable({ namespace: 'public', name: 'a', columns: [...cols] });
    let tx = await wh.begin();
    await tx.upsert(keyed, 'main', columnsOf(keyed, [...model.values()] as never));
    await tx.insert(append, 'main', columnsOf(append, [...model.values()] as never));
    await tx.commit();
    await wh.optimize(keyed);
    const cases: [ScanFilter[], (r: Row) => boolean][] = [
      [[], () => true],
      [[{ column: 'v', op: '>=', value: '50' }], (r) => r.v !== null && Number(r.v) >= 50],
      [[{ column: 'v', op: '<', value: '120.25' }, { column: 'id', op: '>', value: 17 }], (r) => r.v !== null && Number(r.v) < 120.25 && r.id > 17],
      [[{ column: 's', op: '=', value: 's3' }], (r) => r.s === 's3'],
      [[{ column: 'v', op: 'isNull' }], (r) => r.v === null],
    ];
    const check = async (label: string, keyedRows: Map<number, Row>, appendRows: Map<number, Row>): Promise<void> => {
      for (const [t, rows] of [[keyed, keyedRows], [append, appendRows]] as const) {
        for (const [filters, pass] of cases) {
          const expected = [...rows.values()].filter(pass).map((r) => `${r.id}:${r.s ?? 'null'}`).sort();
          assert.ok(expected.length > 0, 'each case keeps some rows');
          const what = `${label} ${t.name} ${JSON.stringify(filters)}`;
          assert.deepEqual(await selectedRows(wh, { table: t, projection: ['s', 'id'], filters }), expected, what);
          // A limit takes that many of the passing rows (which ones is the scan's choice).
          const limited = await selectedRows(wh, { table: t, projection: ['s', 'id'], filters, limit: 5 });
          assert.equal(limited.length, Math.min(5, expected.length), `${what} limit 5`);
          assert.ok(limited.every((r) => expected.includes(r)), `${what} limit 5 rows pass`);
        }
      }
    };
    await check('optimized', model, model);
    const changes: Row[] = [{ id: 3, v: '60.00', s: 's3' }, { id: 4, v: null, s: null }, { id: 1000, v: '1.00', s: 's3' }];
    tx = await wh.begin();
    await tx.upsert(keyed, 'main', columnsOf(keyed, changes as never));
    await tx.commit();
    const after = new Map(model);
    for (const r of changes) after.set(r.id, r);
    await check('with changes', after, model);
  } finally {
    await cleanup();
  }
});

test('text columns only the filters read (chosen by dictionary code, never built as strings) keep exactly the passing rows', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 'modes', primaryKey: ['id'],
      columns: [
        { name: 'id', type: { kind: 'int4' }, nullable: false },
        { name: 'mode', type: { kind: 'text' }, nullable: false },
        { name: 'pad', type: { kind: 'bpchar', length: 8 }, nullable: false },
        { name: 'note', type: { kind: 'text' }, nullable: true },
      ],
    });
    const MODES = ['MAIL', 'SHIP', 'AIR', 'REG AIR', 'TRUCK', 'é✓'];
    const rows = Array.from({ length: 3000 }, (_, id) => ({ id, mode: MODES[(id * 7) % MODES.length]!, pad: ['ab', 'abc', 'b'][id % 3]!, note: id % 4 === 0 ? null : `n${id % 50}` }));
    const tx = await wh.begin();
    await tx.upsert(t, 'main', columnsOf(t, rows as never));
    await tx.commit();
    await wh.optimize(t);
    const cases: [ScanFilter[], (r: (typeof rows)[number]) => boolean][] = [
      [[{ column: 'mode', op: '=', value: 'SHIP' }], (r) => r.mode === 'SHIP'],
      [[{ column: 'mode', op: 'in', values: ['MAIL', 'é✓', null] }], (r) => r.mode === 'MAIL' || r.mode === 'é✓'],
      [[{ column: 'mode', op: '<>', value: 'AIR' }, { column: 'mode', op: '<', value: 'TRUCK' }], (r) => r.mode !== 'AIR' && r.mode < 'TRUCK'],
      [[{ column: 'pad', op: '=', value: 'ab   ' }, { column: 'mode', op: '>=', value: 'REG' }], (r) => r.pad === 'ab' && r.mode >= 'REG'],
      [[{ column: 'note', op: '=', value: 'n8' }, { column: 'mode', op: '=', value: 'MAIL' }], (r) => r.note === 'n8' && r.mode === 'MAIL'],
    ];
    for (const [filters, pass] of cases) {
      const expected = rows.filter(pass).map((r) => `${r.id}:${r.note ?? 'null'}`).sort();
      assert.ok(expected.length > 0, JSON.stringify(filters));
      const got: string[] = [];
      for (const task of (await wh.planScan({ table: t, projection: ['id', 'note'], filters })).tasks) {
        for await (const { batch, rows: kept } of executeScanTaskSelected(task)) {
          const b = kept === undefined ? batch : takeRows(batch, kept);
          const ids = [...b.getChild('id')!];
          const notes = [...b.getChild('note')!];
          ids.forEach((id, i) => got.push(`${id}:${notes[i] ?? 'null'}`));
        }
      }
      assert.deepEqual(got.sort(), expected, JSON.stringify(filters));
      // Read as well as filtered, the column keeps its strings.
      const read: string[] = [];
      for (const task of (await wh.planScan({ table: t, projection: ['id', 'mode'], filters })).tasks) {
        for await (const { batch, rows: kept } of executeScanTaskSelected(task)) {
          const b = kept === undefined ? batch : takeRows(batch, kept);
          const modes = [...b.getChild('mode')!];
          [...b.getChild('id')!].forEach((id, i) => read.push(`${id}:${modes[i]}`));
        }
      }
      assert.deepEqual(read.sort(), rows.filter(pass).map((r) => `${r.id}:${r.mode}`).sort(), `${JSON.stringify(filters)}, mode read`);
    }
  } finally {
    await cleanup();
  }
});
