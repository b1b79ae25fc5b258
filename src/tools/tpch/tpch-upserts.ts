import { RandomStream } from './random-stream.js';
import { TextPool } from './text-pool.js';
import { PRIORITIES } from './text-pools.js';
import { centsText, retailPriceCents } from './tpch-generator.js';
import type { TpchBatch, TpchGenerator } from './tpch-generator.js';

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));

/**
 * Changed full rows for about `fraction` of orders and of lineitem rows (same keys, new
 * quantities/prices/discounts/priorities/comments), deterministic for a given generator and
 * salt. Applying them as upserts must give the same tables as applying them as UPDATEs.
 */
export function* tpchUpserts(gen: TpchGenerator, fraction: number, batchRows = 100_000, salt = 1): Generator<TpchBatch> {
  const pick = RandomStream.named('upsert.pick', salt);
  const r = RandomStream.named('upsert.values', salt);
  const text = new TextPool(1 << 20, `upsert.text.${salt}`);
  for (const { orders, lineitem } of gen.ordersAndLineitems(batchRows)) {
    const o = orders.columns.map(() => [] as unknown[]);
    const l = lineitem.columns.map(() => [] as unknown[]);
    let oRows = 0;
    let lRows = 0;
    for (let i = 0; i < orders.rowCount; i++) {
      if (pick.next() >= fraction) continue;
      const row = orders.columns.map((c) => c[i]);
      const oldTotal = Math.round(Number(row[3]) * 100);
      row[3] = centsText(Math.max(100, oldTotal + r.int(-50_000, 50_000)));
      row[5] = pad(r.pick(PRIORITIES), 15);
      // A quarter of the new comments match Q13's '%special%requests%', moving customers between its buckets.
      const base = text.text(r, 19, 60);
      row[8] = r.int(0, 3) === 0 ? `special ${base.slice(0, 50)} requests` : base;
      row.forEach((v, c) => o[c]!.push(v));
      oRows++;
    }
    for (let i = 0; i < lineitem.rowCount; i++) {
      if (pick.next() >= fraction) continue;
      const row = lineitem.columns.map((c) => c[i]);
      const qty = r.int(1, 50);
      row[4] = centsText(qty * 100);
      row[5] = centsText(qty * retailPriceCents(row[1] as number));
      row[6] = centsText(r.int(0, 10));
      row[15] = text.text(r, 10, 43);
      row.forEach((v, c) => l[c]!.push(v));
      lRows++;
    }
    if (oRows > 0) yield { table: 'orders', rowCount: oRows, columns: o };
    if (lRows > 0) yield { table: 'lineitem', rowCount: lRows, columns: l };
  }
}
