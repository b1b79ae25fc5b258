import { TpchGenerator } from '../tpch/tpch-generator.js';
import type { TpchBatch } from '../tpch/tpch-generator.js';
import { chTable } from './tpcc-schema.js';
import type { ChTableName } from './tpcc-schema.js';
import { lastName, TpccRandom } from './tpcc-random.js';

/** One value as COPY text would carry it: numbers, numeric/timestamp text, or NULL. */
export type ChValue = string | number | null;

/** Rows of one table, in the table's column order. */
export interface ChBatch {
  readonly table: ChTableName;
  readonly rows: readonly (readonly ChValue[])[];
}

/** TPC-C's cardinalities (clause 4.3.1); items, customers and orders can be scaled down for tests. */
export interface TpccScale {
  readonly warehouses: number;
  /** 100,000 in the specification. */
  readonly items: number;
  /** 3,000 in the specification. */
  readonly customersPerDistrict: number;
  /** 3,000 in the specification; the last 30% are undelivered (new_order rows). */
  readonly ordersPerDistrict: number;
}

export const DISTRICTS_PER_WAREHOUSE = 10;

/** The first h_id above the loaded history (one row per customer, numbered from 1): where the clients' keys start. */
export function firstHistoryIdAfterLoad(scale: TpccScale): number {
  return scale.warehouses * DISTRICTS_PER_WAREHOUSE * scale.customersPerDistrict + 1;
}
/** CH-benCHmark's fixed supplier count: stock rows map to suppliers by mod(s_w_id * s_i_id, 10000). */
export const CH_SUPPLIERS = 10_000;

export function tpccScale(warehouses: number, overrides: Partial<Omit<TpccScale, 'warehouses'>> = {}): TpccScale {
  if (!Number.isInteger(warehouses) || warehouses < 1) throw new Error(`warehouses must be a positive integer, got ${warehouses}`);
  return { warehouses, items: 100_000, customersPerDistrict: 3_000, ordersPerDistrict: 3_000, ...overrides };
}

/** The first o_id that is still undelivered after the load (2,101 of 3,000). */
export function firstUndeliveredOrder(scale: TpccScale): number {
  return Math.floor(scale.ordersPerDistrict * 0.7) + 1;
}

/** TPC-C's timestamp text for a JS time (UTC, microseconds), as Floe and DuckDB read it. */
export function timestampText(ms: number): string {
  return `${new Date(ms).toISOString().replace('T', ' ').replace('Z', '')}000`;
}

/**
 * The initial database (clause 4.3.3) for W warehouses, in load order and in batches of at
 * most `batchRows`, generated deterministically from `seed`; nation, region and supplier are
 * TPC-H's (scale factor 1), as CH-benCHmark defines them.
 */
export class TpccGenerator {
  readonly scale: TpccScale;
  readonly #loadTime: string;
  readonly #seed: string;

  constructor(scale: TpccScale, opts: { readonly loadTimeMs?: number; readonly seed?: string } = {}) {
    this.scale = scale;
    this.#loadTime = timestampText(opts.loadTimeMs ?? Date.now());
    this.#seed = opts.seed ?? 'chbench';
  }

  *batches(batchRows = 20_000): Generator<ChBatch> {
    const tpch = new TpchGenerator(1);
    yield fromTpch(tpch.region());
    yield fromTpch(tpch.nation());
    for (const b of tpch.supplier(CH_SUPPLIERS)) yield fromTpch(b);
    yield* chunk('item', this.items(), batchRows);
    yield* chunk('warehouse', this.warehouses(), batchRows);
    yield* chunk('district', this.districts(), batchRows);
    yield* chunk('customer', this.customers(), batchRows);
    yield* chunk('history', this.history(), batchRows);
    yield* chunk('orders', this.orders(), batchRows);
    yield* chunk('new_order', this.newOrders(), batchRows);
    yield* chunk('order_line', this.orderLines(), batchRows);
    yield* chunk('stock', this.stock(), batchRows);
  }

