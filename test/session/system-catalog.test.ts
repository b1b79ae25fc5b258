import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSystemCatalog, registerCatalogFunctions } from '../../src/sql/system-catalog/index.js';
import type { CatalogTableInfo } from '../../src/sql/system-catalog/index.js';
import { functionById, resolveFunction } from '../../src/exec/functions/function-registry.js';
import type { EvalContext } from '../../src/exec/expr/eval-context.js';
import type { SqlType } from '../../src/common/sql-type.js';

const orders: CatalogTableInfo = {
  id: 16384, namespace: 'public', name: 'orders', primaryKey: ['o_id'],
  columns: [
    { name: 'o_id', type: { kind: 'int8' }, nullable: false },
    { name: 'o_amount', type: { kind: 'numeric', precision: 12, scale: 2 }, nullable: true },
    { name: 'o_note', type: { kind: 'text' }, nullable: true, defaultExpr: "'none'" },
  ],
};
const items: CatalogTableInfo = { id: 16393, namespace: 'sales', name: 'items', primaryKey: [], columns: [{ name: 'name', type: { kind: 'varchar', length: 40 }, nullable: true }] };
const warehouse = {
  listNamespaces: () => ['public', 'sales'],
  listTables: (ns?: string) => [orders, items].filter((t) => ns === undefined || t.namespace === ns),
  getTableById: (id: number) => [orders, items].find((t) => t.id === id),
};
const catalog = createSystemCatalog();
const vctx = { user: 'floe', database: 'floe', searchPath: ['public'], settings: new Map([['timezone', 'UTC']]), warehouse };

async function rows(schema: string, name: string): Promise<Record<string, unknown>[]> {
  const vt = catalog.lookup(schema, name);
  assert.ok(vt, `${schema}.${name} is missing`);
  const data = await vt.rows(vctx);
  return data.map((r) => Object.fromEntries(vt.columns.map((c, i) => [c.name, r[i]])));
}

function call(name: string, argTypes: SqlType[], args: unknown[]): unknown {
  registerCatalogFunctions();
  const f = resolveFunction(name, argTypes);
  assert.ok(f, `${name} is not registered`);
  const ctx: EvalContext = {
    settings: vctx.settings, user: 'floe', database: 'floe', searchPath: ['public'], warehouse, virtualTables: catalog,
    transactionStartMicros: 0n, statementStartMicros: 0n,
  };
  return functionById(f.id)!.scalar!(args, ctx);
}

test('every relation the captured client queries read exists with PostgreSQL 15 column names', () => {
  for (const [schema, name] of [['pg_catalog', 'pg_class'], ['pg_catalog', 'pg_attribute'], ['pg_catalog', 'pg_policy'], ['pg_catalog', 'pg_statistic_ext'],
    ['pg_catalog', 'pg_publication_rel'], ['pg_catalog', 'pg_inherits'], ['information_schema', 'columns']] as const) {
    assert.ok(catalog.lookup(schema, name), `${schema}.${name}`);
  }
  assert.deepEqual(catalog.lookup('pg_catalog', 'pg_namespace')!.columns.filter((c) => c.system !== true).map((c) => c.name), ['oid', 'nspname', 'nspowner', 'nspacl']);
  // PostgreSQL's tableoid system column, which pg_dump reads beside every oid.
  assert.deepEqual(catalog.lookup('pg_catalog', 'pg_namespace')!.columns.filter((c) => c.system === true).map((c) => c.name), ['tableoid']);
  assert.deepEqual(catalog.lookup('pg_catalog', 'pg_index')!.columns.find((c) => c.name === 'indkey')!.type, { kind: 'array', element: { kind: 'int2' }, catalogType: 'int2vector' });
});

test('pg_class lists lake tables, their primary-key indexes and the catalogs themselves', async () => {
  const cls = await rows('pg_catalog', 'pg_class');
  const byName = new Map(cls.map((r) => [r.relname, r]));
  assert.equal(byName.get('orders')!.oid, 16384);
  assert.equal(byName.get('orders')!.relkind, 'r');
  assert.equal(byName.get('orders')!.relhasindex, true);
  assert.equal(byName.get('orders_pkey')!.relkind, 'i');
  assert.equal(byName.get('pg_class')!.oid, 1259);
  const idx = await rows('pg_catalog', 'pg_index');
  assert.deepEqual(idx.map((r) => [r.indrelid, r.indkey, r.indisprimary]), [[16384, [1], true]]);
});

test('pg_attribute carries real type OIDs and typmods; pg_attrdef holds the deparsed default', async () => {
  const att = (await rows('pg_catalog', 'pg_attribute')).filter((r) => r.attrelid === 16384);
  assert.deepEqual(att.map((r) => [r.attname, r.atttypid, r.atttypmod, r.attnotnull, r.atthasdef]), [
    ['o_id', 20, -1, true, false], ['o_amount', 1700, 786438, false, false], ['o_note', 25, -1, false, true],
  ]);
  const def = await rows('pg_catalog', 'pg_attrdef');
  assert.deepEqual(def.map((r) => [r.adrelid, r.adnum, r.adbin]), [[16384, 3, "'none'::text"]]);
});

