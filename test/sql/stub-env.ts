import type { SqlType } from '../../src/common/sql-type.js';
import type { BindEnv, CatalogTable } from '../../src/sql/index.js';
import type { VirtualTable, VirtualTableRegistry } from '../../src/sql/binder/virtual-table.js';

const t = (kind: string): SqlType => ({ kind } as SqlType);

/** A small catalog for binder tests: lake tables plus a handful of pg_catalog relations. */
export const stubTables: CatalogTable[] = [
  {
    id: 16384, namespace: 'public', name: 'orders',
    columns: [
      { name: 'o_id', type: t('int8'), nullable: false },
      { name: 'o_cust', type: t('int4'), nullable: true },
      { name: 'o_amount', type: { kind: 'numeric', precision: 12, scale: 2 }, nullable: true },
      { name: 'o_ts', type: t('timestamptz'), nullable: true },
      { name: 'o_note', type: t('text'), nullable: true, defaultExpr: "'none'" },
    ],
    primaryKey: ['o_id'],
    partitionBy: [{ sourceColumn: 'o_ts', transform: { kind: 'day' }, name: 'o_ts_day' }],
  },
  {
    id: 16390, namespace: 'public', name: 'customers',
    columns: [
      { name: 'c_id', type: t('int4'), nullable: false },
      { name: 'c_name', type: t('text'), nullable: true },
    ],
    primaryKey: ['c_id'],
  },
  {
    id: 16393, namespace: 'sales', name: 'items',
    columns: [
      { name: 'i_id', type: t('int4'), nullable: true },
      { name: 'i_name', type: { kind: 'varchar', length: 20 }, nullable: true },
    ],
    primaryKey: [],
  },
];

function vt(schema: string, name: string, oid: number, cols: [string, string][]): VirtualTable {
  return {
    schema, name, oid, columns: cols.map(([n, k]) => ({ name: n, type: k.endsWith('[]') ? { kind: 'array', element: t(k.slice(0, -2)) } : t(k) })),
    rows: async () => [],
  };
}

