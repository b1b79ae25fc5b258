/**
 * The CH-benCHmark schema: TPC-C's nine tables (clause 1.3) plus TPC-H's nation, region and
 * supplier as CH defines them. Every table is keyed (history gets a surrogate key, as
 * go-tpc and BenchBase give it one), so every write is a keyed insert, upsert, update or delete.
 */
export type ChTableName =
  | 'warehouse' | 'district' | 'customer' | 'history' | 'new_order' | 'orders' | 'order_line' | 'item' | 'stock'
  | 'nation' | 'region' | 'supplier';

export interface ChColumn {
  readonly name: string;
  /** PostgreSQL type text, accepted by Floe and DuckDB alike. */
  readonly type: string;
}

export interface ChTable {
  readonly name: ChTableName;
  readonly columns: readonly ChColumn[];
  readonly primaryKey: readonly string[];
}

const cols = (...c: [string, string][]): ChColumn[] => c.map(([name, type]) => ({ name, type }));
const address = (p: string): [string, string][] => [
  [`${p}_street_1`, 'varchar(20)'], [`${p}_street_2`, 'varchar(20)'], [`${p}_city`, 'varchar(20)'], [`${p}_state`, 'char(2)'], [`${p}_zip`, 'char(9)'],
];
const dists = Array.from({ length: 10 }, (_, i): [string, string] => [`s_dist_${String(i + 1).padStart(2, '0')}`, 'char(24)']);

/** In load order (the small dimension tables first). */
export const CH_TABLES: readonly ChTable[] = [
  { name: 'region', primaryKey: ['r_regionkey'], columns: cols(['r_regionkey', 'integer'], ['r_name', 'char(25)'], ['r_comment', 'varchar(152)']) },
  { name: 'nation', primaryKey: ['n_nationkey'], columns: cols(['n_nationkey', 'integer'], ['n_name', 'char(25)'], ['n_regionkey', 'integer'], ['n_comment', 'varchar(152)']) },
  {
    name: 'supplier', primaryKey: ['s_suppkey'],
    columns: cols(['s_suppkey', 'integer'], ['s_name', 'char(25)'], ['s_address', 'varchar(40)'], ['s_nationkey', 'integer'], ['s_phone', 'char(15)'], ['s_acctbal', 'numeric(15,2)'], ['s_comment', 'varchar(101)']),
  },
  { name: 'item', primaryKey: ['i_id'], columns: cols(['i_id', 'integer'], ['i_im_id', 'integer'], ['i_name', 'varchar(24)'], ['i_price', 'numeric(5,2)'], ['i_data', 'varchar(50)']) },
  {
    name: 'warehouse', primaryKey: ['w_id'],
    columns: cols(['w_id', 'integer'], ['w_name', 'varchar(10)'], ...address('w'), ['w_tax', 'numeric(4,4)'], ['w_ytd', 'numeric(12,2)']),
  },
  {
    name: 'district', primaryKey: ['d_w_id', 'd_id'],
    columns: cols(['d_id', 'integer'], ['d_w_id', 'integer'], ['d_name', 'varchar(10)'], ...address('d'), ['d_tax', 'numeric(4,4)'], ['d_ytd', 'numeric(12,2)'], ['d_next_o_id', 'integer']),
  },
  {
    name: 'customer', primaryKey: ['c_w_id', 'c_d_id', 'c_id'],
    columns: cols(
      ['c_id', 'integer'], ['c_d_id', 'integer'], ['c_w_id', 'integer'], ['c_first', 'varchar(16)'], ['c_middle', 'char(2)'], ['c_last', 'varchar(16)'],
      ...address('c'), ['c_phone', 'char(16)'], ['c_since', 'timestamp'], ['c_credit', 'char(2)'], ['c_credit_lim', 'numeric(12,2)'],
      ['c_discount', 'numeric(4,4)'], ['c_balance', 'numeric(12,2)'], ['c_ytd_payment', 'numeric(12,2)'], ['c_payment_cnt', 'integer'],
      ['c_delivery_cnt', 'integer'], ['c_data', 'varchar(500)'],
    ),
  },
  {
    name: 'history', primaryKey: ['h_id'],
    columns: cols(
      ['h_id', 'bigint'], ['h_c_id', 'integer'], ['h_c_d_id', 'integer'], ['h_c_w_id', 'integer'], ['h_d_id', 'integer'], ['h_w_id', 'integer'],
      ['h_date', 'timestamp'], ['h_amount', 'numeric(6,2)'], ['h_data', 'varchar(24)'],
    ),
  },
  { name: 'new_order', primaryKey: ['no_w_id', 'no_d_id', 'no_o_id'], columns: cols(['no_o_id', 'integer'], ['no_d_id', 'integer'], ['no_w_id', 'integer']) },
  {
    name: 'orders', primaryKey: ['o_w_id', 'o_d_id', 'o_id'],
    columns: cols(
      ['o_id', 'integer'], ['o_d_id', 'integer'], ['o_w_id', 'integer'], ['o_c_id', 'integer'], ['o_entry_d', 'timestamp'],
      ['o_carrier_id', 'integer'], ['o_ol_cnt', 'integer'], ['o_all_local', 'integer'],
    ),
  },
  {
    name: 'order_line', primaryKey: ['ol_w_id', 'ol_d_id', 'ol_o_id', 'ol_number'],
    columns: cols(
      ['ol_o_id', 'integer'], ['ol_d_id', 'integer'], ['ol_w_id', 'integer'], ['ol_number', 'integer'], ['ol_i_id', 'integer'],
      ['ol_supply_w_id', 'integer'], ['ol_delivery_d', 'timestamp'], ['ol_quantity', 'integer'], ['ol_amount', 'numeric(6,2)'], ['ol_dist_info', 'char(24)'],
    ),
  },
  {
    name: 'stock', primaryKey: ['s_w_id', 's_i_id'],
    columns: cols(
      ['s_i_id', 'integer'], ['s_w_id', 'integer'], ['s_quantity', 'integer'], ...dists,
      ['s_ytd', 'integer'], ['s_order_cnt', 'integer'], ['s_remote_cnt', 'integer'], ['s_data', 'varchar(50)'],
    ),
  },
];

export function chTable(name: ChTableName): ChTable {
  const t = CH_TABLES.find((x) => x.name === name);
  if (t === undefined) throw new Error(`no CH table ${name}`);
  return t;
}

/**
 * CREATE TABLE text with the primary key; `properties` become `WITH (…)` (Floe's table
 * properties, e.g. `self-optimizing.enabled`), omitted for DuckDB.
 */
export function createChTableSql(t: ChTable, properties: Readonly<Record<string, string>> = {}): string {
  const colText = t.columns.map((c) => `${c.name} ${c.type}${t.primaryKey.includes(c.name) ? ' NOT NULL' : ''}`).join(', ');
  const props = Object.entries(properties).map(([k, v]) => `'${k}' = '${v}'`);
  return `CREATE TABLE ${t.name} (${colText}, PRIMARY KEY (${t.primaryKey.join(', ')}))${props.length === 0 ? '' : ` WITH (${props.join(', ')})`}`;
}