test('information_schema.columns and key_column_usage describe the lake tables', async () => {
  const cols = (await rows('information_schema', 'columns')).filter((r) => r.table_schema !== 'pg_catalog' && r.table_schema !== 'information_schema');
  assert.deepEqual(cols.map((r) => [r.table_name, r.column_name, r.data_type, r.is_nullable]), [
    ['orders', 'o_id', 'bigint', 'NO'], ['orders', 'o_amount', 'numeric', 'YES'], ['orders', 'o_note', 'text', 'YES'],
    ['items', 'name', 'character varying', 'YES'],
  ]);
  const kcu = await rows('information_schema', 'key_column_usage');
  assert.deepEqual(kcu.map((r) => [r.constraint_name, r.column_name, r.ordinal_position]), [['orders_pkey', 'o_id', 1]]);
});

test('catalog functions answer as PostgreSQL does', () => {
  const oid: SqlType = { kind: 'oid' };
  const int4: SqlType = { kind: 'int4' };
  assert.equal(call('format_type', [oid, int4], [1700, 786438]), 'numeric(12,2)');
  assert.equal(call('format_type', [oid, int4], [1043, 44]), 'character varying(40)');
  assert.equal(call('format_type', [oid, int4], [1184, -1]), 'timestamp with time zone');
  assert.equal(call('format_type', [oid, int4], [1007, -1]), 'integer[]');
  assert.equal(call('pg_get_indexdef', [oid, int4, { kind: 'bool' }], [1_000_016_384, 0, true]), 'CREATE UNIQUE INDEX orders_pkey ON public.orders USING btree (o_id)');
  assert.equal(call('pg_get_constraintdef', [oid, { kind: 'bool' }], [1_500_016_384, true]), 'PRIMARY KEY (o_id)');
  assert.equal(call('pg_table_is_visible', [oid], [16384]), true);
  assert.equal(call('pg_table_is_visible', [oid], [16393]), false);
  assert.equal(call('pg_get_userbyid', [oid], [10]), 'floe');
  assert.equal(call('quote_ident', [{ kind: 'text' }], ['Mixed Case']), '"Mixed Case"');
  assert.equal(call('quote_ident', [{ kind: 'text' }], ['select']), '"select"');
  assert.deepEqual(call('current_schemas', [{ kind: 'bool' }], [true]), ['pg_catalog', 'public']);
  assert.equal(call('pg_encoding_to_char', [int4], [6]), 'UTF8');
});

test('reg* lookups: regproc names, regtype and regclass texts', async () => {
  const { regprocOid, regtypeName, regclassName } = await import('../../src/sql/system-catalog/index.js');
  assert.equal(regprocOid('pg_catalog.array_in'), 750);
  assert.equal(regprocOid('array_in'), 750);
  assert.equal(regprocOid('no_such_function'), undefined);
  assert.equal(regtypeName(23), 'integer');
  assert.equal(regtypeName(1015), 'character varying[]');
  assert.equal(regtypeName(1184), 'timestamp with time zone');
  assert.equal(regclassName(16384, warehouse, catalog, ['public']), 'orders');
  assert.equal(regclassName(16393, warehouse, catalog, ['public']), 'sales.items');
  assert.equal(regclassName(1259, warehouse, catalog, ['public']), 'pg_class');
});

test('catalog relations carry PostgreSQL relkinds; column defaults read as pg_get_expr prints them', async () => {
  const cls = new Map((await rows('pg_catalog', 'pg_class')).map((r) => [r.relname, r.relkind]));
  assert.equal(cls.get('pg_class'), 'r');
  assert.equal(cls.get('pg_roles'), 'v');
  assert.equal(cls.get('columns'), 'v');
  const cols = (await rows('information_schema', 'columns')).filter((r) => r.table_name === 'orders' && r.column_name === 'o_note');
  assert.equal(cols[0]!.column_default, "'none'::text");
});

test('the reg* resolver EXEC asks: names in, names out, through search_path', async () => {
  registerCatalogFunctions();
  const { regTypeInput, regTypeOutput } = await import('../../src/exec/types/reg-types.js');
  const ctx: EvalContext = {
    settings: vctx.settings, user: 'floe', database: 'floe', searchPath: ['public'], warehouse, virtualTables: catalog,
    transactionStartMicros: 0n, statementStartMicros: 0n,
  };
  assert.equal(regTypeInput('regclass', 'orders', ctx), 16384);
  assert.equal(regTypeInput('regclass', 'sales.items', ctx), 16393);
  assert.equal(regTypeInput('regclass', 'pg_catalog.pg_class', ctx), 1259);
  assert.equal(regTypeInput('regclass', '"orders"', ctx), 16384);
  assert.throws(() => regTypeInput('regclass', 'items', ctx), /relation "items" does not exist/);
  assert.equal(regTypeInput('regproc', 'pg_catalog.array_in', ctx), 750);
  assert.equal(regTypeOutput('regclass', 16393, ctx), 'sales.items');
  assert.equal(regTypeOutput('regproc', 750, ctx), 'array_in');
  assert.equal(regTypeOutput('regtype', 1043, ctx), 'character varying');
});
