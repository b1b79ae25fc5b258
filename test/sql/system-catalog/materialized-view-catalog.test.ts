import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse } from '../../../src/lake/index.js';
import type { ColumnDefinition, Warehouse } from '../../../src/lake/index.js';
import { createFloeSession } from '../../../src/session/index.js';
import { loadSqlParser } from '../../../src/sql/index.js';
import { createSystemCatalog, registerCatalogFunctions } from '../../../src/sql/system-catalog/index.js';
import type { SessionHandler } from '../../../src/wire/session-handler.js';

/**
 * The catalogs over materialized views and hidden columns, with the views made through
 * the lake API (so the columns Floe keeps for a view are known here by name): relkind 'm'
 * and pg_matviews as PostgreSQL 15 has them, the view's key nowhere, hidden columns of any
 * table never listed. test/clients/materialized-view-psql.test.ts compares psql and pg_dump
 * with PostgreSQL 15 over views made with SQL.
 */
let warehouse: Warehouse;
let s: SessionHandler;

async function session(applicationName = 'test'): Promise<SessionHandler> {
  const h = createFloeSession({
    warehouse, catalog: createSystemCatalog(),
    startup: { user: 'floe', database: 'floe', parameters: { application_name: applicationName }, remoteAddress: '127.0.0.1', processId: 9 },
  });
  await h.start({ parameterStatus: () => undefined, notice: () => undefined });
  return h;
}

async function rows(sql: string, on = s): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const r of on.simpleQuery(sql, new AbortController().signal)) {
    if (r.kind === 'rows') for await (const b of r.batches) for (let i = 0; i < b.numRows; i++) out.push(b.columns.map((c) => c.get(i)));
  }
  return out;
}

async function sqlstate(sql: string): Promise<string | undefined> {
  try {
    await rows(sql);
    return undefined;
  } catch (e) {
    return (e as { sqlstate?: string }).sqlstate;
  }
}

const hidden = (name: string, kind: 'text' | 'int8'): ColumnDefinition => ({ name, type: { kind }, nullable: false, hidden: true });

before(async () => {
  await loadSqlParser();
  registerCatalogFunctions();
  warehouse = await openWarehouse({ path: mkdtempSync(join(tmpdir(), 'floe-mv-catalog-')) });
  s = await session();
  await rows('CREATE TABLE t (id int PRIMARY KEY, g text, v numeric)');
  const t = warehouse.getTable('public', 't')!;
  await warehouse.createMaterializedView({
    namespace: 'public', name: 'mv', primaryKey: ['mv_key'],
    columns: [
      { name: 'g', type: { kind: 'text' }, nullable: true }, { name: 'total', type: { kind: 'numeric' }, nullable: true },
      hidden('mv_key', 'text'), hidden('mv_count', 'int8'),
    ],
  }, { definition: 'SELECT g, sum(v) AS total FROM t GROUP BY g', searchPath: ['public'], dependsOn: [t.id], options: ['freshness=30 seconds'], fullRefreshReason: undefined });
  // A plain table with a column Floe keeps: hidden columns stay out of the catalogs for any table.
  await warehouse.createTable({ namespace: 'public', name: 'kept', columns: [{ name: 'a', type: { kind: 'int4' }, nullable: true }, hidden('kept_state', 'int8')] });
});

describe('materialized views in the catalogs (PostgreSQL 15 shapes)', () => {
  test('pg_class: relkind m, the query\'s columns only, not populated before a refresh, no index for its key, reloptions', async () => {
    assert.deepEqual(await rows(`SELECT relkind, relnatts, relispopulated, relhasindex, relhasrules, relam, relpersistence, reloptions
      FROM pg_class WHERE relname = 'mv'`), [['m', 2, false, false, true, 2, 'p', ['freshness=30 seconds']]]);
    assert.deepEqual(await rows(`SELECT relname FROM pg_class WHERE relname LIKE 'mv%' ORDER BY 1`), [['mv']]);
    assert.deepEqual(await rows(`SELECT count(*) FROM pg_index WHERE indrelid = 'mv'::regclass`), [[0n]]);
    assert.deepEqual(await rows(`SELECT count(*) FROM pg_constraint WHERE conrelid = 'mv'::regclass`), [[0n]]);
  });

  test('pg_dump sees no Floe options in reloptions (PostgreSQL would refuse them on restore)', async () => {
    assert.deepEqual(await rows(`SELECT reloptions FROM pg_class WHERE relname = 'mv'`, await session('pg_dump')), [[null]]);
  });

  test('pg_attribute lists the user\'s columns, never NOT NULL; hidden columns of any table are absent', async () => {
    assert.deepEqual(await rows(`SELECT attname, attnum, attnotnull FROM pg_attribute WHERE attrelid = 'mv'::regclass AND attnum > 0 ORDER BY attnum`),
      [['g', 1, false], ['total', 2, false]]);
    assert.deepEqual(await rows(`SELECT attname FROM pg_attribute WHERE attrelid = 'kept'::regclass AND attnum > 0`), [['a']]);
    assert.deepEqual(await rows(`SELECT column_name FROM information_schema.columns WHERE table_name = 'kept'`), [['a']]);
    assert.deepEqual(await rows(`SELECT relnatts FROM pg_class WHERE relname = 'kept'`), [[1]]);
  });

  test('information_schema and pg_tables leave materialized views out, as PostgreSQL does', async () => {
    assert.deepEqual(await rows(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`), [['kept'], ['t']]);
    assert.deepEqual(await rows(`SELECT count(*) FROM information_schema.columns WHERE table_name = 'mv'`), [[0n]]);
    assert.deepEqual(await rows(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`), [['kept'], ['t']]);
    assert.deepEqual(await rows(`SELECT count(*) FROM information_schema.table_privileges WHERE table_name = 'mv'`), [[0n]]);
  });

  test('pg_matviews and pg_get_viewdef print the query as written', async () => {
    const def = ' SELECT g, sum(v) AS total FROM t GROUP BY g;';
    assert.deepEqual(await rows(`SELECT schemaname, matviewname, matviewowner, tablespace, hasindexes, ispopulated, definition FROM pg_matviews`),
      [['public', 'mv', 'floe', null, false, false, def]]);
    assert.deepEqual(await rows(`SELECT pg_get_viewdef('mv'::regclass), pg_get_viewdef('mv'), pg_get_viewdef('mv'::regclass, true)`), [[def, def, def]]);
  });

  test('a column Floe keeps is no column to the privilege functions (42703)', async () => {
    assert.equal(await sqlstate(`SELECT has_column_privilege('mv', 'mv_key', 'SELECT')`), '42703');
    assert.equal(await sqlstate(`SELECT has_column_privilege('kept', 'kept_state', 'SELECT')`), '42703');
    assert.deepEqual(await rows(`SELECT has_column_privilege('mv', 'g', 'SELECT'), has_table_privilege('mv', 'SELECT')`), [[true, true]]);
  });

  test('its _RETURN rule ties it to the tables it reads (pg_dump orders it after them)', async () => {
    assert.deepEqual(await rows(`SELECT rulename, ev_type, is_instead FROM pg_rewrite WHERE ev_class = 'mv'::regclass`), [['_RETURN', '1', true]]);
    assert.deepEqual(await rows(`SELECT d.refobjid::regclass::text, d.deptype FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid
      WHERE d.classid = 'pg_rewrite'::regclass AND r.ev_class = 'mv'::regclass ORDER BY 2`), [['mv', 'i'], ['t', 'n']]);
  });
});
