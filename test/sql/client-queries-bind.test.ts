import { test } from 'node:test';
import assert from 'node:assert/strict';
import './catalog-function-stand-ins.js';
import { bindStatement, parseStatements } from '../../src/sql/index.js';
import { capturedStatements } from './client-queries.js';
import { stubEnv } from './stub-env.js';

for (const file of ['psql-meta-commands.sql', 'pgjdbc-42.5.sql']) {
  test(`captured ${file} statements bind`, () => {
    let bound = 0;
    for (const sql of capturedStatements(file)) {
      const [stmt] = parseStatements(sql);
      const b = bindStatement(stmt!, stubEnv());
      if (b.kind === 'query') assert.ok(b.columns.length > 0, sql.slice(0, 80));
      bound++;
    }
    assert.equal(bound, capturedStatements(file).length);
  });
}

test('psql \\dt columns match PostgreSQL 15', () => {
  const sql = capturedStatements('psql-meta-commands.sql')[0]!;
  const b = bindStatement(parseStatements(sql)[0]!, stubEnv());
  assert.ok(b.kind === 'query');
  if (b.kind === 'query') {
    assert.deepEqual(b.columns.map((c) => [c.name, c.type.kind]), [['Schema', 'name'], ['Name', 'name'], ['Type', 'text'], ['Owner', 'name']]);
  }
});

test('pgjdbc getTables columns match PostgreSQL 15', () => {
  const sql = capturedStatements('pgjdbc-42.5.sql').find((s) => s.includes('AS TABLE_TYPE'))!;
  const b = bindStatement(parseStatements(sql)[0]!, stubEnv());
  assert.ok(b.kind === 'query');
  if (b.kind === 'query') {
    assert.deepEqual(b.columns.map((c) => c.name), [
      'table_cat', 'table_schem', 'table_name', 'table_type', 'remarks', 'type_cat', 'type_schem', 'type_name',
      'self_referencing_col_name', 'ref_generation',
    ]);
    assert.deepEqual(b.columns.map((c) => c.type.kind), ['text', 'name', 'name', 'text', 'text', 'text', 'text', 'text', 'text', 'text']);
  }
});

test('pgjdbc getPrimaryKeys: _pg_expandarray in the select list and (composite).field', () => {
  const sql = capturedStatements('pgjdbc-42.5.sql').find((s) => s.includes('PK_NAME FROM'))!;
  const b = bindStatement(parseStatements(sql)[0]!, stubEnv());
  assert.ok(b.kind === 'query');
  if (b.kind === 'query') {
    assert.deepEqual(b.columns.map((c) => [c.name, c.type.kind]), [
      ['table_cat', 'text'], ['table_schem', 'name'], ['table_name', 'name'], ['column_name', 'name'], ['key_seq', 'int4'], ['pk_name', 'name'],
    ]);
  }
  const idx = capturedStatements('pgjdbc-42.5.sql').find((s) => s.includes('INDEX_QUALIFIER'))!;
  const i = bindStatement(parseStatements(idx)[0]!, stubEnv());
  assert.ok(i.kind === 'query' && i.columns.some((c) => c.name === 'ordinal_position' && c.type.kind === 'int4'));
});

test('set-returning functions over column values: correlated unnest and generate_series (psql \\d+, pgjdbc getTypeInfo)', () => {
  const toast = capturedStatements('psql-meta-commands.sql').find((s) => s.includes("'toast.'"))!;
  const b = bindStatement(parseStatements(toast)[0]!, stubEnv());
  assert.ok(b.kind === 'query');
  assert.match(JSON.stringify(b, (_k, v) => (typeof v === 'bigint' ? String(v) : v)), /"correlated":true/, 'unnest(tc.reloptions) makes the ARRAY(…) subquery correlated');
  const typeInfo = capturedStatements('pgjdbc-42.5.sql').find((s) => s.includes('array_in'))!;
  const t = bindStatement(parseStatements(typeInfo)[0]!, stubEnv());
  assert.ok(t.kind === 'query');
  if (t.kind === 'query') assert.deepEqual(t.columns.map((c) => [c.name, c.type.kind]), [['is_array', 'bool'], ['typtype', 'char'], ['typname', 'name'], ['oid', 'oid']]);
});
