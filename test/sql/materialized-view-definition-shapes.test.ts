import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BindEnv, CatalogTable } from '../../src/sql/index.js';
import { unwrap } from '../../src/sql/binder/ast.js';
import { definitionShape } from '../../src/sql/materialized-view/definition-shapes.js';
import { parseStatements } from '../../src/sql/parser/parse-statements.js';
import { stubEnv, stubTables } from './stub-env.js';

/*
 * A view's shape is kept between refreshes and rewrites while what its definition names
 * resolves the same; a table that changes under it (a column, its key) gives a new shape.
 */

const DEFINITION = 'SELECT o_cust, sum(o_amount) AS total, count(*) AS n FROM orders GROUP BY o_cust';

function envWith(orders: CatalogTable): BindEnv {
  const env = stubEnv();
  return { ...env, warehouse: { getTable: (ns, name) => (ns === 'public' && name === 'orders' ? orders : env.warehouse.getTable(ns, name)) } };
}

const orders = stubTables.find((t) => t.name === 'orders')!;

function relationColumns(env: BindEnv): readonly string[] {
  const { shape } = definitionShape(DEFINITION, env);
  assert.equal(shape.kind, 'aggregate');
  return shape.kind === 'aggregate' ? shape.arm.relations[0]!.columns : [];
}

test('the same definition over the same tables is bound once', () => {
  const first = definitionShape(DEFINITION, envWith(orders));
  // A new catalog read of the same table (another object) is still the same table.
  assert.equal(definitionShape(DEFINITION, envWith({ ...orders, columns: [...orders.columns] })), first);
  assert.deepEqual(relationColumns(envWith(orders)), ['o_id', 'o_cust', 'o_amount', 'o_ts', 'o_note']);
});

test('a column added to a base table, or a new key, gives a new shape', () => {
  const before = definitionShape(DEFINITION, envWith(orders));
  const widened = { ...orders, columns: [...orders.columns, { name: 'o_status', type: { kind: 'text' as const }, nullable: true }] };
  assert.notEqual(definitionShape(DEFINITION, envWith(widened)), before);
  assert.deepEqual(relationColumns(envWith(widened)), ['o_id', 'o_cust', 'o_amount', 'o_ts', 'o_note', 'o_status']);
  const rekeyed = { ...orders, primaryKey: ['o_id', 'o_cust'] };
  const { shape } = definitionShape(DEFINITION, envWith(rekeyed));
  assert.deepEqual(shape.kind === 'aggregate' ? shape.arm.relations[0]!.primaryKey : undefined, ['o_id', 'o_cust']);
  // A table that is gone is found gone, not answered from the kept shape.
  assert.throws(() => definitionShape(DEFINITION, { ...stubEnv(), warehouse: { getTable: () => undefined } }), { sqlstate: '42P01' });
});

test('what a kept shape holds cannot be changed by its users', () => {
  const { shape, select } = definitionShape(DEFINITION, envWith(orders));
  assert.throws(() => { (select as { whereClause?: unknown }).whereClause = {}; }, TypeError);
  assert.throws(() => { (shape as { kind: string }).kind = 'full'; }, TypeError);
  // The parse of the same text that other statements share is not the frozen copy.
  assert.equal(Object.isFrozen(unwrap(parseStatements(DEFINITION)[0]!.ast)[1]), false);
});
