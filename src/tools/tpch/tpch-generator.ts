import { RandomStream } from './random-stream.js';
import { TextPool } from './text-pool.js';
import {
  COLORS, CONTAINER_SYLLABLE_1, CONTAINER_SYLLABLE_2, NATIONS, PRIORITIES, REGIONS, SEGMENTS,
  SHIP_INSTRUCTIONS, SHIP_MODES, TYPE_SYLLABLE_1, TYPE_SYLLABLE_2, TYPE_SYLLABLE_3,
} from './text-pools.js';
import { tpchTable } from './tpch-schema.js';
import type { TpchTableName } from './tpch-schema.js';

/** One column-wise batch of a table, canonical values (src/common/sql-type.ts); bpchar values are blank-padded as PostgreSQL stores them. */
export interface TpchBatch {
  readonly table: TpchTableName;
  readonly rowCount: number;
  readonly columns: unknown[][];
}

export interface TpchCardinalities {
  readonly supplier: number;
  readonly customer: number;
  readonly part: number;
  readonly orders: number;
}

const DAY_MS = 86_400_000;
const dayOf = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d) / DAY_MS;
export const START_DATE = dayOf(1992, 1, 1);
export const CURRENT_DATE = dayOf(1995, 6, 17);
export const END_DATE = dayOf(1998, 12, 31);

export function tpchCardinalities(sf: number): TpchCardinalities {
  const n = (base: number) => Math.max(1, Math.floor(base * sf));
  return { supplier: n(10_000), customer: n(150_000), part: n(200_000), orders: n(1_500_000) };
}

