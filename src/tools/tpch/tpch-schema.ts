import type { SqlType } from '../../common/sql-type.js';

export type TpchTableName = 'region' | 'nation' | 'supplier' | 'customer' | 'part' | 'partsupp' | 'orders' | 'lineitem';

export interface TpchColumn {
  readonly name: string;
  readonly type: SqlType;
}

export interface TpchTable {
  readonly name: TpchTableName;
  readonly columns: readonly TpchColumn[];
  readonly primaryKey: readonly string[];
}

const int4: SqlType = { kind: 'int4' };
const money: SqlType = { kind: 'numeric', precision: 15, scale: 2 };
const date: SqlType = { kind: 'date' };
const char = (length: number): SqlType => ({ kind: 'bpchar', length });
const varchar = (length: number): SqlType => ({ kind: 'varchar', length });
const cols = (...c: [string, SqlType][]): TpchColumn[] => c.map(([name, type]) => ({ name, type }));

/** The specification's schema (clause 1.4): fixed text as char(N), variable text as varchar(N), decimals as numeric(15,2). */
export const TPCH_TABLES: readonly TpchTable[] = [
  { name: 'region', primaryKey: ['r_regionkey'], columns: cols(['r_regionkey', int4], ['r_name', char(25)], ['r_comment', varchar(152)]) },
  { name: 'nation', primaryKey: ['n_nationkey'], columns: cols(['n_nationkey', int4], ['n_name', char(25)], ['n_regionkey', int4], ['n_comment', varchar(152)]) },
  {
    name: 'supplier', primaryKey: ['s_suppkey'],
    columns: cols(['s_suppkey', int4], ['s_name', char(25)], ['s_address', varchar(40)], ['s_nationkey', int4], ['s_phone', char(15)], ['s_acctbal', money], ['s_comment', varchar(101)]),
  },
  {
    name: 'customer', primaryKey: ['c_custkey'],
    columns: cols(['c_custkey', int4], ['c_name', varchar(25)], ['c_address', varchar(40)], ['c_nationkey', int4], ['c_phone', char(15)], ['c_acctbal', money], ['c_mktsegment', char(10)], ['c_comment', varchar(117)]),
  },
  {
    name: 'part', primaryKey: ['p_partkey'],
    columns: cols(['p_partkey', int4], ['p_name', varchar(55)], ['p_mfgr', char(25)], ['p_brand', char(10)], ['p_type', varchar(25)], ['p_size', int4], ['p_container', char(10)], ['p_retailprice', money], ['p_comment', varchar(23)]),
  },
  {
    name: 'partsupp', primaryKey: ['ps_partkey', 'ps_suppkey'],
    columns: cols(['ps_partkey', int4], ['ps_suppkey', int4], ['ps_availqty', int4], ['ps_supplycost', money], ['ps_comment', varchar(199)]),
  },
  {
    name: 'orders', primaryKey: ['o_orderkey'],
    columns: cols(['o_orderkey', int4], ['o_custkey', int4], ['o_orderstatus', char(1)], ['o_totalprice', money], ['o_orderdate', date], ['o_orderpriority', char(15)], ['o_clerk', char(15)], ['o_shippriority', int4], ['o_comment', varchar(79)]),
  },
  {
    name: 'lineitem', primaryKey: ['l_orderkey', 'l_linenumber'],
    columns: cols(
      ['l_orderkey', int4], ['l_partkey', int4], ['l_suppkey', int4], ['l_linenumber', int4],
      ['l_quantity', money], ['l_extendedprice', money], ['l_discount', money], ['l_tax', money],
      ['l_returnflag', char(1)], ['l_linestatus', char(1)], ['l_shipdate', date], ['l_commitdate', date], ['l_receiptdate', date],
      ['l_shipinstruct', char(25)], ['l_shipmode', char(10)], ['l_comment', varchar(44)],
    ),
  },
];

export function tpchTable(name: TpchTableName): TpchTable {
  return TPCH_TABLES.find((t) => t.name === name)!;
}

/** CREATE TABLE text (PostgreSQL dialect, which Floe also accepts), with the primary key. */
export function createTableSql(t: TpchTable): string {
  const colText = t.columns.map((c) => `${c.name} ${sqlTypeText(c.type)} NOT NULL`).join(', ');
  return `CREATE TABLE ${t.name} (${colText}, PRIMARY KEY (${t.primaryKey.join(', ')}))`;
}

function sqlTypeText(t: SqlType): string {
  switch (t.kind) {
    case 'int4': return 'integer';
    case 'numeric': return `numeric(${t.precision},${t.scale})`;
    case 'date': return 'date';
    case 'bpchar': return `char(${t.length})`;
    case 'varchar': return `varchar(${t.length})`;
    default: throw new Error(`unexpected TPC-H column type ${t.kind}`);
  }
}
