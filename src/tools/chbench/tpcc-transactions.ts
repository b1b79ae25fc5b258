import { DISTRICTS_PER_WAREHOUSE, timestampText } from './tpcc-generator.js';
import type { TpccScale } from './tpcc-generator.js';
import type { TpccRandom } from './tpcc-random.js';
import { sqlLiteral, sqlTuple } from './sql-literal.js';

export type TpccTxKind = 'new-order' | 'payment' | 'delivery' | 'order-status' | 'stock-level';

export const TPCC_TX_KINDS: readonly TpccTxKind[] = ['new-order', 'payment', 'delivery', 'order-status', 'stock-level'];

/** The mix of clause 5.2.3 as CH-benCHmark runs it: 45/43/4/4/4 (percent). */
export const TPCC_MIX: Readonly<Record<TpccTxKind, number>> = { 'new-order': 45, payment: 43, delivery: 4, 'order-status': 4, 'stock-level': 4 };

/** What a transaction needs from its connection: node-postgres' `Client.query` fits. */
export interface TxConnection {
  query(sql: string): Promise<{ readonly rows: readonly Record<string, unknown>[] }>;
}

export interface TxContext {
  readonly scale: TpccScale;
  readonly random: TpccRandom;
  /** A fresh history key (unique across every client of the run). */
  nextHistoryId(): number;
  /** The transaction's timestamp (wall clock). */
  now(): number;
}

/** A finished transaction: its write statements in order (to replay on a peer), and whether it rolled back by design. */
export interface TxOutcome {
  readonly kind: TpccTxKind;
  readonly writes: readonly string[];
  /** New-Order's 1% with an unused item number (clause 2.4.1.4): rolled back, and counted as completed as the specification counts it. */
  readonly rolledBack: boolean;
}

export function pickTxKind(r: TpccRandom): TpccTxKind {
  let x = r.int(1, 100);
  for (const k of TPCC_TX_KINDS) {
    x -= TPCC_MIX[k];
    if (x <= 0) return k;
  }
  return 'new-order';
}

/**
 * Runs one transaction of `kind` (BEGIN … COMMIT) on `conn`; any error is thrown after a
 * ROLLBACK. `beforeCommit`, when given, is asked for one more statement that a transaction
 * which wrote runs just before its COMMIT (bench:cdc stamps each one to time its arrival on
 * a replica); it is not one of the outcome's writes.
 */