/** Money in cents → numeric's canonical text ("-12.05"). */
export function centsText(cents: number): string {
  const neg = cents < 0;
  const a = Math.abs(cents);
  const frac = a % 100;
  return `${neg ? '-' : ''}${Math.floor(a / 100)}.${frac < 10 ? '0' : ''}${frac}`;
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const digits9 = (k: number) => String(k).padStart(9, '0');

/** The specification's retail price formula (clause 4.2.3), in cents. */
export function retailPriceCents(partkey: number): number {
  return 90000 + (Math.floor(partkey / 10) % 20001) + 100 * (partkey % 1000);
}

/** The i-th (0..3) supplier of a part (clause 4.2.3). */
export function partSupplier(partkey: number, i: number, suppliers: number): number {
  return ((partkey + i * (Math.floor(suppliers / 4) + Math.floor((partkey - 1) / suppliers))) % suppliers) + 1;
}

/** Orders use the first 8 of every 32 keys, so keys are sparse as the specification requires. */
export function orderKeyOf(index: number): number {
  return Math.floor(index / 8) * 32 + (index % 8) + 1;
}

const ADDRESS_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,. ';

function address(r: RandomStream): string {
  const n = r.int(10, 40);
  let s = '';
  for (let i = 0; i < n; i++) s += ADDRESS_CHARS[r.int(0, ADDRESS_CHARS.length - 1)];
  return s;
}

function phone(r: RandomStream, nationkey: number): string {
  return `${nationkey + 10}-${r.int(100, 999)}-${r.int(100, 999)}-${r.int(1000, 9999)}`;
}

function emptyColumns(table: TpchTableName): unknown[][] {
  return tpchTable(table).columns.map(() => []);
}

/**
 * Deterministic TPC-H data: the same scale factor always yields the same rows. Tables come
 * in dependency order; orders and lineitem are produced together (an order's status and
 * total price derive from its lines), in batches of about `batchRows` orders.
 */
export class TpchGenerator {
  readonly sf: number;
  readonly counts: TpchCardinalities;
  private readonly text = new TextPool();

  constructor(sf: number) {
    if (!(sf > 0)) throw new Error(`scale factor must be positive, got ${sf}`);
    this.sf = sf;
    this.counts = tpchCardinalities(sf);
  }

  *batches(batchRows = 100_000): Generator<TpchBatch> {
    yield this.region();
    yield this.nation();
    yield* this.supplier(batchRows);
    yield* this.customer(batchRows);
    yield* this.part(batchRows);
    yield* this.partsupp(batchRows);
    for (const b of this.ordersAndLineitems(batchRows)) {
      yield b.orders;
      yield b.lineitem;
    }
  }

  region(): TpchBatch {
    const r = RandomStream.named('region');
    const c = emptyColumns('region');
    REGIONS.forEach((name, k) => {
      c[0]!.push(k); c[1]!.push(pad(name, 25)); c[2]!.push(this.text.text(r, 31, 115));
    });
    return { table: 'region', rowCount: REGIONS.length, columns: c };
  }

  nation(): TpchBatch {
    const r = RandomStream.named('nation');
    const c = emptyColumns('nation');
    NATIONS.forEach(([name, region], k) => {
      c[0]!.push(k); c[1]!.push(pad(name, 25)); c[2]!.push(region); c[3]!.push(this.text.text(r, 31, 114));
    });
    return { table: 'nation', rowCount: NATIONS.length, columns: c };
  }

  *supplier(batchRows: number): Generator<TpchBatch> {
    const n = this.counts.supplier;
    const r = RandomStream.named('supplier');
    const rc = RandomStream.named('supplier.comment');
    // Clause 4.2.3: SF*5 suppliers complain and SF*5 recommend; at least one of each so small scales still exercise Q16.
    const special = Math.max(1, Math.round(this.sf * 5));
    const pick = RandomStream.named('supplier.bbb');
    const complaints = new Set<number>();
    const recommends = new Set<number>();
    while (complaints.size < Math.min(special, n)) complaints.add(pick.int(1, n));
    while (recommends.size < Math.min(special, Math.max(0, n - complaints.size))) {
      const k = pick.int(1, n);
      if (!complaints.has(k)) recommends.add(k);
    }
    for (let lo = 1; lo <= n; lo += batchRows) {
      const hi = Math.min(n, lo + batchRows - 1);
      const c = emptyColumns('supplier');
      for (let k = lo; k <= hi; k++) {
        const nationkey = r.int(0, 24);
        let comment = this.text.text(rc, 25, 100);
        if (complaints.has(k) || recommends.has(k)) {
          const word = complaints.has(k) ? 'Complaints' : 'Recommends';
          const insert = `Customer ${word}`;
          const at = rc.int(0, Math.max(0, comment.length - insert.length));
          comment = (comment.slice(0, at) + insert + comment.slice(at + insert.length)).slice(0, 100);
        }
        c[0]!.push(k); c[1]!.push(pad(`Supplier#${digits9(k)}`, 25)); c[2]!.push(address(r)); c[3]!.push(nationkey);
        c[4]!.push(phone(r, nationkey)); c[5]!.push(centsText(r.int(-99_999, 999_999))); c[6]!.push(comment);
      }
      yield { table: 'supplier', rowCount: hi - lo + 1, columns: c };
    }
  }

  *customer(batchRows: number): Generator<TpchBatch> {
    const n = this.counts.customer;
    const r = RandomStream.named('customer');
    const rc = RandomStream.named('customer.comment');
    for (let lo = 1; lo <= n; lo += batchRows) {
      const hi = Math.min(n, lo + batchRows - 1);
      const c = emptyColumns('customer');
      for (let k = lo; k <= hi; k++) {
        const nationkey = r.int(0, 24);
        c[0]!.push(k); c[1]!.push(`Customer#${digits9(k)}`); c[2]!.push(address(r)); c[3]!.push(nationkey);
        c[4]!.push(phone(r, nationkey)); c[5]!.push(centsText(r.int(-99_999, 999_999)));
        c[6]!.push(pad(r.pick(SEGMENTS), 10)); c[7]!.push(this.text.text(rc, 29, 116));
      }
      yield { table: 'customer', rowCount: hi - lo + 1, columns: c };
    }
  }

  *part(batchRows: number): Generator<TpchBatch> {
    const n = this.counts.part;
    const r = RandomStream.named('part');
    const rc = RandomStream.named('part.comment');
    const chosen: string[] = [];
    for (let lo = 1; lo <= n; lo += batchRows) {
      const hi = Math.min(n, lo + batchRows - 1);
      const c = emptyColumns('part');
      for (let k = lo; k <= hi; k++) {
        chosen.length = 0;
        while (chosen.length < 5) {
          const color = r.pick(COLORS);
          if (!chosen.includes(color)) chosen.push(color);
        }
        const m = r.int(1, 5);
        c[0]!.push(k); c[1]!.push(chosen.join(' ')); c[2]!.push(pad(`Manufacturer#${m}`, 25));
        c[3]!.push(pad(`Brand#${m}${r.int(1, 5)}`, 10));
        c[4]!.push(`${r.pick(TYPE_SYLLABLE_1)} ${r.pick(TYPE_SYLLABLE_2)} ${r.pick(TYPE_SYLLABLE_3)}`);
        c[5]!.push(r.int(1, 50));
        c[6]!.push(pad(`${r.pick(CONTAINER_SYLLABLE_1)} ${r.pick(CONTAINER_SYLLABLE_2)}`, 10));
        c[7]!.push(centsText(retailPriceCents(k))); c[8]!.push(this.text.text(rc, 5, 22));
      }
      yield { table: 'part', rowCount: hi - lo + 1, columns: c };
    }
  }

  *partsupp(batchRows: number): Generator<TpchBatch> {
    const parts = this.counts.part;
    const s = this.counts.supplier;
    const r = RandomStream.named('partsupp');
    const rc = RandomStream.named('partsupp.comment');
    const partsPerBatch = Math.max(1, Math.floor(batchRows / 4));
    for (let lo = 1; lo <= parts; lo += partsPerBatch) {
      const hi = Math.min(parts, lo + partsPerBatch - 1);
      const c = emptyColumns('partsupp');
      let rows = 0;
      for (let k = lo; k <= hi; k++) {
        const seen = new Set<number>();
        for (let i = 0; i < 4; i++) {
          const supp = partSupplier(k, i, s);
          // Only below 4 suppliers (tiny scale factors) can the formula repeat a supplier; the key must stay unique.
          if (seen.has(supp)) continue;
          seen.add(supp);
          c[0]!.push(k); c[1]!.push(supp); c[2]!.push(r.int(1, 9999)); c[3]!.push(centsText(r.int(100, 100_000)));
          c[4]!.push(this.text.text(rc, 49, 198));
          rows++;
        }
      }
      yield { table: 'partsupp', rowCount: rows, columns: c };
    }
  }

  /** Orders with their lines, `batchRows` orders at a time (lineitem batches hold about four times as many rows). */
  *ordersAndLineitems(batchRows: number): Generator<{ orders: TpchBatch; lineitem: TpchBatch }> {
    const n = this.counts.orders;
    const customers = this.counts.customer;
    const parts = this.counts.part;
    const suppliers = this.counts.supplier;
    const clerks = Math.max(1, Math.floor(this.sf * 1000));
    const ro = RandomStream.named('orders');
    const roc = RandomStream.named('orders.comment');
    const rl = RandomStream.named('lineitem');
    const rlc = RandomStream.named('lineitem.comment');
    for (let lo = 0; lo < n; lo += batchRows) {
      const hi = Math.min(n, lo + batchRows);
      const o = emptyColumns('orders');
      const l = emptyColumns('lineitem');
      let lineRows = 0;
      for (let i = lo; i < hi; i++) {
        const orderkey = orderKeyOf(i);
        let custkey = ro.int(1, customers);
        // Clause 4.2.3: a third of customers (custkey divisible by 3) never order.
        while (custkey % 3 === 0 && customers > 2) custkey = ro.int(1, customers);
        const orderdate = ro.int(START_DATE, END_DATE - 151);
        const priority = ro.pick(PRIORITIES);
        const clerk = ro.int(1, clerks);
        const lines = ro.int(1, 7);
        let total = 0;
        let fCount = 0;
        for (let ln = 1; ln <= lines; ln++) {
          const partkey = rl.int(1, parts);
          const suppkey = partSupplier(partkey, rl.int(0, 3), suppliers);
          const qty = rl.int(1, 50);
          const price = qty * retailPriceCents(partkey);
          const discount = rl.int(0, 10);
          const tax = rl.int(0, 8);
          const shipdate = orderdate + rl.int(1, 121);
          const commitdate = orderdate + rl.int(30, 90);
          const receiptdate = shipdate + rl.int(1, 30);
          const returnflag = receiptdate <= CURRENT_DATE ? (rl.int(0, 1) === 0 ? 'R' : 'A') : 'N';
          const linestatus = shipdate > CURRENT_DATE ? 'O' : 'F';
          if (linestatus === 'F') fCount++;
          total += Math.round((price * (100 + tax) * (100 - discount)) / 10_000);
          l[0]!.push(orderkey); l[1]!.push(partkey); l[2]!.push(suppkey); l[3]!.push(ln);
          l[4]!.push(centsText(qty * 100)); l[5]!.push(centsText(price)); l[6]!.push(centsText(discount)); l[7]!.push(centsText(tax));
          l[8]!.push(returnflag); l[9]!.push(linestatus); l[10]!.push(shipdate); l[11]!.push(commitdate); l[12]!.push(receiptdate);
          l[13]!.push(pad(rl.pick(SHIP_INSTRUCTIONS), 25)); l[14]!.push(pad(rl.pick(SHIP_MODES), 10));
          l[15]!.push(this.text.text(rlc, 10, 43));
          lineRows++;
        }
        const status = fCount === lines ? 'F' : fCount === 0 ? 'O' : 'P';
        o[0]!.push(orderkey); o[1]!.push(custkey); o[2]!.push(status); o[3]!.push(centsText(total)); o[4]!.push(orderdate);
        o[5]!.push(pad(priority, 15)); o[6]!.push(pad(`Clerk#${digits9(clerk)}`, 15)); o[7]!.push(0);
        o[8]!.push(this.text.text(roc, 19, 78));
      }
      yield {
        orders: { table: 'orders', rowCount: hi - lo, columns: o },
        lineitem: { table: 'lineitem', rowCount: lineRows, columns: l },
      };
    }
  }
}