const oid = 'oid';
export const stubVirtualTables: VirtualTable[] = [
  vt('pg_catalog', 'pg_namespace', 2615, [['oid', oid], ['nspname', 'name'], ['nspowner', oid], ['nspacl', 'text[]']]),
  vt('pg_catalog', 'pg_class', 1259, [['oid', oid], ['relname', 'name'], ['relnamespace', oid], ['reltype', oid], ['relowner', oid],
    ['relam', oid], ['relkind', 'char'], ['reltuples', 'float4'], ['relpages', 'int4'], ['relchecks', 'int2'], ['relhasindex', 'bool'],
    ['relhasrules', 'bool'], ['relhastriggers', 'bool'], ['relrowsecurity', 'bool'], ['relforcerowsecurity', 'bool'],
    ['relispartition', 'bool'], ['reltablespace', oid], ['reloftype', oid], ['relpersistence', 'char'], ['relreplident', 'char'],
    ['reltoastrelid', oid], ['reloptions', 'text[]'], ['relpartbound', 'text']]),
  vt('pg_catalog', 'pg_attribute', 1249, [['attrelid', oid], ['attname', 'name'], ['atttypid', oid], ['attlen', 'int2'], ['attnum', 'int2'],
    ['atttypmod', 'int4'], ['attnotnull', 'bool'], ['atthasdef', 'bool'], ['attidentity', 'char'], ['attgenerated', 'char'],
    ['attisdropped', 'bool'], ['attcollation', oid], ['attstorage', 'char'], ['attcompression', 'char'], ['attstattarget', 'int4']]),
  vt('pg_catalog', 'pg_type', 1247, [['oid', oid], ['typname', 'name'], ['typnamespace', oid], ['typtype', 'char'], ['typnotnull', 'bool'],
    ['typbasetype', oid], ['typtypmod', 'int4'], ['typrelid', oid], ['typinput', 'regproc'], ['typcollation', oid]]),
  vt('pg_catalog', 'pg_am', 2601, [['oid', oid], ['amname', 'name']]),
  vt('pg_catalog', 'pg_description', 2609, [['objoid', oid], ['classoid', oid], ['objsubid', 'int4'], ['description', 'text']]),
  vt('pg_catalog', 'pg_attrdef', 2604, [['oid', oid], ['adrelid', oid], ['adnum', 'int2'], ['adbin', 'text']]),
  vt('pg_catalog', 'pg_index', 2610, [['indexrelid', oid], ['indrelid', oid], ['indisunique', 'bool'], ['indisprimary', 'bool'],
    ['indisclustered', 'bool'], ['indisvalid', 'bool'], ['indisreplident', 'bool'], ['indkey', 'int2[]'], ['indoption', 'int2[]'], ['indpred', 'text']]),
  vt('pg_catalog', 'pg_constraint', 2606, [['oid', oid], ['conname', 'name'], ['conrelid', oid], ['conindid', oid], ['contype', 'char'],
    ['condeferrable', 'bool'], ['condeferred', 'bool']]),
  vt('pg_catalog', 'pg_collation', 3456, [['oid', oid], ['collname', 'name']]),
  vt('pg_catalog', 'pg_policy', 3256, [['oid', oid], ['polname', 'name'], ['polrelid', oid], ['polcmd', 'char'], ['polpermissive', 'bool'],
    ['polroles', 'oid[]'], ['polqual', 'text'], ['polwithcheck', 'text']]),
  vt('pg_catalog', 'pg_roles', 1260, [['oid', oid], ['rolname', 'name'], ['rolsuper', 'bool'], ['rolinherit', 'bool'], ['rolcreaterole', 'bool'],
    ['rolcreatedb', 'bool'], ['rolcanlogin', 'bool'], ['rolconnlimit', 'int4'], ['rolvaliduntil', 'timestamptz'], ['rolreplication', 'bool'],
    ['rolbypassrls', 'bool']]),
  vt('pg_catalog', 'pg_auth_members', 1261, [['roleid', oid], ['member', oid]]),
  vt('pg_catalog', 'pg_statistic_ext', 3381, [['oid', oid], ['stxrelid', oid], ['stxnamespace', oid], ['stxname', 'name'], ['stxkind', 'char[]'], ['stxstattarget', 'int4']]),
  vt('pg_catalog', 'pg_publication', 6104, [['oid', oid], ['pubname', 'name'], ['puballtables', 'bool']]),
  vt('pg_catalog', 'pg_publication_namespace', 6237, [['oid', oid], ['pnpubid', oid], ['pnnspid', oid]]),
  vt('pg_catalog', 'pg_publication_rel', 6106, [['oid', oid], ['prpubid', oid], ['prrelid', oid], ['prqual', 'text'], ['prattrs', 'int2[]']]),
  vt('pg_catalog', 'pg_inherits', 2611, [['inhrelid', oid], ['inhparent', oid], ['inhseqno', 'int4'], ['inhdetachpending', 'bool']]),
  vt('pg_catalog', 'pg_database', 1262, [['oid', oid], ['datname', 'name'], ['datdba', oid], ['encoding', 'int4'], ['datcollate', 'text'],
    ['datctype', 'text'], ['daticulocale', 'text'], ['datlocprovider', 'char'], ['datacl', 'text[]']]),
  vt('pg_catalog', 'pg_proc', 1255, [['oid', oid], ['proname', 'name'], ['pronamespace', oid], ['prokind', 'char']]),
  vt('public', 'orders$snapshots', 90001, [['snapshot_id', 'int8'], ['parent_id', 'int8'], ['committed_at', 'timestamptz'], ['operation', 'text']]),
];

export const stubRegistry: VirtualTableRegistry = {
  lookup: (schema, name) => stubVirtualTables.find((v) => v.schema === schema && v.name === name),
  list: (schema) => stubVirtualTables.filter((v) => schema === undefined || v.schema === schema),
};

export function stubEnv(paramTypes?: readonly (SqlType | undefined)[]): BindEnv {
  return {
    warehouse: { getTable: (ns, name) => stubTables.find((x) => x.namespace === ns && x.name === name) },
    searchPath: ['public'],
    virtualTables: stubRegistry,
    ...(paramTypes ? { paramTypes } : {}),
  };
}
