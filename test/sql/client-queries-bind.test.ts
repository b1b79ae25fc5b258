import { test } from 'node:test';
import assert from 'node:assert/strict';
import './catalog-function-stand-ins.js';
import { bindStatement, parseStatements } from '../../src/sql/index.js';
import { capturedStatements } from './client-queries.js';
import { stubEnv } from './stub-env.js';

/**
 * Statements that need a table-function operator EXEC does not have yet (set-returning
 * functions over column values in FROM: unnest, generate_series).
 */
const needsTableFunctions = [/pg_catalog\.unnest\(tc\.reloptions\)/, /generate_series\(1, array_upper/, /generate_series\(0, pg_catalog\.array_upper/];

for (const file of ['psql-meta-commands.sql', 'pgjdbc-42.5.sql']) {
  test(`captured ${file} statements bind`, () => {
    let bound = 0;
    for (const sql of capturedStatements(file)) {
      const [stmt] = parseStatements(sql);
      if (needsTableFunctions.some((re) => re.test(sql))) continue;
      const b = bindStatement(stmt!, stubEnv());
      if (b.kind === 'query') assert.ok(b.columns.length > 0, sql.slice(0, 80));
      bound++;
    }
    assert.ok(bound >= 10, `${bound} statements bound`);
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

test('statements that need set-returning functions over columns fail cleanly with 0A000 (until EXEC has a table-function operator)', () => {
  for (const file of ['psql-meta-commands.sql', 'pgjdbc-42.5.sql']) {
    for (const sql of capturedStatements(file).filter((s) => needsTableFunctions.some((re) => re.test(s)))) {
      assert.throws(() => bindStatement(parseStatements(sql)[0]!, stubEnv()), (e: { sqlstate?: string }) => e.sqlstate === '0A000' || e.sqlstate === '42883', sql.slice(0, 60));
    }
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
