import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyText } from '../../src/tools/tpch/copy-text.js';
import { tpchRecordBatch } from '../../src/tools/tpch/parquet-export.js';
import {
  CURRENT_DATE, END_DATE, START_DATE, TpchGenerator, centsText, partSupplier, retailPriceCents,
} from '../../src/tools/tpch/tpch-generator.js';
import type { TpchBatch } from '../../src/tools/tpch/tpch-generator.js';
import { tpchQueries } from '../../src/tools/tpch/tpch-queries.js';
import { tpchTable } from '../../src/tools/tpch/tpch-schema.js';
import type { TpchTableName } from '../../src/tools/tpch/tpch-schema.js';
import { tpchUpserts } from '../../src/tools/tpch/tpch-upserts.js';

const SF = 0.01;
const all = [...new TpchGenerator(SF).batches(4_000)];

function column(table: TpchTableName, name: string): unknown[] {
  const idx = tpchTable(table).columns.findIndex((c) => c.name === name);
  assert.ok(idx >= 0, `${table}.${name}`);
  return all.filter((b) => b.table === table).flatMap((b) => b.columns[idx]!);
}

test('cardinalities follow the scale factor', () => {
  const rows = (t: TpchTableName) => all.filter((b) => b.table === t).reduce((n, b) => n + b.rowCount, 0);
  assert.deepEqual(
    { region: rows('region'), nation: rows('nation'), supplier: rows('supplier'), customer: rows('customer'), part: rows('part'), partsupp: rows('partsupp'), orders: rows('orders') },
    { region: 5, nation: 25, supplier: 100, customer: 1500, part: 2000, partsupp: 8000, orders: 15000 },
  );
  const lines = rows('lineitem');
  assert.ok(lines > 15000 * 3.5 && lines < 15000 * 4.5, `about four lines per order, got ${lines}`);
  for (const b of all) assert.ok(b.columns.every((c) => c.length === b.rowCount), `${b.table} columns have rowCount values`);
});

test('the same scale factor always gives the same data', () => {
  const again = [...new TpchGenerator(SF).batches(4_000)];
  assert.equal(again.length, all.length);
  for (let i = 0; i < all.length; i++) assert.deepEqual(again[i]!.columns, all[i]!.columns, `batch ${i} (${all[i]!.table})`);
});

test('primary keys are unique; order keys are sparse (8 of every 32)', () => {
  const ok = column('orders', 'o_orderkey') as number[];
  assert.equal(new Set(ok).size, ok.length);
  assert.ok(ok.every((k) => (k - 1) % 32 < 8));
  const lk = column('lineitem', 'l_orderkey') as number[];
  const ln = column('lineitem', 'l_linenumber') as number[];
  assert.equal(new Set(lk.map((k, i) => `${k}/${ln[i]}`)).size, lk.length);
  const pk = column('partsupp', 'ps_partkey') as number[];
  const sk = column('partsupp', 'ps_suppkey') as number[];
  assert.equal(new Set(pk.map((k, i) => `${k}/${sk[i]}`)).size, pk.length);
  assert.ok((column('orders', 'o_custkey') as number[]).every((c) => c % 3 !== 0), 'customers with custkey % 3 = 0 never order');
});

test('lineitem follows the specification: prices, dates, flags, suppliers', () => {
  const get = (n: string) => column('lineitem', n);
  const [qty, price, disc, tax, ship, commit, receipt, rf, ls, part, supp] =
    ['l_quantity', 'l_extendedprice', 'l_discount', 'l_tax', 'l_shipdate', 'l_commitdate', 'l_receiptdate', 'l_returnflag', 'l_linestatus', 'l_partkey', 'l_suppkey'].map(get);
  for (let i = 0; i < qty!.length; i++) {
    const q = Number(qty![i]);
    assert.ok(q >= 1 && q <= 50 && Number.isInteger(q));
    assert.equal(price![i], centsText(q * retailPriceCents(part![i] as number)));
    assert.ok(Number(disc![i]) >= 0 && Number(disc![i]) <= 0.1);
    assert.ok(Number(tax![i]) >= 0 && Number(tax![i]) <= 0.08);
    const s = ship![i] as number;
    const r = receipt![i] as number;
    assert.ok(s > START_DATE && r <= END_DATE && r > s && (commit![i] as number) > START_DATE);
    assert.equal(ls![i], s > CURRENT_DATE ? 'O' : 'F');
    assert.ok(r <= CURRENT_DATE ? rf![i] === 'R' || rf![i] === 'A' : rf![i] === 'N');
    const p = part![i] as number;
    assert.ok([0, 1, 2, 3].some((k) => partSupplier(p, k, 100) === supp![i]), 'a line ships from one of its part\'s four suppliers');
  }
  assert.ok(new Set(rf).size === 3 && new Set(ls).size === 2);
});