export async function runTpccTransaction(kind: TpccTxKind, conn: TxConnection, ctx: TxContext, beforeCommit?: () => string): Promise<TxOutcome> {
  const tx = new Tx(conn);
  await conn.query('BEGIN');
  try {
    let rolledBack = false;
    switch (kind) {
      case 'new-order': rolledBack = await newOrder(tx, ctx); break;
      case 'payment': await payment(tx, ctx); break;
      case 'delivery': await delivery(tx, ctx); break;
      case 'order-status': await orderStatus(tx, ctx); break;
      case 'stock-level': await stockLevel(tx, ctx); break;
    }
    if (!rolledBack && tx.writes.length > 0 && beforeCommit !== undefined) await conn.query(beforeCommit());
    await conn.query(rolledBack ? 'ROLLBACK' : 'COMMIT');
    return { kind, writes: rolledBack ? [] : tx.writes, rolledBack };
  } catch (e) {
    await conn.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

/** A transaction's statements: reads run, writes run and are kept for the peer. */
class Tx {
  readonly writes: string[] = [];
  readonly #conn: TxConnection;

  constructor(conn: TxConnection) {
    this.#conn = conn;
  }

  async read(sql: string): Promise<readonly Record<string, unknown>[]> {
    return (await this.#run(sql)).rows;
  }

  async write(sql: string): Promise<void> {
    await this.#run(sql);
    this.writes.push(sql);
  }

  /** Runs a statement; an error keeps its SQLSTATE (`code`) and names the statement (`statement`). */
  async #run(sql: string): Promise<{ readonly rows: readonly Record<string, unknown>[] }> {
    try {
      return await this.#conn.query(sql);
    } catch (e) {
      if (e instanceof Error) Object.assign(e, { statement: sql });
      throw e;
    }
  }
}

const num = (v: unknown): number => Number(v);
const cents = (v: unknown): number => Math.round(Number(v) * 100);
const money = (c: number): string => (c / 100).toFixed(2);

function otherWarehouse(r: TpccRandom, w: number, warehouses: number): number {
  if (warehouses === 1) return w;
  const o = r.int(1, warehouses - 1);
  return o >= w ? o + 1 : o;
}

/** The customer of a by-name lookup: the one at position ceil(n/2) by c_first (clause 2.5.2.2); undefined when none has the name. */
async function customerByName(tx: Tx, w: number, d: number, last: string): Promise<number | undefined> {
  const rows = await tx.read(`SELECT c_id FROM customer WHERE c_w_id = ${w} AND c_d_id = ${d} AND c_last = ${sqlLiteral(last)} ORDER BY c_first`);
  if (rows.length === 0) return undefined;
  return num(rows[Math.ceil(rows.length / 2) - 1]!.c_id);
}

/** Clause 2.4: an order of 5–15 lines, 1% remote supply, 1% rolled back. Returns true when rolled back by design. */
async function newOrder(tx: Tx, ctx: TxContext): Promise<boolean> {
  const { random: r, scale } = ctx;
  const w = r.int(1, scale.warehouses);
  const d = r.int(1, DISTRICTS_PER_WAREHOUSE);
  const c = r.customerId(scale.customersPerDistrict);
  const lineCount = r.int(5, 15);
  const rollback = r.int(1, 100) === 1;
  const lines: { item: number; supplyW: number; quantity: number }[] = [];
  const seen = new Set<number>();
  while (lines.length < lineCount) {
    const item = rollback && lines.length === lineCount - 1 ? scale.items + 1 : r.itemId(scale.items);
    if (seen.has(item)) continue; // one line per item, so a stock row is written once
    seen.add(item);
    lines.push({ item, supplyW: r.int(1, 100) === 1 ? otherWarehouse(r, w, scale.warehouses) : w, quantity: r.int(1, 10) });
  }
  const now = timestampText(ctx.now());

  const [wh] = await tx.read(`SELECT w_tax FROM warehouse WHERE w_id = ${w}`);
  const [dist] = await tx.read(`SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ${w} AND d_id = ${d}`);
  if (wh === undefined || dist === undefined) throw new Error(`warehouse ${w} district ${d} missing`);
  const o = num(dist.d_next_o_id);
  await tx.write(`UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ${w} AND d_id = ${d}`);
  const [cust] = await tx.read(`SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ${w} AND c_d_id = ${d} AND c_id = ${c}`);
  if (cust === undefined) throw new Error(`customer ${w}/${d}/${c} missing`);
  const items = new Map((await tx.read(`SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN (${lines.map((l) => l.item).join(', ')})`)).map((row) => [num(row.i_id), row]));
  if (items.size < lines.length) return true; // an unused item number: the specification's rollback

  const allLocal = lines.every((l) => l.supplyW === w) ? 1 : 0;
  await tx.write(`INSERT INTO orders VALUES ${sqlTuple([o, d, w, c, now, null, lineCount, allLocal])}`);
  await tx.write(`INSERT INTO new_order VALUES ${sqlTuple([o, d, w])}`);

  const distCol = `s_dist_${String(d).padStart(2, '0')}`;
  const stock = new Map<string, Record<string, unknown>>();
  for (const sw of new Set(lines.map((l) => l.supplyW))) {
    const ids = lines.filter((l) => l.supplyW === sw).map((l) => l.item);
    for (const row of await tx.read(`SELECT s_i_id, s_quantity, ${distCol} AS dist, s_data FROM stock WHERE s_w_id = ${sw} AND s_i_id IN (${ids.join(', ')})`)) {
      stock.set(`${sw}/${num(row.s_i_id)}`, row);
    }
    // One statement per supply warehouse: s_quantity per item (clause 2.4.2.2), the counters relative.
    const mine = lines.filter((l) => l.supplyW === sw);
    const quantity = mine.map((l) => {
      const q = num(stock.get(`${sw}/${l.item}`)?.s_quantity ?? 0);
      return `WHEN ${l.item} THEN ${q - l.quantity >= 10 ? q - l.quantity : q - l.quantity + 91}`;
    });
    const ytd = mine.map((l) => `WHEN ${l.item} THEN ${l.quantity}`);
    await tx.write(
      `UPDATE stock SET s_quantity = CASE s_i_id ${quantity.join(' ')} END, s_ytd = s_ytd + CASE s_i_id ${ytd.join(' ')} END, ` +
      `s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ${sw === w ? 0 : 1} WHERE s_w_id = ${sw} AND s_i_id IN (${ids.join(', ')})`,
    );
  }
  const values = lines.map((l, i) => {
    const amount = l.quantity * cents(items.get(l.item)!.i_price);
    const dist = String(stock.get(`${l.supplyW}/${l.item}`)?.dist ?? '').padEnd(24, ' ').slice(0, 24);
    return sqlTuple([o, d, w, i + 1, l.item, l.supplyW, null, l.quantity, money(amount), dist]);
  });
  await tx.write(`INSERT INTO order_line VALUES ${values.join(', ')}`);
  return false;
}

/** Clause 2.5: a payment by a customer chosen by last name (60%) or id, 15% through a remote warehouse. */
async function payment(tx: Tx, ctx: TxContext): Promise<void> {
  const { random: r, scale } = ctx;
  const w = r.int(1, scale.warehouses);
  const d = r.int(1, DISTRICTS_PER_WAREHOUSE);
  const local = r.int(1, 100) <= 85;
  const cw = local ? w : otherWarehouse(r, w, scale.warehouses);
  const cd = local ? d : r.int(1, DISTRICTS_PER_WAREHOUSE);
  const byName = r.int(1, 100) <= 60;
  const last = r.lastNameForRun(scale.customersPerDistrict);
  const byId = r.customerId(scale.customersPerDistrict);
  const amount = r.int(100, 500_000);
  const amt = money(amount);
  const now = timestampText(ctx.now());

  await tx.write(`UPDATE warehouse SET w_ytd = w_ytd + ${amt} WHERE w_id = ${w}`);
  const [wh] = await tx.read(`SELECT w_name FROM warehouse WHERE w_id = ${w}`);
  await tx.write(`UPDATE district SET d_ytd = d_ytd + ${amt} WHERE d_w_id = ${w} AND d_id = ${d}`);
  const [dist] = await tx.read(`SELECT d_name FROM district WHERE d_w_id = ${w} AND d_id = ${d}`);
  const c = (byName ? await customerByName(tx, cw, cd, last) : undefined) ?? byId;
  const [cust] = await tx.read(`SELECT c_credit, c_data FROM customer WHERE c_w_id = ${cw} AND c_d_id = ${cd} AND c_id = ${c}`);
  if (cust === undefined) throw new Error(`customer ${cw}/${cd}/${c} missing`);
  let set = `c_balance = c_balance - ${amt}, c_ytd_payment = c_ytd_payment + ${amt}, c_payment_cnt = c_payment_cnt + 1`;
  if (String(cust.c_credit) === 'BC') {
    const data = `${c} ${cd} ${cw} ${d} ${w} ${amt} | ${String(cust.c_data)}`.slice(0, 500);
    set += `, c_data = ${sqlLiteral(data)}`;
  }
  await tx.write(`UPDATE customer SET ${set} WHERE c_w_id = ${cw} AND c_d_id = ${cd} AND c_id = ${c}`);
  const hData = `${String(wh?.w_name ?? '')}    ${String(dist?.d_name ?? '')}`.slice(0, 24);
  await tx.write(`INSERT INTO history VALUES ${sqlTuple([ctx.nextHistoryId(), c, cd, cw, d, w, now, amt, hData])}`);
}

/** Clause 2.7: deliver the oldest undelivered order of each of the warehouse's districts. */
async function delivery(tx: Tx, ctx: TxContext): Promise<void> {
  const { random: r, scale } = ctx;
  const w = r.int(1, scale.warehouses);
  const carrier = r.int(1, 10);
  const now = timestampText(ctx.now());
  const oldest = await tx.read(`SELECT no_d_id, min(no_o_id) AS o FROM new_order WHERE no_w_id = ${w} GROUP BY no_d_id ORDER BY no_d_id`);
  for (const row of oldest) {
    const d = num(row.no_d_id);
    const o = num(row.o);
    await tx.write(`DELETE FROM new_order WHERE no_w_id = ${w} AND no_d_id = ${d} AND no_o_id = ${o}`);
    const [ord] = await tx.read(`SELECT o_c_id, o_ol_cnt FROM orders WHERE o_w_id = ${w} AND o_d_id = ${d} AND o_id = ${o}`);
    if (ord === undefined) continue;
    await tx.write(`UPDATE orders SET o_carrier_id = ${carrier} WHERE o_w_id = ${w} AND o_d_id = ${d} AND o_id = ${o}`);
    // The full keys (ol_number 1..o_ol_cnt), so the lake prunes to the order's bucket nodes.
    const lineKey = `ol_w_id = ${w} AND ol_d_id = ${d} AND ol_o_id = ${o} AND ol_number IN (${lineNumbers(num(ord.o_ol_cnt))})`;
    await tx.write(`UPDATE order_line SET ol_delivery_d = ${sqlLiteral(now)} WHERE ${lineKey}`);
    const [sum] = await tx.read(`SELECT sum(ol_amount) AS total FROM order_line WHERE ${lineKey}`);
    const total = money(cents(sum?.total ?? 0));
    await tx.write(`UPDATE customer SET c_balance = c_balance + ${total}, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ${w} AND c_d_id = ${d} AND c_id = ${num(ord.o_c_id)}`);
  }
}

/** Clause 2.6 (read-only): a customer's balance and last order with its lines. */
async function orderStatus(tx: Tx, ctx: TxContext): Promise<void> {
  const { random: r, scale } = ctx;
  const w = r.int(1, scale.warehouses);
  const d = r.int(1, DISTRICTS_PER_WAREHOUSE);
  const byName = r.int(1, 100) <= 60;
  const last = r.lastNameForRun(scale.customersPerDistrict);
  const byId = r.customerId(scale.customersPerDistrict);
  const c = (byName ? await customerByName(tx, w, d, last) : undefined) ?? byId;
  await tx.read(`SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ${w} AND c_d_id = ${d} AND c_id = ${c}`);
  const [ord] = await tx.read(`SELECT o_id, o_carrier_id, o_entry_d, o_ol_cnt FROM orders WHERE o_w_id = ${w} AND o_d_id = ${d} AND o_c_id = ${c} ORDER BY o_id DESC LIMIT 1`);
  if (ord === undefined) return;
  await tx.read(
    `SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line ` +
    `WHERE ol_w_id = ${w} AND ol_d_id = ${d} AND ol_o_id = ${num(ord.o_id)} AND ol_number IN (${lineNumbers(num(ord.o_ol_cnt))})`,
  );
}

/** Clause 2.8 (read-only): distinct items of the district's last 20 orders whose stock is under a threshold. */
async function stockLevel(tx: Tx, ctx: TxContext): Promise<void> {
  const { random: r, scale } = ctx;
  const w = r.int(1, scale.warehouses);
  const d = r.int(1, DISTRICTS_PER_WAREHOUSE);
  const threshold = r.int(10, 20);
  const [dist] = await tx.read(`SELECT d_next_o_id FROM district WHERE d_w_id = ${w} AND d_id = ${d}`);
  const next = num(dist?.d_next_o_id ?? 0);
  await tx.read(
    `SELECT count(DISTINCT s_i_id) AS low_stock FROM order_line, stock WHERE ol_w_id = ${w} AND ol_d_id = ${d} ` +
    `AND ol_o_id < ${next} AND ol_o_id >= ${next - 20} AND s_w_id = ${w} AND s_i_id = ol_i_id AND s_quantity < ${threshold}`,
  );
}

function lineNumbers(count: number): string {
  return Array.from({ length: Math.max(1, count) }, (_, i) => i + 1).join(', ');
}
