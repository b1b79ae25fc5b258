import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unwrap } from '../../src/sql/binder/ast.js';
import { referencedColumns } from '../../src/sql/materialized-view/referenced-columns.js';
import { viewShape, type RelationLookup, type ViewArm } from '../../src/sql/materialized-view/view-shape.js';
import { parseStatements } from '../../src/sql/parser/parse-statements.js';

/** Two keyed tables: orders(o_id, o_c_id, o_total, o_note) keyed by o_id, customer(c_id, c_name, c_balance) keyed by c_id. */
const TABLES: Record<string, { primaryKey: string[]; columns: string[] }> = {
  orders: { primaryKey: ['o_id'], columns: ['o_id', 'o_c_id', 'o_total', 'o_note'] },
  customer: { primaryKey: ['c_id'], columns: ['c_id', 'c_name', 'c_balance'] },
};

const lookup: RelationLookup = (rv) => {
  const t = TABLES[rv.relname as string]!;
  return { table: { tableId: 1, namespace: 'public', name: rv.relname as string, primaryKey: t.primaryKey, columns: t.columns } };
};

function firstArm(sql: string): ViewArm {
  const shape = viewShape(unwrap(parseStatements(sql)[0]!.ast)[1], lookup, false);
  if (shape.kind === 'full') throw new Error(shape.reason);
  return shape.kind === 'linear' ? shape.arms[0]! : shape.arm;
}

/** Each relation's referenced columns, by range name. */
function referenced(sql: string): Record<string, string[]> {
  const arm = firstArm(sql);
  return Object.fromEntries(arm.relations.map((r) => [r.rangeName, referencedColumns(arm, r)]));
}

test('a relation keeps its key and the columns the query names, qualified or not', () => {
  assert.deepEqual(referenced('SELECT o.o_total, c_name FROM orders o JOIN customer c ON o.o_c_id = c.c_id'), {
    o: ['o_id', 'o_c_id', 'o_total'],
    c: ['c_id', 'c_name'],
  });
  assert.deepEqual(referenced('SELECT c_name, sum(o_total) FROM orders, customer WHERE o_c_id = c_id GROUP BY c_name'), {
    orders: ['o_id', 'o_c_id', 'o_total'],
    customer: ['c_id', 'c_name'],
  });
});

test('a name qualified by another relation is not this one\'s; one qualified by an unknown name is kept', () => {
  assert.deepEqual(referenced('SELECT a.o_total FROM orders a JOIN orders b ON a.o_c_id = b.o_id'), {
    a: ['o_id', 'o_c_id', 'o_total'],
    b: ['o_id'],
  });
  assert.deepEqual(referenced('SELECT public.orders.o_note FROM orders')['orders'], ['o_id', 'o_note']);
});

test('*, r.* and a whole-row reference take every column; USING names its columns', () => {
  assert.deepEqual(referenced('SELECT * FROM orders')['orders'], TABLES['orders']!.columns);
  assert.deepEqual(referenced('SELECT c.c_name, o.* FROM orders o JOIN customer c ON o.o_c_id = c.c_id'), {
    o: TABLES['orders']!.columns,
    c: ['c_id', 'c_name'],
  });
  assert.deepEqual(referenced('SELECT row_to_json(o) FROM orders o')['o'], TABLES['orders']!.columns);
  assert.deepEqual(referenced('SELECT row_to_json(public.orders) FROM orders')['orders'], TABLES['orders']!.columns);
  assert.deepEqual(referenced('SELECT a.o_total FROM orders a JOIN orders b USING (o_c_id)'), {
    a: ['o_id', 'o_c_id', 'o_total'],
    b: ['o_id', 'o_c_id'],
  });
});