test('text columns carry the values the queries look for', () => {
  const comments = column('orders', 'o_comment') as string[];
  assert.ok(comments.some((c) => /special.*requests/.test(c)), 'Q13 finds special…requests');
  const supplierComments = column('supplier', 's_comment') as string[];
  assert.ok(supplierComments.some((c) => /Customer.*Complaints/.test(c)), 'Q16 finds Customer…Complaints');
  assert.ok((column('part', 'p_name') as string[]).some((n) => n.startsWith('forest')), 'Q20 finds forest%');
  assert.ok((column('part', 'p_type') as string[]).includes('ECONOMY ANODIZED STEEL'));
  assert.deepEqual(new Set((column('customer', 'c_mktsegment') as string[]).map((s) => s.trimEnd())), new Set(['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD']));
  assert.equal((column('part', 'p_brand') as string[])[0]!.length, 10, 'char(10) values are blank-padded as PostgreSQL stores them');
  const phones = column('customer', 'c_phone') as string[];
  const nations = column('customer', 'c_nationkey') as number[];
  assert.ok(phones.every((p, i) => p.startsWith(`${nations[i]! + 10}-`) && p.length === 15));
});

test('orders derive status and total price from their lines', () => {
  const gen = new TpchGenerator(0.001);
  for (const { orders, lineitem } of gen.ordersAndLineitems(500)) {
    const byOrder = new Map<number, { statuses: string[]; total: number }>();
    for (let i = 0; i < lineitem.rowCount; i++) {
      const k = lineitem.columns[0]![i] as number;
      const e = byOrder.get(k) ?? { statuses: [], total: 0 };
      const cents = Math.round(Number(lineitem.columns[5]![i]) * 100);
      const tax = Math.round(Number(lineitem.columns[7]![i]) * 100);
      const disc = Math.round(Number(lineitem.columns[6]![i]) * 100);
      e.total += Math.round((cents * (100 + tax) * (100 - disc)) / 10_000);
      e.statuses.push(lineitem.columns[9]![i] as string);
      byOrder.set(k, e);
    }
    for (let i = 0; i < orders.rowCount; i++) {
      const e = byOrder.get(orders.columns[0]![i] as number)!;
      const status = e.statuses.every((s) => s === 'F') ? 'F' : e.statuses.every((s) => s === 'O') ? 'O' : 'P';
      assert.equal(orders.columns[2]![i], status);
      assert.equal(orders.columns[3]![i], centsText(e.total));
    }
  }
});

test('upserts change about the asked fraction of orders and lineitem rows, keeping keys', () => {
  const gen = new TpchGenerator(SF);
  const changes = [...tpchUpserts(gen, 0.2, 4_000)];
  const count = (t: TpchTableName, bs: TpchBatch[]) => bs.filter((b) => b.table === t).reduce((n, b) => n + b.rowCount, 0);
  const o = count('orders', changes) / count('orders', all);
  const l = count('lineitem', changes) / count('lineitem', all);
  assert.ok(o > 0.17 && o < 0.23 && l > 0.17 && l < 0.23, `fractions ${o}, ${l}`);
  const keys = new Set(column('orders', 'o_orderkey'));
  assert.ok(changes.filter((b) => b.table === 'orders').every((b) => (b.columns[0] as number[]).every((k) => keys.has(k))));
  assert.deepEqual(changes.map((b) => b.columns), [...tpchUpserts(new TpchGenerator(SF), 0.2, 4_000)].map((b) => b.columns), 'deterministic');
});

test('COPY text, Arrow export and the query set', () => {
  const nation = all.find((b) => b.table === 'nation')!;
  const firstLine = copyText(nation).split('\n')[0]!.split('\t');
  assert.equal(firstLine.length, 4);
  assert.equal(firstLine[1]!.trimEnd(), 'ALGERIA');
  const orders = all.find((b) => b.table === 'orders')!;
  assert.match(copyText(orders).split('\n')[0]!.split('\t')[4]!, /^199\d-\d\d-\d\d$/);
  const rb = tpchRecordBatch(all.find((b) => b.table === 'lineitem')!);
  assert.equal(rb.numRows, all.find((b) => b.table === 'lineitem')!.rowCount);
  assert.equal(rb.schema.fields.length, 16);
  assert.equal(rb.getChild('l_shipmode')!.get(0), (all.find((b) => b.table === 'lineitem')!.columns[14]![0] as string).trimEnd());
  const qs = tpchQueries(0.01);
  assert.equal(qs.length, 22);
  assert.match(qs[10]!.sql, /\* 0\.01\b/, 'Q11 fraction is 0.0001 / SF');
  assert.match(tpchQueries(0.01, { q11Fraction: 0.0001 })[10]!.sql, /\* 0\.0001\b/);
});