  #random(table: string): TpccRandom {
    return new TpccRandom(`${this.#seed}.${table}`, { cLast: 0, cId: 0, olIId: 0 });
  }

  *items(): Generator<ChValue[]> {
    const r = this.#random('item');
    for (let i = 1; i <= this.scale.items; i++) {
      yield [i, r.int(1, 10_000), r.aString(14, 24), r.decimal(100, 10_000, 2), r.dataWithOriginal()];
    }
  }

  *warehouses(): Generator<ChValue[]> {
    const r = this.#random('warehouse');
    for (let w = 1; w <= this.scale.warehouses; w++) {
      yield [w, r.aString(6, 10), r.aString(10, 20), r.aString(10, 20), r.aString(10, 20), r.state(), r.zip(), r.decimal(0, 2000, 4), '300000.00'];
    }
  }

  *districts(): Generator<ChValue[]> {
    const r = this.#random('district');
    for (let w = 1; w <= this.scale.warehouses; w++) {
      for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
        yield [d, w, r.aString(6, 10), r.aString(10, 20), r.aString(10, 20), r.aString(10, 20), r.state(), r.zip(), r.decimal(0, 2000, 4), '30000.00', this.scale.ordersPerDistrict + 1];
      }
    }
  }

  *customers(): Generator<ChValue[]> {
    const r = this.#random('customer');
    const n = this.scale.customersPerDistrict;
    for (let w = 1; w <= this.scale.warehouses; w++) {
      for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
        for (let c = 1; c <= n; c++) {
          // The first 1,000 customers of a district take the 1,000 names in order; the rest NURand(255).
          const last = c <= 1000 ? lastName(c - 1) : lastName(r.nurand(255, 0, 0, 999));
          yield [
            c, d, w, r.aString(8, 16), 'OE', last, r.aString(10, 20), r.aString(10, 20), r.aString(10, 20), r.state(), r.zip(),
            r.nString(16, 16), this.#loadTime, r.int(1, 10) === 1 ? 'BC' : 'GC', '50000.00', r.decimal(0, 5000, 4),
            '-10.00', '10.00', 1, 0, r.aString(300, 500),
          ];
        }
      }
    }
  }

  /** One history row per customer; h_id numbers them from 1 (clients continue above the load's). */
  *history(): Generator<ChValue[]> {
    const r = this.#random('history');
    let id = 0;
    for (let w = 1; w <= this.scale.warehouses; w++) {
      for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
        for (let c = 1; c <= this.scale.customersPerDistrict; c++) {
          yield [++id, c, d, w, d, w, this.#loadTime, '10.00', r.aString(12, 24)];
        }
      }
    }
  }

  /** Order line counts drawn once per order, shared by orders and order_line so o_ol_cnt matches. */
  #lineCounts(w: number, d: number): number[] {
    const r = new TpccRandom(`${this.#seed}.ol_cnt.${w}.${d}`, { cLast: 0, cId: 0, olIId: 0 });
    return Array.from({ length: this.scale.ordersPerDistrict }, () => r.int(5, 15));
  }

  *orders(): Generator<ChValue[]> {
    const r = this.#random('orders');
    const undelivered = firstUndeliveredOrder(this.scale);
    for (let w = 1; w <= this.scale.warehouses; w++) {
      for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
        const customers = r.permutation(this.scale.ordersPerDistrict).map((c) => ((c - 1) % this.scale.customersPerDistrict) + 1);
        const counts = this.#lineCounts(w, d);
        for (let o = 1; o <= this.scale.ordersPerDistrict; o++) {
          yield [o, d, w, customers[o - 1]!, this.#loadTime, o < undelivered ? r.int(1, 10) : null, counts[o - 1]!, 1];
        }
      }
    }
  }

  *newOrders(): Generator<ChValue[]> {
    for (let w = 1; w <= this.scale.warehouses; w++) {
      for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
        for (let o = firstUndeliveredOrder(this.scale); o <= this.scale.ordersPerDistrict; o++) yield [o, d, w];
      }
    }
  }

  *orderLines(): Generator<ChValue[]> {
    const r = this.#random('order_line');
    const undelivered = firstUndeliveredOrder(this.scale);
    for (let w = 1; w <= this.scale.warehouses; w++) {
      for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
        const counts = this.#lineCounts(w, d);
        for (let o = 1; o <= this.scale.ordersPerDistrict; o++) {
          const delivered = o < undelivered;
          for (let n = 1; n <= counts[o - 1]!; n++) {
            yield [o, d, w, n, r.int(1, this.scale.items), w, delivered ? this.#loadTime : null, 5, delivered ? '0.00' : r.decimal(1, 999_999, 2), r.aString(24, 24)];
          }
        }
      }
    }
  }

  *stock(): Generator<ChValue[]> {
    const r = this.#random('stock');
    for (let w = 1; w <= this.scale.warehouses; w++) {
      for (let i = 1; i <= this.scale.items; i++) {
        const row: ChValue[] = [i, w, r.int(10, 100)];
        for (let k = 0; k < 10; k++) row.push(r.aString(24, 24));
        row.push(0, 0, 0, r.dataWithOriginal());
        yield row;
      }
    }
  }
}

function* chunk(table: ChTableName, rows: Iterable<ChValue[]>, batchRows: number): Generator<ChBatch> {
  let batch: ChValue[][] = [];
  for (const row of rows) {
    batch.push(row);
    if (batch.length >= batchRows) {
      yield { table, rows: batch };
      batch = [];
    }
  }
  if (batch.length > 0) yield { table, rows: batch };
}

/** A TPC-H batch (column-wise, same column names) as CH rows. */
function fromTpch(b: TpchBatch): ChBatch {
  const table = b.table as ChTableName;
  const width = chTable(table).columns.length;
  const rows: ChValue[][] = [];
  for (let i = 0; i < b.rowCount; i++) {
    const row: ChValue[] = [];
    for (let c = 0; c < width; c++) row.push(b.columns[c]![i] as ChValue);
    rows.push(row);
  }
  return { table, rows };
}

/** A batch as COPY … FROM STDIN text (tab-separated, `\N` for NULL, escaped). */
export function chCopyText(batch: ChBatch): string {
  let out = '';
  for (const row of batch.rows) {
    out += row.map((v) => (v === null ? '\\N' : escapeCopy(String(v)))).join('\t');
    out += '\n';
  }
  return out;
}

function escapeCopy(s: string): string {
  return /[\\\t\n\r]/.test(s) ? s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : s;
}

