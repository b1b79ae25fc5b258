import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SqlType } from '../../src/common/sql-type.js';
import { registerScalarFunction, resolveFunction, type ParamSpec } from '../../src/exec/functions/function-registry.js';
import { bindStatement, parseStatements } from '../../src/sql/index.js';
import { capturedStatements } from './client-queries.js';
import { stubEnv } from './stub-env.js';

/*
 * The catalog functions SESSION registers (src/sql/system-catalog). Binding needs only their
 * signatures, so where the registry does not have one yet a stand-in is registered here.
 */
const t = (kind: string): SqlType => ({ kind } as SqlType);
const standIns: [string, ParamSpec[], SqlType][] = [
  ['pg_get_expr', [t('text'), t('oid')], t('text')],
  ['pg_get_expr', [t('text'), t('oid'), t('bool')], t('text')],
  ['pg_get_userbyid', [t('oid')], t('name')],
  ['pg_table_is_visible', [t('oid')], t('bool')],
  ['pg_function_is_visible', [t('oid')], t('bool')],
  ['format_type', [t('oid'), t('int4')], t('text')],
  ['pg_get_indexdef', [t('oid'), t('int4'), t('bool')], t('text')],
  ['pg_get_constraintdef', [t('oid'), t('bool')], t('text')],
  ['pg_get_statisticsobjdef_columns', [t('oid')], t('text')],
  ['pg_relation_is_publishable', [t('regclass')], t('bool')],
  ['pg_encoding_to_char', [t('int4')], t('name')],
  ['col_description', [t('oid'), t('int4')], t('text')],
  ['pg_get_function_result', [t('oid')], t('text')],
  ['pg_get_function_arguments', [t('oid')], t('text')],
  ['current_schemas', [t('bool')], { kind: 'array', element: t('name') }],
  ['array_upper', ['anyarray', t('int4')], t('int4')],
  ['array_to_string', ['anyarray', t('text')], t('text')],
];
for (const [name, args, returns] of standIns) {
  const known = resolveFunction(name, args.map((a) => (typeof a === 'string' ? { kind: 'array', element: t('int4') } as SqlType : a)));
  if (!known) registerScalarFunction({ name, args, returns, impl: () => null });
}

/**
 * Statements that need a table-function operator EXEC does not have yet (set-returning
 * functions over column values: unnest, generate_series, information_schema._pg_expandarray).
 */
const needsTableFunctions = [/pg_catalog\.unnest\(tc\.reloptions\)/, /generate_series\(1, array_upper/, /_pg_expandarray/, /generate_series\(0, pg_catalog\.array_upper/];

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
